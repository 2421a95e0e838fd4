/**
 * The queue's ledger, kept in Redis next to BullMQ's own keys: how each key ended (done,
 * failed, in doubt) and the marker "this key's task sent a POST or PATCH and has not ended".
 * BullMQ knows whether a job completed; it cannot know that a job killed mid-task had already
 * sent a request that creates something. Each step is one Lua script, so it is atomic with
 * the check of the job's lock (the lock BullMQ gives the worker that runs the job).
 *
 * Keys (`<base>` is `<prefix>:<queue name>:sdk`):
 * - `<base>:state`    hash key → "unsafe" | "done" | "failed" | "inDoubt"
 * - `<base>:failures` hash key → JSON `{ status?, name?, error }` of a failed key
 * - `<base>:inDoubt`  set of the keys in doubt
 * - `<base>:meta`     hash: `done` (count), `startedAt`, `lastEndAt` (ms)
 * - `<base>:calls`    hash key → digest of the item added under it: a key is bound to its item
 *   (a queue of 0.3.0 has none: its keys are bound by the next `add`)
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { canonicalJson } from "../fingerprint.js";

/** How a key ended, as the ledger records it. */
export type KeyEnd = "done" | "failed" | "inDoubt";

/** What `begin()` found: run the task, or the key already has an end (a recovered job). */
export type BeginVerdict = "run" | KeyEnd | "lostLock";

/** A failure as it is stored and reported: the status of the call result, if any, and the error's text. */
export interface StoredFailure {
  status?: number;
  /** The error's name (`UnprocessableEntityError`, `TypeError`, …). */
  name?: string;
  error: string;
}

const SCRIPTS = {
  // KEYS: state, inDoubt, meta, lock · ARGV: key, token, now
  sdkLedgerBegin: {
    numberOfKeys: 4,
    lua: `
if redis.call('GET', KEYS[4]) ~= ARGV[2] then return 'lostLock' end
local state = redis.call('HGET', KEYS[1], ARGV[1])
if state == 'unsafe' then
  redis.call('HSET', KEYS[1], ARGV[1], 'inDoubt')
  redis.call('SADD', KEYS[2], ARGV[1])
  redis.call('HSET', KEYS[3], 'lastEndAt', ARGV[3])
  return 'inDoubt'
end
if state then return state end
return 'run'`,
  },
  // KEYS: state, lock · ARGV: key, token → 1 marked, 0 lock lost, -1 the key has already ended
  sdkLedgerUnsafe: {
    numberOfKeys: 2,
    lua: `
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
local state = redis.call('HGET', KEYS[1], ARGV[1])
if state and state ~= 'unsafe' then return -1 end
redis.call('HSET', KEYS[1], ARGV[1], 'unsafe')
return 1`,
  },
  // KEYS: state, failures, inDoubt, meta, lock · ARGV: key, end ("done" | "failed" | "inDoubt"), failure JSON, now, token
  // A worker that lost the job's lock still records how its task ended, unless another worker
  // holds the job now (that one records its own end). An end recorded earlier is kept: a key
  // another worker marked in doubt while this one's request was out stays in doubt.
  sdkLedgerEnd: {
    numberOfKeys: 5,
    lua: `
local lock = redis.call('GET', KEYS[5])
if lock and lock ~= ARGV[5] then return 'lostLock' end
local state = redis.call('HGET', KEYS[1], ARGV[1])
if state and state ~= 'unsafe' then return state end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[2] == 'done' then redis.call('HINCRBY', KEYS[4], 'done', 1)
elseif ARGV[2] == 'inDoubt' then redis.call('SADD', KEYS[3], ARGV[1])
else redis.call('HSET', KEYS[2], ARGV[1], ARGV[3]) end
redis.call('HSET', KEYS[4], 'lastEndAt', ARGV[4])
return ARGV[2]`,
  },
  // KEYS: calls · ARGV: key, digest, key, digest, … → 0 when every key is bound to its digest
  // (bound now, or before to the same), else the 1-based index of the first pair bound to
  // another: the pairs before it are bound, it and the rest are not.
  sdkLedgerBind: {
    numberOfKeys: 1,
    lua: `
for i = 1, #ARGV, 2 do
  local bound = redis.call('HGET', KEYS[1], ARGV[i])
  if bound and bound ~= ARGV[i + 1] then return (i + 1) / 2 end
  if not bound then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 0`,
  },
  // KEYS: state, failures → how many failed keys were forgotten (so that their jobs run again)
  sdkLedgerForgetFailed: {
    numberOfKeys: 2,
    lua: `
local keys = redis.call('HKEYS', KEYS[2])
for _, key in ipairs(keys) do redis.call('HDEL', KEYS[1], key) end
redis.call('DEL', KEYS[2])
return #keys`,
  },
} as const;

type ScriptName = keyof typeof SCRIPTS;
type WithScripts = Redis & Record<ScriptName, (...args: Array<string | number>) => Promise<unknown>>;

/** Registers the ledger's scripts on a client (EVALSHA, loaded on first use). */
function defineLedgerScripts(redis: Redis): void {
  for (const [name, script] of Object.entries(SCRIPTS)) {
    if (!(name in redis)) redis.defineCommand(name, { numberOfKeys: script.numberOfKeys, lua: script.lua });
  }
}

/** What a key is bound to: a digest of its item's canonical JSON. */
export const itemDigest = (item: unknown): string =>
  createHash("sha256")
    .update(canonicalJson(item) ?? "undefined")
    .digest("base64url");

export interface RedisLedger {
  /**
   * Binds each key to its item's digest (`[key, digest]` pairs, in order); returns the index of
   * the first pair whose key is bound to another item (those before it are bound), or -1.
   */
  bind(pairs: ReadonlyArray<readonly [string, string]>): Promise<number>;
  /** Called as a worker takes a job: run it, or the end the key already has. */
  begin(key: string, lockKey: string, token: string): Promise<BeginVerdict>;
  /** Before a POST or PATCH goes to fetch. False: this worker no longer owns the job (send nothing). */
  markUnsafe(key: string, lockKey: string, token: string): Promise<boolean>;
  /**
   * Records how the task ended; returns the end the ledger holds (an earlier end stays), or
   * "lostLock" when another worker holds the job now.
   */
  end(
    key: string,
    lockKey: string,
    token: string,
    outcome: KeyEnd,
    failure?: StoredFailure,
  ): Promise<KeyEnd | "lostLock">;
  /** Forgets the failed keys' ends, so that their jobs run again; returns how many. */
  forgetFailed(): Promise<number>;
  counts(): Promise<{ done: number; failed: number; inDoubt: number; startedAt?: number; lastEndAt?: number }>;
  markStarted(): Promise<void>;
  failures(): Promise<Array<{ key: string } & StoredFailure>>;
  inDoubtKeys(): Promise<string[]>;
}

export function redisLedger(redis: Redis, base: string): RedisLedger {
  defineLedgerScripts(redis);
  const scripts = redis as WithScripts;
  const state = `${base}:state`;
  const failures = `${base}:failures`;
  const inDoubt = `${base}:inDoubt`;
  const meta = `${base}:meta`;
  const calls = `${base}:calls`;
  return {
    async bind(pairs) {
      if (pairs.length === 0) return -1;
      const conflict = Number(await scripts.sdkLedgerBind(calls, ...pairs.flat()));
      return conflict - 1;
    },
    async begin(key, lockKey, token) {
      return (await scripts.sdkLedgerBegin(state, inDoubt, meta, lockKey, key, token, Date.now())) as BeginVerdict;
    },
    async markUnsafe(key, lockKey, token) {
      const marked = Number(await scripts.sdkLedgerUnsafe(state, lockKey, key, token));
      return marked === 1;
    },
    async end(key, lockKey, token, outcome, failure) {
      return (await scripts.sdkLedgerEnd(
        state,
        failures,
        inDoubt,
        meta,
        lockKey,
        key,
        outcome,
        JSON.stringify(failure ?? null),
        Date.now(),
        token,
      )) as KeyEnd | "lostLock";
    },
    async forgetFailed() {
      return Number(await scripts.sdkLedgerForgetFailed(state, failures));
    },
    async counts() {
      const [[, metaValues], [, failed], [, doubtful]] = (await redis
        .multi()
        .hgetall(meta)
        .hlen(failures)
        .scard(inDoubt)
        .exec()) as [[unknown, Record<string, string>], [unknown, number], [unknown, number]];
      const number = (value: string | undefined): number | undefined =>
        value === undefined ? undefined : Number(value);
      return {
        done: Number(metaValues.done ?? 0),
        failed,
        inDoubt: doubtful,
        startedAt: number(metaValues.startedAt),
        lastEndAt: number(metaValues.lastEndAt),
      };
    },
    async markStarted() {
      await redis.hsetnx(meta, "startedAt", Date.now());
    },
    async failures() {
      const all = await redis.hgetall(failures);
      return Object.entries(all).map(([key, json]) => ({ key, ...(JSON.parse(json) as StoredFailure) }));
    },
    async inDoubtKeys() {
      return (await redis.smembers(inDoubt)).sort();
    },
  };
}
