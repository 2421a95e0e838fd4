/**
 * The in-process rate budget. Its promise is about where requests arrive: no sliding one-second
 * window at the server holds more than `perSecond` requests, the first second included, as long
 * as the time from send to arrival varies by less than `WINDOW_MARGIN_MS`.
 *
 * Two steps, as in the queue's Redis budget (`bullmq/redis-budget.ts`):
 * - `reserve` spaces requests evenly (`(1000 + margin) / perSecond` ms apart) and waits out a
 *   pause; it comes before an attempt, outside its `timeoutMs`. Waiters are served in order.
 * - `send`, the last step before the request goes to `fetch`, keeps the log of send times: a
 *   request leaves only if fewer than `perSecond` left within the last `1000 + margin` ms;
 *   otherwise it says how long to wait. The log starts empty (no burst at the start, as a token
 *   bucket that starts full would send), and it is written when the request really leaves, so a
 *   busy event loop between the two steps cannot bunch requests.
 *
 * Its waits are `sleep`'s, which re-arms a wait longer than `setTimeout` can hold: a wait of
 * weeks (a tiny `perSecond`) is never clamped to 1 ms.
 */
import { mustBe, sleep } from "#shared";
import type { RateBudget, RateLimit } from "./types.js";

/**
 * Added to the one-second window of the send log: requests leave in order, but reach the server
 * with some jitter (the network, the server's event loop, a client machine under load), and one
 * that left 1,000 ms after another may arrive 970 ms after it. The budget holds at the server
 * while that jitter stays under this margin; it costs 5% of the rate (`perSecond · 1000 / 1050`
 * at most, sustained). 20 ms was too little: a loaded machine showed 40 ms at a loopback server.
 */
export const WINDOW_MARGIN_MS = 50;

/**
 * How far behind its even schedule `reserve` may fall before it forgets the lag. Timers fire
 * late (a millisecond or so; much more on a busy machine); reservations that are due catch up,
 * or 200/s spaced 5 ms apart would become 6 ms apart. The send log still holds the ceiling.
 */
const CATCH_UP_MS = 1_000;

/**
 * The longest pause a server's `Retry-After` imposes on a run (10 minutes). A server that asks
 * for more is saying "come back later": the run stops, with a message saying when, and a resume
 * goes on from where it stopped.
 */
export const DEFAULT_MAX_PAUSE_MS = 600_000;

const RESOLVED = Promise.resolve();

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

/** The budget's own steps, which `runBulk` places around each attempt. */
export interface LocalBudget extends RateBudget {
  /** Reserves a slot now if one is free without waiting; the runner's fast path before `reserve`. */
  now(): boolean;
  /** Waits for a slot (and for a pause to end); rejects with `signal.reason` if `signal` aborts first. */
  reserve(signal?: AbortSignal): Promise<void>;
  /** Logs a send now and returns 0, or returns how many ms to wait before asking again. */
  send(): number;
}

/** Checks a `rate` option: `{ perSecond }` with a positive finite number. */
export function checkRate(rate: RateLimit): void {
  const perSecond = (rate as { perSecond?: unknown }).perSecond;
  if (typeof perSecond !== "number" || !Number.isFinite(perSecond) || perSecond <= 0)
    mustBe("rate.perSecond", "a positive number of requests per second", perSecond);
}

/** One budget's state: its shape (from `perSecond`), its send log, its even schedule, its pause and its waiters. */
interface BudgetState {
  /** At most `capacity` sends within `windowMs`: `perSecond` per second, or one per 1/perSecond s. */
  capacity: number;
  windowMs: number;
  /** The even spacing matches the window, so that a slot reached on time finds room in the log. */
  spacingMs: number;
  /** The last `capacity` send times, as a ring starting at `oldest`. */
  sends: number[];
  oldest: number;
  /** When the last reservation was due on the even schedule (not when it happened). */
  lastSlot: number;
  /** A performance.now() time. */
  pausedUntil: number;
  waiters: Waiter[];
  /** The wait for the next slot: `sleep`, which re-arms a wait longer than a timer can hold. */
  timer: AbortController | undefined;
}

/**
 * A budget of `limit.perSecond` requests per second in this process; without `limit`, no
 * limit but the pauses.
 */
export function rateBudget(limit?: RateLimit): RateBudget {
  if (limit !== undefined) checkRate(limit);
  const state = budgetState(limit?.perSecond);
  const budget: LocalBudget = {
    now: () => reserveNow(state),
    reserve: (signal) => reserve(state, signal),
    send: () => send(state),
    async acquire(signal) {
      await reserve(state, signal);
      for (let waitMs = send(state); waitMs > 0; waitMs = send(state)) await sleep(waitMs, signal);
    },
    pauseUntil(untilMs) {
      const until = performance.now() + (untilMs - Date.now());
      if (until <= state.pausedUntil) return;
      state.pausedUntil = until;
      // A waiter's timer set before the pause fires early and re-arms itself in pump().
    },
  };
  return budget;
}

function budgetState(perSecond: number | undefined): BudgetState {
  const capacity = perSecond === undefined ? Infinity : Math.max(1, Math.floor(perSecond));
  const windowMs = perSecond === undefined ? 0 : (capacity * 1000) / perSecond + WINDOW_MARGIN_MS;
  const spacingMs = perSecond === undefined ? 0 : windowMs / capacity;
  return {
    capacity,
    windowMs,
    spacingMs,
    sends: [],
    oldest: 0,
    lastSlot: -Infinity,
    pausedUntil: -Infinity,
    waiters: [],
    timer: undefined,
  };
}

const nextSlot = (state: BudgetState): number => Math.max(state.pausedUntil, state.lastSlot + state.spacingMs);

function take(state: BudgetState, now: number, slot = now): void {
  if (state.spacingMs > 0) state.lastSlot = Math.max(slot, now - CATCH_UP_MS);
}

function wakeIn(state: BudgetState, ms: number): void {
  const wait = new AbortController();
  state.timer = wait;
  sleep(ms, wait.signal).then(
    () => pump(state),
    () => undefined,
  );
}

/** Serves the waiters whose slots are due, in order, and sets the timer for the next one. */
function pump(state: BudgetState): void {
  state.timer = undefined;
  const { waiters } = state;
  while (waiters.length > 0) {
    const now = performance.now();
    const at = nextSlot(state);
    if (at > now) {
      wakeIn(state, Math.ceil(at - now));
      return;
    }
    const waiter = waiters.shift()!;
    waiter.signal?.removeEventListener("abort", waiter.onAbort);
    // A waiter whose timer fired late keeps its slot.
    take(state, now, at);
    waiter.resolve();
  }
}

function reserveNow(state: BudgetState): boolean {
  const now = performance.now();
  if (state.waiters.length > 0 || nextSlot(state) > now) return false;
  take(state, now);
  return true;
}

function reserve(state: BudgetState, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (reserveNow(state)) return RESOLVED;
  const { waiters } = state;
  return new Promise<void>((resolve, reject) => {
    const waiter: Waiter = {
      resolve,
      reject,
      signal,
      onAbort: () => {
        const index = waiters.indexOf(waiter);
        if (index >= 0) waiters.splice(index, 1);
        // No one left to wake: a timer set for a long pause must not keep the process alive.
        if (waiters.length === 0 && state.timer !== undefined) {
          state.timer.abort();
          state.timer = undefined;
        }
        reject(signal!.reason);
      },
    };
    signal?.addEventListener("abort", waiter.onAbort, { once: true });
    waiters.push(waiter);
    if (state.timer === undefined) pump(state);
  });
}

function send(state: BudgetState): number {
  const now = performance.now();
  if (state.pausedUntil > now) return Math.ceil(state.pausedUntil - now);
  const { capacity, sends, spacingMs } = state;
  if (capacity === Infinity) return 0;
  // After a stall (the machine busy), reservations catch up; here they leave at most twice
  // as fast as the spacing, never all at once: a burst reaches the server spread out by its
  // own work, and spills into the next second.
  const last = sends.length === 0 ? -Infinity : sends[(state.oldest + sends.length - 1) % capacity]!;
  if (now < last + spacingMs / 2) return Math.ceil(last + spacingMs / 2 - now);
  if (sends.length < capacity) sends.push(now);
  else {
    const free = sends[state.oldest]! + state.windowMs;
    if (free > now) return Math.ceil(free - now);
    sends[state.oldest] = now;
    state.oldest = (state.oldest + 1) % capacity;
  }
  return 0;
}

/** Whether `budget` is this module's, with its own steps. */
export function isLocalBudget(budget: RateBudget): budget is LocalBudget {
  return (
    typeof (budget as { send?: unknown }).send === "function" &&
    typeof (budget as { reserve?: unknown }).reserve === "function"
  );
}

/** `0.5 s`, `90 s`, `50 min`, `35 days`: a wait as a reader takes it in (a tenth of a second under 10 s, so that 0.5 s and 1 s differ). */
export function durationText(ms: number): string {
  if (ms < 10_000) return `${Number((ms / 1000).toFixed(1))} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 172_800_000) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 86_400_000)} days`;
}
