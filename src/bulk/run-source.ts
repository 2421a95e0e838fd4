/**
 * Where a run's items come from, pulled one at a time as workers free up (never collected).
 * A `paginate()` walk is walked again by the runner, page by page, from the ledger's checkpoint,
 * so that each item's page is known; anything else is pulled as it is.
 */
import { type ListPath, type StoreAdminClient, walkOf } from "#shared";
import type { PageTrack, WalkCheckpoint } from "./run-checkpoint.js";

/** One pulled item, with the page it came from when `items` is a walk. */
export interface Pulled<Item> {
  item: Item;
  page: PageTrack | undefined;
}

type Source<Item> =
  | { sync: true; next(): IteratorResult<Pulled<Item>>; return?: () => unknown }
  | { sync?: false; next(): Promise<IteratorResult<Pulled<Item>>>; return?: () => unknown };

/** The items to pull; a walk's pages are tracked in `checkpoint`. */
export function itemsSource<Item>(
  items: Iterable<Item> | AsyncIterable<Item>,
  cursor: string | null | undefined,
  client: StoreAdminClient,
  checkpoint: Pick<WalkCheckpoint, "pages" | "advance">,
): Source<Item> {
  const walk = walkOf(items);
  if (walk) {
    return (async function* () {
      if (cursor === null) return; // every page was done by an earlier run
      const init = walk.init;
      const from =
        cursor === undefined
          ? init
          : { ...init, params: { ...init?.params, query: { ...init?.params?.query, cursor } } };
      const walkPages = client.paginate.pages as (
        path: ListPath,
        init?: unknown,
      ) => AsyncGenerator<{ results?: unknown[]; nextCursor: string | null }>;
      for await (const page of walkPages(walk.path, from)) {
        const results = (page.results ?? []) as Item[];
        const track: PageTrack = { remaining: results.length, blocked: false, nextCursor: page.nextCursor };
        checkpoint.pages.push(track);
        if (results.length === 0) checkpoint.advance();
        for (const item of results) yield { item, page: track };
      }
    })();
  }
  const asyncIterable = (items as AsyncIterable<Item>)[Symbol.asyncIterator];
  if (asyncIterable) {
    const iterator = asyncIterable.call(items);
    return {
      async next() {
        const step = await iterator.next();
        return step.done
          ? { done: true, value: undefined }
          : { done: false, value: { item: step.value, page: undefined } };
      },
      return: () => iterator.return?.(),
    };
  }
  const iterator = (items as Iterable<Item>)[Symbol.iterator]();
  return {
    sync: true,
    next() {
      const step = iterator.next();
      return step.done
        ? { done: true, value: undefined }
        : { done: false, value: { item: step.value, page: undefined } };
    },
    return: () => iterator.return?.(),
  };
}

/**
 * The next item of `source`, for any worker. An async source is asked once at a time (an async
 * generator queues, other iterators may not); a sync one answers without a promise.
 */
export function puller<Item>(
  source: Source<Item>,
): () => IteratorResult<Pulled<Item>> | Promise<IteratorResult<Pulled<Item>>> {
  let pulling: Promise<unknown> = Promise.resolve();
  return () => {
    if (source.sync) return source.next();
    const next = pulling.then(() => source.next());
    pulling = next.catch(() => undefined);
    return next;
  };
}
