/**
 * The items of a paginated walk, one at a time. An iterator object rather than an async
 * generator: a generator's `yield` costs several promise turns per item, which on a
 * 100,000-item walk adds up to more than a few pages' worth of requests (docs/performance.md).
 */

/**
 * The items of a walk's pages, in order; the next item of a page in hand is one resolved promise away.
 * `close` is called once the walk is over, however it ends; `return()` calls it at once, so it
 * can abort a page still in flight, and from then on every `next()`, pending or not, is done.
 */
export function itemsOf<Item>(
  walk: AsyncGenerator<{ results?: Item[] }, void, undefined>,
  close?: () => void,
): AsyncGenerator<Item, void, undefined> {
  let results: Item[] = [];
  let index = 0;
  let closed = false;
  // The page being fetched: a `next()` called meanwhile waits for it, so items keep their order.
  let fetching: Promise<IteratorResult<Item, void>> | undefined;
  const DONE: IteratorResult<Item, void> = { value: undefined, done: true };
  const done = (): IteratorResult<Item, void> => {
    closed = true;
    results = [];
    close?.();
    return DONE;
  };
  const iterator: AsyncGenerator<Item, void, undefined> = {
    next(): Promise<IteratorResult<Item, void>> {
      if (closed) return Promise.resolve(DONE);
      if (fetching) return fetching.then(() => iterator.next());
      if (index < results.length) return Promise.resolve({ value: results[index++]!, done: false });
      fetching = walk.next().then(
        (step) => {
          fetching = undefined;
          if (step.done || closed) return done();
          results = step.value.results!;
          index = 0;
          return iterator.next();
        },
        (error: unknown) => {
          fetching = undefined;
          // After return(), the abort of the page in flight is the walk's end, not an error.
          if (closed) return done();
          done();
          throw error;
        },
      );
      return fetching;
    },
    return(value?: void | PromiseLike<void>) {
      done();
      return walk.return(value as void) as Promise<IteratorResult<Item, void>>;
    },
    throw(error?: unknown) {
      done();
      return walk.throw(error) as Promise<IteratorResult<Item, void>>;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
