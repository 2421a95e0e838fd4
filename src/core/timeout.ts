/**
 * The per-attempt time limit. Each attempt gets an `AbortSignal` that aborts when `timeoutMs`
 * runs out or when the caller's own signal aborts, whichever comes first. The signal goes with
 * the request, so aborting it stops the wait for the headers and the body read alike: the
 * client ends an attempt's deadline only once openapi-fetch has read the whole body, and a
 * server that sends headers and then stalls times out too. Nothing here is Node-specific.
 * Attempts that start close together share one deadline: see `client/deadline-clock.ts`.
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
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** One attempt's deadline. */
export interface Deadline {
  /** The signal to send the attempt with; none when there is neither a timer nor a caller's signal. */
  readonly signal: AbortSignal | undefined;
  /** Whether the time limit, not the caller, ended the attempt. */
  readonly timedOut: boolean;
  /** Ends the attempt's part in its deadline (idempotent). */
  stop(): void;
}

/** A deadline of its own, which its owner can also abort (a `paginate()` walk that is left). */
interface OwnDeadline extends Deadline {
  readonly signal: AbortSignal;
  /** Stops the deadline and aborts its signal. */
  abort(): void;
}

/** The listeners of the calls sharing one caller signal, and the one listener that runs them. */
const watched = new WeakMap<AbortSignal, Set<() => void> & { run?: () => void }>();

/**
 * Runs `listener` when `signal` aborts; returns the function that stops it. However many calls
 * share a caller's signal, the signal holds one listener of theirs, removed with the last:
 * Node 20 warns past 10 (`MaxListenersExceededWarning`), and a job may run hundreds at once.
 */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  let listeners = watched.get(signal);
  if (!listeners) {
    const all: Set<() => void> & { run?: () => void } = new Set();
    all.run = () => all.forEach((run) => run());
    watched.set(signal, (listeners = all));
    signal.addEventListener("abort", all.run, { once: true });
  }
  const all = listeners.add(listener);
  return () => {
    if (all.delete(listener) && all.size === 0) {
      signal.removeEventListener("abort", all.run!);
      watched.delete(signal);
    }
  };
}

/** The reason a deadline aborts its signal with; the client turns it into a `TimeoutError`. */
export function timeoutReason(): DOMException {
  return new DOMException("The attempt ran out of timeoutMs.", "TimeoutError");
}

/**
 * An attempt's own controller and timer. A cleared `setTimeout` and a removed listener rather
 * than `AbortSignal.timeout()` and `AbortSignal.any()`: nothing outlives the attempt.
 * `AbortSignal.any()` has leaked combined signals when one source is long-lived, such as a
 * job-wide signal a caller reuses (https://github.com/nodejs/node/issues/55351,
 * https://github.com/denoland/deno/issues/24842), and an uncleared timeout timer lingers for
 * `timeoutMs` after every request.
 */
export function ownDeadline(callerSignal: AbortSignal | undefined, timeoutMs: number): OwnDeadline {
  const controller = new AbortController();
  let timedOut = false;
  const followCaller = (): void => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) followCaller();
  const unwatch = callerSignal && onAbort(callerSignal, followCaller);
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
      unwatch?.();
    },
    abort() {
      this.stop();
      controller.abort();
    },
  };
}

/**
 * `promise`, unless `signal` aborts first (rejects with its reason) or `timeoutMs` runs out
 * (rejects with `onTimeout()`). For the wait on a token function, which has no request to abort.
 */
export function settleWithin<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  timeoutMs: number,
  onTimeout: () => unknown,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const end = (settle: () => void): void => {
      clearTimeout(timer);
      unwatch?.();
      settle();
    };
    const aborted = (): void => end(() => reject(signal?.reason));
    const timer =
      timeoutMs <= MAX_TIMER_DELAY_MS ? setTimeout(() => end(() => reject(onTimeout())), timeoutMs) : undefined;
    // Handlers go on `promise` first, so that its later rejection is never unhandled.
    promise.then(
      (value) => end(() => resolve(value)),
      (error: unknown) => end(() => reject(error)),
    );
    const unwatch = signal && !signal.aborted ? onAbort(signal, aborted) : undefined;
    if (signal?.aborted) aborted();
  });
}
