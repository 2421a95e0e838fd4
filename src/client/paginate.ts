/**
 * Cursor pagination (spec part 4: `cursor` query parameter, `{ next, previous, results }`).
 *
 * `pages()` is the one primitive; `paginate()` yields the items of those pages. The walk
 * takes only the `cursor` value out of each `next` URL and asks the same operation again at
 * the client's own API root: a URL from a response body is never requested, so a hostile or
 * misconfigured `next` cannot send the token to another origin. A cursor seen before ends
 * the walk with a `PaginationError` instead of looping forever, and so does a run of
 * {@link MAX_EMPTY_PAGES} empty pages that still point to a next one: a store's pages hold
 * items, and a server handing out fresh cursors to nothing would otherwise be asked without
 * end. Breaking out of a `for await` stops fetching: a page is requested only when the
 * previous one is used up, and `return()` with a page in flight (of `paginate()` or of
 * `paginate.pages()`) aborts it.
 */
import type { Client } from "openapi-fetch";
import type { OperationKey } from "../../generated/operations.js";
import { loadTables } from "./tables.js";
import { PaginationError } from "../core/errors.js";
import type { FetchResult } from "../core/call-types.js";
import { unwrap } from "./unwrap.js";
import { itemsOf } from "./page-items.js";
import { ownDeadline } from "../core/timeout.js";
import type { ListPath, Paginate, paths } from "../core/types.js";

/** Empty pages in a row, each with a `next` link, after which the walk stops. */
const MAX_EMPTY_PAGES = 50;

type Page = { next?: string | null; results?: unknown[]; nextCursor?: string | null };
type GetInit = { params?: { query?: Record<string, unknown>; [location: string]: unknown }; [key: string]: unknown };

/**
 * The `cursor` value of a `next` link; relative links are read against the API root (the MCP
 * server, which has none at hand, reads them against a placeholder: the query is the link's).
 */
export function cursorOf(next: string, apiRoot: string): string | undefined {
  try {
    return new URL(next, `${apiRoot}/`).searchParams.get("cursor") ?? undefined;
  } catch {
    return undefined;
  }
}

/** What each `paginate()` walk was started with, so that a runner can restart it from a cursor. */
const walks = new WeakMap<object, { path: ListPath; init: GetInit | undefined }>();

/** The path and options of a `paginate()` walk; `undefined` for any other iterable. Not exported from the package. */
export function walkOf(items: unknown): { path: ListPath; init: GetInit | undefined } | undefined {
  return typeof items === "object" && items !== null ? walks.get(items) : undefined;
}

/** Builds `paginate` (and `paginate.pages`) for a client whose API root is `apiRoot`. */
export function createPaginate(client: Client<paths>, apiRoot: string): Paginate {
  async function* pages(path: ListPath, init?: GetInit, whole?: boolean): AsyncGenerator<Page, void, undefined> {
    const key = `GET ${path}` as OperationKey;
    const { operations } = await loadTables();
    const meta = operations[key];
    if (!meta?.paginated) {
      const lists = Object.keys(operations)
        .filter((k) => operations[k as OperationKey].paginated)
        .map((k) => k.slice(4));
      throw new TypeError(`paginate() takes a list operation (${lists.join(", ")}), got ${JSON.stringify(path)}.`);
    }
    const operation = { method: "GET", path };
    const seen = new Set<string>();
    let pagesRead = 0;
    let emptyInARow = 0;
    let cursor = init?.params?.query?.cursor as string | undefined;
    for (;;) {
      const request =
        cursor === undefined
          ? init
          : { ...init, params: { ...init?.params, query: { ...init?.params?.query, cursor } } };
      // The path is one of the list paths (checked above); its init type varies by path.
      // A failed page throws the typed error for its status, as unwrap() does for any call.
      const page = (await unwrap((client.GET as (p: string, i?: GetInit) => Promise<FetchResult>)(path, request))) as
        | Page
        | undefined;
      const stop = (problem: string) => new PaginationError({ problem, pagesRead, operation });
      if (!Array.isArray(page?.results)) {
        throw stop("the page has no `results` array");
      }
      const last = !page.next; // absent, null or ""
      // Where a walk restarts after this page: `params.query.cursor` of a new walk.
      const nextCursor = last ? null : cursorOf(page.next!, apiRoot);
      page.nextCursor = nextCursor ?? null;
      // `whole`: the page as one item of a step, for a walk of pages.
      yield whole ? { results: [page] } : page;
      pagesRead++;
      if (last) return;
      emptyInARow = page.results.length === 0 ? emptyInARow + 1 : 0;
      if (emptyInARow === MAX_EMPTY_PAGES) throw stop(`${MAX_EMPTY_PAGES} empty pages in a row, each with a next link`);
      if (!nextCursor) throw stop("the page's `next` link carries no `cursor` parameter");
      seen.add(cursor ?? "");
      if (seen.has(nextCursor)) {
        throw stop("the server sent the cursor of an earlier page again; stopping instead of looping");
      }
      cursor = nextCursor;
    }
  }

  // Each walk (of items or of pages) sends its pages with a signal of its own (which the
  // caller's aborts, with its reason), so that leaving the loop aborts a page still in flight:
  // itemsOf() aborts it on return() (an async generator's return() would wait for it), and a
  // walk of pages is a walk of one-page steps.
  const startWalk = (path: ListPath, init: GetInit | undefined, whole?: boolean) => {
    // A null signal (openapi-fetch takes one) is as good as none to ownDeadline().
    const own = ownDeadline(init?.signal as AbortSignal | undefined, Infinity);
    return itemsOf(pages(path, { ...init, signal: own.signal }, whole), () => own.abort());
  };
  const items = (path: ListPath, init?: GetInit) => {
    const walk = startWalk(path, init);
    walks.set(walk, { path, init });
    return walk;
  };
  const pagesOf = (path: ListPath, init?: GetInit) => startWalk(path, init, true);

  return Object.assign(items, { pages: pagesOf }) as unknown as Paginate;
}
