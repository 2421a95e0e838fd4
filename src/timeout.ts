/**
 * The per-attempt time limit. Each attempt gets an `AbortSignal` that aborts when `timeoutMs`
 * runs out or when the caller's own signal aborts, whichever comes first. The signal goes with
 * the request, so aborting it stops the wait for the headers and the body read alike: the
 * client ends an attempt's deadline only once openapi-fetch has read the whole body, and a
 * server that sends headers and then stalls times out too. Nothing here is Node-specific.
 *
 * An `AbortController` is the dearest object of a request (on Node 20 every `AbortSignal` is
 * made transferable, which costs more than the rest of our client's work), so attempts that
 * start close together share one: a {@link deadlineClock} groups attempts that start within
 * a short window into a batch with one controller and one timer, which fires `timeoutMs` plus
 * that window after the batch opened. Every attempt in a batch has run at least `timeoutMs`
 * when it fires, so an attempt times out between `timeoutMs` and `timeoutMs` + 5 % (at most
 * 100 ms later). A batch is reused while nothing aborted it, for up to {@link MAX_BATCH_ATTEMPTS}
 * attempts, so the listeners a fetch adds to its signal stay few.
 *
 * An attempt with a signal of the caller's own, or whose body the caller reads after the call
 * returns (`parseAs: "stream"`), gets a controller and a timer of its own instead: the caller's
 * abort must stop that attempt alone, and a later timeout must never cut a stream the caller
 * still reads.
 */

/**
 * Default per-attempt limit. The API's operations are small CRUD calls that answer in well
 * under a second; 30 s leaves room for a slow list page under load while an unattended job
 * still notices a dead connection within a minute and a half (3 attempts).
 */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Largest delay `setTimeout` honours; beyond it the timer fires at once.
 * https://developer.mozilla.org/en-US/docs/Web/API/setTimeout#maximum_delay_value
 * A larger `timeoutMs` (or `Infinity`) means no timer at all.
 */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** How late a shared deadline may fire, as a share of `timeoutMs` and at most. */
const BATCH_WINDOW_SHARE = 0.05;
const MAX_BATCH_WINDOW_MS = 100;

/** Attempts one shared controller serves before a fresh one is made. */
export const MAX_BATCH_ATTEMPTS = 64;

/** One attempt's deadline. */
export interface Deadline {
  /** The signal to send the attempt with; none when there is neither a timer nor a caller's signal. */
  readonly signal: AbortSignal | undefined;
  /** Whether the time limit, not the caller, ended the attempt. */
  readonly timedOut: boolean;
  /** Ends the attempt's part in its deadline (idempotent). */
  stop(): void;
}

/** The reason a deadline aborts its signal with; the client turns it into a `TimeoutError`. */
function timeoutReason(): DOMException {
  return new DOMException("The attempt ran out of timeoutMs.", "TimeoutError");
}

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
 * An attempt's own controller and timer. A cleared `setTimeout` and a removed listener rather
 * than `AbortSignal.timeout()` and `AbortSignal.any()`: nothing outlives the attempt.
 * `AbortSignal.any()` has leaked combined signals when one source is long-lived, such as a
 * job-wide signal a caller reuses (https://github.com/nodejs/node/issues/55351,
 * https://github.com/denoland/deno/issues/24842), and an uncleared timeout timer lingers for
 * `timeoutMs` after every request.
 */
function ownDeadline(callerSignal: AbortSignal | undefined, timeoutMs: number): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const onCallerAbort = (): void => controller.abort(callerSignal?.reason);
  callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
  const timer =
    timeoutMs <= MAX_TIMER_DELAY_MS
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(timeoutReason());
        }, timeoutMs)
      : undefined;
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    stop() {
      clearTimeout(timer);
      callerSignal?.removeEventListener("abort", onCallerAbort);
    },
  };
}

/**
 * `promise`, unless `signal` aborts first (rejects with its reason) or `timeoutMs` runs out
 * (rejects with `onTimeout()`). For the wait on a token function, which has no request to abort.
 */
export function settleWithin<T>(promise: Promise<T>, signal: AbortSignal | undefined, timeoutMs: number, onTimeout: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const end = (settle: () => void): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      settle();
    };
    const onAbort = (): void => end(() => reject(signal?.reason));
    const timer = timeoutMs <= MAX_TIMER_DELAY_MS ? setTimeout(() => end(() => reject(onTimeout())), timeoutMs) : undefined;
    // Handlers go on `promise` first, so that its later rejection is never unhandled.
    promise.then((value) => end(() => resolve(value)), (error: unknown) => end(() => reject(error)));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The deadline clock of one client.
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
