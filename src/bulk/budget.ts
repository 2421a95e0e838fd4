/**
 * The in-process rate budget: at most `perSecond` requests started in any window of one second
 * (plus a small margin, so that arrival jitter at the server does not push a window over), spaced
 * evenly rather than in bursts, and a pause every `acquire` waits out. Waiters are served in the
 * order they came.
 */
import type { RateBudget, RateLimit } from "./types.js";

/**
 * Added to the one-second window: requests leave in order, but reach the server with a few
 * milliseconds of jitter, and one that left 1,000 ms after another may arrive 995 ms after it.
 */
const WINDOW_MARGIN_MS = 20;

/**
 * How far behind its even schedule the budget may fall before it forgets the lag. Timers fire
 * late (a millisecond or so; much more on a busy machine); starts that are due catch up, or
 * 200/s spaced 5 ms apart would become 6 ms apart. The one-second window still caps them.
 */
const CATCH_UP_MS = 1_000;

const RESOLVED = Promise.resolve();

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

/** Checks a `rate` option: `{ perSecond }` with a positive finite number. */
export function checkRate(rate: RateLimit): void {
  const perSecond = (rate as { perSecond?: unknown }).perSecond;
  if (typeof perSecond !== "number" || !Number.isFinite(perSecond) || perSecond <= 0) {
    throw new TypeError(`rate.perSecond must be a positive number of requests per second, got ${String(perSecond)}.`);
  }
}

/**
 * A budget of `limit.perSecond` requests per second in this process; without `limit`, no
 * limit but the pauses.
 */
export function rateBudget(limit?: RateLimit): RateBudget {
  if (limit !== undefined) checkRate(limit);
  const perSecond = limit?.perSecond;
  // At most `capacity` starts within `windowMs`: `perSecond` per second, or one per 1/perSecond s.
  const capacity = perSecond === undefined ? Infinity : Math.max(1, Math.floor(perSecond));
  const windowMs = perSecond === undefined ? 0 : (capacity * 1000) / perSecond + WINDOW_MARGIN_MS;
  const spacingMs = perSecond === undefined ? 0 : 1000 / perSecond;
  // The last `capacity` start times, as a ring.
  const starts: number[] = [];
  let oldest = 0;
  // When the last start was due on the even schedule (not when it happened).
  let lastSlot = -Infinity;
  let pausedUntil = -Infinity; // performance.now() time
  const waiters: Waiter[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;

  /** The earliest time the next request may start. */
  const nextSlot = (): number => {
    let at = Math.max(pausedUntil, lastSlot + spacingMs);
    if (starts.length === capacity) at = Math.max(at, starts[oldest]! + windowMs);
    return at;
  };

  /** A start now, in the slot due at `slot` (≤ now: a waiter whose timer fired late keeps its slot). */
  const record = (now: number, slot = now): void => {
    if (capacity === Infinity) return;
    lastSlot = Math.max(slot, now - CATCH_UP_MS);
    if (starts.length < capacity) starts.push(now);
    else {
      starts[oldest] = now;
      oldest = (oldest + 1) % capacity;
    }
  };

  const pump = (): void => {
    timer = undefined;
    while (waiters.length > 0) {
      const now = performance.now();
      const at = nextSlot();
      if (at > now) {
        timer = setTimeout(pump, Math.ceil(at - now));
        return;
      }
      const waiter = waiters.shift()!;
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      record(now, at);
      waiter.resolve();
    }
  };

  const budget: RateBudget & { now(): boolean } = {
    /** Takes a start now if one is free without waiting; the runner's fast path before `acquire`. */
    now() {
      const now = performance.now();
      if (waiters.length > 0 || nextSlot() > now) return false;
      record(now);
      return true;
    },
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      const now = performance.now();
      if (waiters.length === 0 && nextSlot() <= now) {
        record(now);
        return RESOLVED;
      }
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          resolve,
          reject,
          signal,
          onAbort: () => {
            const index = waiters.indexOf(waiter);
            if (index >= 0) waiters.splice(index, 1);
            // No one left to wake: a timer set for a long pause must not keep the process alive.
            if (waiters.length === 0 && timer !== undefined) {
              clearTimeout(timer);
              timer = undefined;
            }
            reject(signal!.reason);
          },
        };
        signal?.addEventListener("abort", waiter.onAbort, { once: true });
        waiters.push(waiter);
        if (timer === undefined) pump();
      });
    },
    pauseUntil(untilMs) {
      const until = performance.now() + (untilMs - Date.now());
      if (until <= pausedUntil) return;
      pausedUntil = until;
      // A waiter's timer set before the pause fires early and re-arms itself in pump().
    },
  };
  return budget;
}

/** Whether `budget` is this module's, with its synchronous fast path. */
export function isLocalBudget(budget: RateBudget): budget is RateBudget & { now(): boolean } {
  return typeof (budget as { now?: unknown }).now === "function";
}
