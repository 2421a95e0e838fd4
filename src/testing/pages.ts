/**
 * `servePages(items, { pageSize })`: a handler that serves a list the way the API does, in
 * pages of `{ next, previous, results }` whose links carry a `cursor` (an offset here; to the
 * client it is opaque, as the contract says), after the query's equality filters.
 */
import { mustBe } from "#shared";
import { problemResponse } from "./problems.js";

/** A page of a list operation, as {@link servePages} answers it. */
export interface ServedPage<Item> {
  status: 200;
  body: { next: string | null; previous: string | null; results: Item[] };
}

/**
 * A handler for a list operation that serves `items` in pages of `pageSize`, following the
 * request's `cursor` query parameter.
 *
 * The query's other parameters filter the list by equality when they name a field of the
 * items (`?accepts_marketing=true` keeps the items whose `accepts_marketing` is `true`; a
 * repeated parameter keeps the items equal to any of its values), compared after the
 * mock converted them as the contract says. A parameter that names no field of the items
 * (a search, an ordering, a range such as `created_at__gte`) is not applied: the list is
 * served as given, so script those with a handler of your own.
 *
 * @example
 * mock.on("GET /users/", servePages(users, { pageSize: 2 }));
 */
export function servePages<Item>(
  items: readonly Item[],
  options: { pageSize: number },
): (context: { query: { cursor?: string | undefined }; request: Request }) => ServedPage<Item> | Response {
  const { pageSize } = options;
  if (!Number.isInteger(pageSize) || pageSize < 1) mustBe("servePages(): pageSize", "a whole number ≥ 1", pageSize);
  const all = [...items];
  return ({ query, request }) => {
    const list = filtered(all, query as Record<string, unknown>);
    const offset = query.cursor === undefined ? 0 : Number(query.cursor);
    if (!Number.isInteger(offset) || offset < 0 || offset > list.length) {
      return problemResponse(
        400,
        `servePages(): the cursor ${JSON.stringify(query.cursor)} is not one this list handed out.`,
      );
    }
    const link = (at: number): string => {
      const url = new URL(request.url);
      url.searchParams.set("cursor", String(at));
      return url.href;
    };
    const end = offset + pageSize;
    return {
      status: 200,
      body: {
        next: end < list.length ? link(end) : null,
        previous: offset > 0 ? link(Math.max(0, offset - pageSize)) : null,
        results: list.slice(offset, end),
      },
    };
  };
}

/** The items equal to each of the query's parameters that names one of their fields (`cursor` aside). */
function filtered<Item>(items: readonly Item[], query: Record<string, unknown>): Item[] {
  const filters = Object.entries(query).filter(
    ([name, value]) =>
      name !== "cursor" &&
      value !== undefined &&
      items.some((item) => typeof item === "object" && item !== null && Object.hasOwn(item, name)),
  );
  if (filters.length === 0) return [...items];
  const equal = (a: unknown, b: unknown): boolean =>
    a === b || (typeof a !== "object" && typeof b !== "object" && String(a) === String(b));
  return items.filter((item) =>
    filters.every(([name, wanted]) => {
      const value = (item as Record<string, unknown>)[name];
      return Array.isArray(wanted) ? wanted.some((w) => equal(value, w)) : equal(value, wanted);
    }),
  );
}
