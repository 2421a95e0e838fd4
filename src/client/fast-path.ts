/**
 * FAST PATH: the client's speed mechanisms, kept here and nowhere else. Each one is kept
 * because `npm run bench` measured its benefit (docs/performance.md), and each relies on a
 * behaviour of openapi-fetch 0.17 that test/unit/fast-path.test.ts pins down, so that an
 * upgrade which changes it fails a test rather than the client:
 *
 * - {@link PlannedRequest}: openapi-fetch builds a call's request with the `Request` class it
 *   is given per call (`new Request(url, init)`), reads back only `url`, `method` and
 *   `headers` (and copies unknown init keys onto it), and hands that object to the per-call
 *   `fetch`. With no middleware to show a real `Request` to, the client gives it this class,
 *   and the attempt calls `fetch(url, init)`: Node's fetch would otherwise copy the `Request`
 *   openapi-fetch made, piping its body through a new stream.
 * - {@link trackMiddleware}: openapi-fetch keeps its middleware list private; `use` and
 *   `eject` are plain, replaceable properties of the client, so wrapping them is how the client
 *   knows whether real `Request`s are needed.
 * - {@link deadlineClock}: openapi-fetch passes a call's `signal` on in the request init, as
 *   is. An `AbortController` is the dearest object of a request (on Node 20 every
 *   `AbortSignal` is made transferable), so attempts that start within a short window share
 *   one controller and one timer.
 * - {@link itemsOf}: relies on nothing in openapi-fetch. An iterator object rather than an
 *   async generator: a generator's `yield` costs several promise turns per item, which on a
 *   100,000-item walk adds up to more than a few pages' worth of requests.
 */
import type { Middleware } from "openapi-fetch";
import { MAX_TIMER_DELAY_MS, ownDeadline, timeoutReason, type Deadline } from "../core/timeout.js";
import type { FetchLike } from "../core/call-types.js";

// ─── PlannedRequest ─────────────────────────────────────────────────────────────────

/** What openapi-fetch's `new Request(url, init)` makes when given this class: the URL and init as they are. */
export class PlannedRequest {
  constructor(
    readonly url: string,
    readonly init: RequestInit & { method: string; headers: Headers },
  ) {}

  get method(): string {
    return this.init.method;
  }

  get headers(): Headers {
    return this.init.headers;
  }
}

/** Sends what openapi-fetch built: `fetch(url, init)` for a planned request, `fetch(request)` for a real one. */
export function sendRequest(fetch: FetchLike, request: Request | PlannedRequest): Promise<Response> {
  return request instanceof PlannedRequest ? fetch(request.url, request.init) : fetch(request);
}

// ─── trackMiddleware ────────────────────────────────────────────────────────────────

/** Wraps the client's `use` and `eject`; returns whether any middleware is registered. */
export function trackMiddleware(client: { use(...m: Middleware[]): void; eject(...m: Middleware[]): void }): () => boolean {
  const middleware = new Set<Middleware>();
  const { use, eject } = client;
  client.use = (...added) => {
    use(...added);
    for (const m of added) if (m) middleware.add(m);
  };
  client.eject = (...removed) => {
    eject(...removed);
    for (const m of removed) middleware.delete(m);
  };
  return () => middleware.size > 0;
}

// ─── deadlineClock ──────────────────────────────────────────────────────────────────

/** How late a shared deadline may fire, as a share of `timeoutMs` and at most. */
const BATCH_WINDOW_SHARE = 0.05;
const MAX_BATCH_WINDOW_MS = 100;

/** Attempts one shared controller serves before a fresh one is made (so a fetch's listeners on it stay few). */
export const MAX_BATCH_ATTEMPTS = 64;

/** Attempts sharing one controller and one timer. */
interface Batch {
  readonly controller: AbortController;
  /** Attempts in flight. */
  pending: number;
  /** Attempts served so far. */
  joined: number;
  /** When the timer was last set (`performance.now()`); joining closes `windowMs` later. */
  armedAt: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  timedOut: boolean;
}

/** Hands out the deadlines of one client's attempts: `start(callerSignal, own, timeoutMs)` for an attempt starting now. */
export type DeadlineClock = (
  /** The caller's own signal: its abort ends this attempt, with its reason. */
  callerSignal: AbortSignal | undefined,
  /** Give the attempt a controller of its own (its body is read after the call). */
  own: boolean,
  /** A call's own limit, when it differs from the client's. */
  timeoutMs?: number,
) => Deadline;

/**
 * The deadline clock of one client. Attempts that start within a window (5 % of `timeoutMs`, at
 * most 100 ms) share a batch whose timer fires `timeoutMs` plus that window after it opened, so
 * every attempt in it has run at least `timeoutMs`. An attempt with the caller's own signal, a
 * body read after the call, or a `timeoutMs` of its own gets its own controller: the caller's
 * abort stops that attempt alone, and no later timeout cuts a stream the caller still reads.
 * @param timeoutMs the limit in milliseconds; `Infinity` (or more than a timer can hold) means none.
 */
export function deadlineClock(timeoutMs: number): DeadlineClock {
  const windowMs = Math.min(MAX_BATCH_WINDOW_MS, timeoutMs * BATCH_WINDOW_SHARE);
  let current: Batch | undefined;

  const fire = (batch: Batch): void => {
    batch.timer = undefined;
    batch.timedOut = true;
    if (current === batch) current = undefined;
    batch.controller.abort(timeoutReason());
  };

  return (callerSignal, own, callTimeoutMs = timeoutMs) => {
    if (callerSignal || own || callTimeoutMs !== timeoutMs) return ownDeadline(callerSignal, callTimeoutMs);
    if (timeoutMs + windowMs > MAX_TIMER_DELAY_MS) return NO_DEADLINE;
    const now = performance.now();
    let batch = current;
    if (batch === undefined || batch.joined >= MAX_BATCH_ATTEMPTS || (batch.pending > 0 && now - batch.armedAt > windowMs)) {
      batch = current = { controller: new AbortController(), pending: 0, joined: 0, armedAt: 0, timer: undefined, timedOut: false };
    }
    const joined = batch;
    if (joined.pending === 0) {
      joined.armedAt = now;
      joined.timer = setTimeout(() => fire(joined), timeoutMs + windowMs);
    }
    joined.pending++;
    joined.joined++;
    let stopped = false;
    return {
      signal: joined.controller.signal,
      get timedOut() {
        return joined.timedOut;
      },
      // The last attempt in flight clears the timer; the batch's controller serves the next.
      stop() {
        if (stopped) return;
        stopped = true;
        if (--joined.pending === 0) {
          clearTimeout(joined.timer);
          joined.timer = undefined;
        }
      },
    };
  };
}

/** A deadline with neither a timer nor a caller's signal: nothing to abort. */
const NO_DEADLINE: Deadline = { signal: undefined, timedOut: false, stop() {} };

// ─── itemsOf ────────────────────────────────────────────────────────────────────────

/**
 * The items of a walk's pages, in order; the next item of a page in hand is one resolved promise away.
 * `close` is called once the walk is over, however it ends; `return()` calls it at once, so it
 * can abort a page still in flight, and from then on every `next()`, pending or not, is done.
 */
export function itemsOf<Item>(walk: AsyncGenerator<{ results?: Item[] }, void, undefined>, close = (): void => {}): AsyncGenerator<Item, void, undefined> {
  let results: Item[] = [];
  let index = 0;
  let closed = false;
  // The page being fetched: a `next()` called meanwhile waits for it, so items keep their order.
  let fetching: Promise<IteratorResult<Item, void>> | undefined;
  const DONE: IteratorResult<Item, void> = { value: undefined, done: true };
  const done = (): IteratorResult<Item, void> => {
    closed = true;
    results = [];
    close();
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
