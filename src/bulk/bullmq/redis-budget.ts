/**
 * The queue's rate budget: requests (not jobs) started per second across every worker of every
 * machine, kept in Redis. BullMQ's limiter counts jobs, and one job may send several requests
 * (a GET then a PATCH, the SDK's own retries), so each request asks this budget first.
 *
 * It is GCRA (the generic cell rate algorithm) with reservations: one Lua script reads Redis's
 * clock, hands the caller the next free slot (`interval` = 1000 / perSecond ms after the last
 * one) and returns how long to wait for it. Every process uses Redis's clock, so machines'
 * clocks do not matter; a caller waits with one timer, never polls. No burst is allowed: any
 * 1-second window holds at most `perSecond` + 1 request starts.
 *
 * A 429 (or 503) with `Retry-After` pauses the budget: `pause(ms)` sets a key that expires when
 * the server said; no slot is handed out before it, and a caller whose slot falls inside the
 * pause (it was reserved before the 429 arrived) asks again when its slot comes.
 */
import type { Redis } from "ioredis";
import { sleep } from "../../internal/sleep.js";

const SCRIPTS = {
  // KEYS: tat, pause · ARGV: interval ms (0: no budget, only the pause) → ms to wait
  sdkBudgetReserve: {
    numberOfKeys: 2,
    lua: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local earliest = now
local paused = redis.call('PTTL', KEYS[2])
if paused > 0 then earliest = now + paused end
local interval = tonumber(ARGV[1])
if interval <= 0 then return math.ceil(earliest - now) end
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local slot = math.max(tat, earliest)
redis.call('SET', KEYS[1], tostring(slot + interval), 'PX', math.ceil(slot + interval - now) + 1000)
return math.ceil(slot - now)`,
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
  /** Resolves when this process may start one request; rejects with `signal.reason` on abort. */
  acquire(signal?: AbortSignal): Promise<void>;
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
  const pauseKey = `${base}:pause`;
  const interval = perSecond === undefined ? 0 : 1000 / perSecond;
  return {
    async acquire(signal) {
      for (;;) {
        const waitMs = Number(await scripts.sdkBudgetReserve(tat, pauseKey, interval));
        if (waitMs <= 0) return;
        await sleep(waitMs, signal);
        // The slot was reserved before now: a 429 may have paused the budget meanwhile.
        const paused = await redis.pttl(pauseKey);
        if (paused <= 0) return;
      }
    },
    async pause(ms) {
      await scripts.sdkBudgetPause(pauseKey, Math.ceil(ms));
    },
  };
}
