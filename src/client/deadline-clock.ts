/**
 * The deadlines of one client's attempts. openapi-fetch passes a call's `signal` on in the
 * request init, as is (pinned by test/unit/fast-path.test.ts). An `AbortController` is the
 * dearest object of a request (on Node 20 every `AbortSignal` is made transferable), so
 * attempts that start within a short window share one controller and one timer: `npm run
 * bench` measured the benefit (docs/performance.md).
 */
import { MAX_TIMER_DELAY_MS, ownDeadline, timeoutReason, type Deadline } from "../core/timeout.js";

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
    if (
      batch === undefined ||
      batch.joined >= MAX_BATCH_ATTEMPTS ||
      (batch.pending > 0 && now - batch.armedAt > windowMs)
    ) {
      batch = current = {
        controller: new AbortController(),
        pending: 0,
        joined: 0,
        armedAt: 0,
        timer: undefined,
        timedOut: false,
      };
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
