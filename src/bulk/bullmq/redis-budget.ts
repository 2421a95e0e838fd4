/**
 * The queue's rate budget: requests (not jobs) started per second across every worker of every
 * machine, kept in Redis. BullMQ's limiter counts jobs, and one job may send several requests
 * (a GET then a PATCH, the SDK's own retries), so each request asks this budget first.
 *
 * Two Lua scripts, both on Redis's clock (machines' clocks do not matter):
 * - `reserve` spaces requests evenly (GCRA with reservations): it hands the caller the next free
 *   slot, about `1000 / perSecond` ms after the last one (slots up to `CATCH_UP_MS` in the past are
 *   still free), and says how long to wait for it. A caller waits with one timer; nothing polls.
 * - `commit`, the last step before the request is handed to `fetch`, starts it only if fewer than
 *   `perSecond` started within the last second (plus a margin): a worker whose timer fired late
 *   (a busy event loop, a shared machine) must not bunch with the requests that follow it.
 *   Otherwise it says how long until the oldest of them leaves the window. Being the last step,
 *   it leaves the least time between a start counted and a request sent.
 *
 * A 429 (or 503) with `Retry-After` pauses the budget: `pause(ms)` sets a key that expires when
 * the server said: `reserve` hands out no slot inside it, and `commit` starts nothing while it
 * exists (a slot reserved before the 429 is waited out, not used).
 */
import type { Redis } from "ioredis";
import { sleep } from "#shared";
// The same margin as the in-process budget: added to the one-second window `commit` counts in.
import { WINDOW_MARGIN_MS } from "../budget.js";

/**
 * How far the even spacing may fall behind Redis's clock and then catch up: a slot no one used
 * in time (a worker's timer fired late) is handed out again, instead of the budget losing it.
 * The sliding second of `commit` still holds the ceiling.
 */
const CATCH_UP_MS = 100;

/**
 * The longest round trip of `commit` whose start is sent as logged. Redis logs a start when it
 * runs the script; the request leaves when the answer reaches the worker. Longer, and the log
 * could be that much ahead of the sends: the start is logged again. Well under the margin.
 */
const MAX_COMMIT_ROUND_TRIP_MS = WINDOW_MARGIN_MS / 4;

const SCRIPTS = {
  // KEYS: tat, pause · ARGV: interval ms, catch-up ms → ms to wait for the reserved slot
  sdkBudgetReserve: {
    numberOfKeys: 2,
    lua: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local interval = tonumber(ARGV[1])
local earliest = now - tonumber(ARGV[2])
local paused = redis.call('PTTL', KEYS[2])
if paused > 0 then earliest = now + paused end
local slot = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), earliest)
redis.call('SET', KEYS[1], tostring(slot + interval), 'PX', math.ceil(slot + interval - now) + 1000)
return math.ceil(slot - now)`,
  },
  // KEYS: starts (sorted set), pause · ARGV: capacity (0: none), window ms, member (a start of its own
  // logged earlier is taken back first) → 0 (go) or ms to wait
  sdkBudgetCommit: {
    numberOfKeys: 2,
    lua: `
local paused = redis.call('PTTL', KEYS[2])
if paused > 0 then return paused end
local capacity = tonumber(ARGV[1])
if capacity == 0 then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local window = tonumber(ARGV[2])
redis.call('ZREM', KEYS[1], ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < capacity then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window) * 2)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, math.ceil(tonumber(oldest[2]) + window - now))`,
  },
  // KEYS: pause · ARGV: ms → sets or lengthens the pause
  sdkBudgetPause: {
    numberOfKeys: 1,
    lua: `
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], '1', 'PX', ARGV[1]) end
return 1`,
  },
} as const;

type WithScripts = Redis & Record<keyof typeof SCRIPTS, (...args: Array<string | number>) => Promise<unknown>>;

export interface RedisBudget {
  /**
   * Waits for this request's slot (and for a pause to end), before the attempt; rejects with
   * `signal.reason` on abort. No Redis call without a budget.
   */
  reserve(signal?: AbortSignal): Promise<void>;
  /**
   * Lets the request start, as the last step before `fetch`: resolves once fewer than
   * `perSecond` started within the window and no pause holds; rejects with `signal.reason`.
   */
  commit(signal?: AbortSignal): Promise<void>;
  /** No request of any worker starts for `ms` (a server's `Retry-After`). */
  pause(ms: number): Promise<void>;
}

/** @param perSecond requests per second across all workers; undefined: no budget, only the 429 pause. */
export function redisBudget(redis: Redis, base: string, perSecond: number | undefined): RedisBudget {
  for (const [name, script] of Object.entries(SCRIPTS)) {
    if (!(name in redis)) redis.defineCommand(name, { numberOfKeys: script.numberOfKeys, lua: script.lua });
  }
  const scripts = redis as WithScripts;
  const tat = `${base}:tat`;
  const starts = `${base}:starts`;
  const pauseKey = `${base}:pause`;
  // At most `capacity` starts within `windowMs`: perSecond per second, or one per 1/perSecond s.
  const capacity = perSecond === undefined ? 0 : Math.max(1, Math.floor(perSecond));
  const windowMs = perSecond === undefined ? 0 : (capacity * 1000) / perSecond + WINDOW_MARGIN_MS;
  // The even spacing matches the window (`capacity` per `windowMs`), so that a slot reached on
  // time finds room in it and `commit` rarely has to wait.
  const interval = perSecond === undefined ? 0 : windowMs / capacity;
  return {
    async reserve(signal) {
      if (signal?.aborted) throw signal.reason;
      if (interval > 0)
        await sleep(Number(await scripts.sdkBudgetReserve(tat, pauseKey, interval, CATCH_UP_MS)), signal);
    },
    async commit(signal) {
      const member = crypto.randomUUID();
      for (;;) {
        if (signal?.aborted) throw signal.reason;
        const asked = performance.now();
        const waitMs = Number(await scripts.sdkBudgetCommit(starts, pauseKey, capacity, windowMs, member));
        if (waitMs > 0) await sleep(waitMs, signal);
        // Logged on Redis's clock, sent when the answer arrives: an answer that took long (a busy
        // worker, a busy Redis) may arrive with others, so the start is logged again, now.
        else if (performance.now() - asked <= MAX_COMMIT_ROUND_TRIP_MS || capacity === 0) return;
      }
    },
    async pause(ms) {
      await scripts.sdkBudgetPause(pauseKey, Math.ceil(ms));
    },
  };
}
