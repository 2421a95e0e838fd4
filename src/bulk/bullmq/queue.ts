/**
 * `createBulkQueue()`: `runBulk`'s work spread over many processes and machines, on BullMQ over
 * Redis. BullMQ does the queueing: job ids deduplicate keys, its limiter and `rateLimit()` hold
 * every worker back after a 429, stalled jobs of a dead worker go back to the queue. What the
 * SDK adds is what BullMQ cannot know: the rate budget counts requests, not jobs
 * (`redis-budget.ts`), and a key whose task sent a POST or PATCH is never re-run after a crash
 * (`redis-ledger.ts`). Jobs carry the item and its key, never the client or its token, and
 * with `telemetry` the trace context of the `add()` that queued them (`job-trace.ts`).
 */
import { Queue, Worker, type ConnectionOptions, type Job } from "bullmq";
import type { Redis, RedisOptions } from "ioredis";
import { deriveClient, loadTelemetry } from "../../client.js";
import { DEFAULT_MAX_PAUSE_MS, durationText } from "../budget.js";
import { sleep } from "../../internal/sleep.js";
import type { StoreAdminClient, TelemetryOptions } from "../../types.js";
import type { BulkFailure, BulkProgress, BulkReport, BulkTask } from "../types.js";
import { BulkQueueConnectionError, BulkQueueStateLostError, callerClient, connected, errorReporter, isConnectionError, redisAddress, workerClient } from "./connection.js";
import type { JsonItem } from "./json-item.js";
import { runJob } from "./job.js";
import { jobTraceOf, type JobTrace } from "./job-trace.js";
import { redisBudget } from "./redis-budget.js";
import { itemDigest, redisLedger } from "./redis-ledger.js";

export interface BulkQueueOptions {
  /** The queue's name: every producer and worker of one bulk job uses the same. */
  name: string;
  /** ioredis options (`host`, `port`, `password`, `tls`, `db`, …), passed through to BullMQ and ioredis. */
  connection: RedisOptions;
  /**
   * Requests started per second across every worker, at most (default: no budget). `budget`
   * names the budget, so that several queues working on one store share it (default: the
   * queue's name).
   */
  rate?: { perSecond: number; budget?: string };
  /** BullMQ's key prefix (default "bull"). */
  prefix?: string;
  /**
   * Hears what goes wrong outside a call: Redis lost (once per outage, a
   * `BulkQueueConnectionError` naming the address), a worker's own error. Default: `console.warn`.
   */
  onError?: (error: Error) => void;
  /** How long `add()`, `status()` and the other calls wait for Redis before failing (default 5000 ms). */
  connectTimeoutMs?: number;
  /**
   * The longest pause a 429 or 503's `Retry-After` imposes on every worker (default 600000: 10
   * minutes). A longer one pauses them this long and is reported to `onError`; the job that got
   * it failed (the client does not wait that long), and `retryFailed()` runs it again.
   */
  maxPauseMs?: number;
  /**
   * OpenTelemetry for the producer's side (docs/guide.md, "OpenTelemetry"): each `add()` makes
   * a span `bulk.add` and puts its trace context in the jobs' data, so that the calls a worker
   * makes for them are its children, in the worker's process. `true` for the global tracer
   * provider. A worker's spans are its client's: it joins the trace when its client was
   * created with `telemetry`. Needs `@opentelemetry/api` 1.x, an optional peer dependency.
   */
  telemetry?: TelemetryOptions | boolean | undefined;
}

export interface AddOptions<Item> {
  /** The stable key of an item: the queue does each key once, whoever adds it and however often. */
  key: (item: Item) => string;
}

export interface WorkOptions {
  /** A client from `createStoreAdminClient`; its token stays in this process. */
  client: StoreAdminClient;
  /** Tasks in flight in this worker at most (default 4). */
  concurrency?: number;
  /**
   * How long a job stays with a worker that stopped answering (killed, frozen) before another
   * worker takes it over (default 30000 ms; BullMQ's `lockDuration`).
   */
  lockDurationMs?: number;
}

/** One process's worker: it takes jobs until closed. */
export interface BulkWorker {
  /** Resolves once the worker is connected and taking jobs. */
  ready(): Promise<void>;
  /** Stops taking jobs, lets the running ones end and be recorded, then disconnects. */
  close(): Promise<void>;
}

/** The queue's counters. */
export interface BulkQueueStatus {
  /** Jobs not started yet (waiting, or held by a pause). */
  waiting: number;
  /** Jobs a worker is running. */
  active: number;
  done: number;
  failed: number;
  inDoubt: number;
}

export interface BulkQueue<Item> {
  readonly name: string;
  /** Enqueues the items (any iterable or async iterable), one job per key; a key already in the queue is not added again. Resolves with the number of items read. */
  add(items: Iterable<Item> | AsyncIterable<Item>, options: AddOptions<Item>): Promise<number>;
  /** Starts a worker in this process running `task` (the same task as `runBulk`'s). */
  work(task: BulkTask<Item>, options: WorkOptions): BulkWorker;
  /** The counters now; throws as `progress()` does when Redis is away or lost the queue's state. */
  status(): Promise<BulkQueueStatus>;
  /**
   * The counters every `intervalMs` (default 500; the shape of `runBulk`'s `onProgress`), until
   * nothing is waiting or running, `signal` aborts or the queue is closed. Throws a
   * `BulkQueueConnectionError` when Redis does not answer within `connectTimeoutMs` (call it
   * again once Redis is back), and a `BulkQueueStateLostError` when Redis came back without
   * the queue's state.
   */
  progress(options?: { intervalMs?: number; signal?: AbortSignal }): AsyncIterableIterator<BulkProgress>;
  /** What the queue did so far, in `runBulk`'s report shape (`runId` is the queue's name). */
  report(): Promise<BulkReport>;
  /** Puts the failed keys back in the queue (not those in doubt); resolves with how many. */
  retryFailed(): Promise<number>;
  /** Closes this process's workers, its open `progress()` iterators and its connections; later calls are refused. */
  close(): Promise<void>;
}

/** What a job carries: the item and its key, and the trace context of its `add()`. Never a client, never a token. */
interface JobData<Item> {
  key: string;
  item: Item;
  /** With the producer's `telemetry` option (`job-trace.ts`). */
  trace?: JobTrace;
}

/** BullMQ refuses ids that look like integers or hold ":"; keys are both, often. */
const jobIdOf = (key: string): string => `key-${encodeURIComponent(key)}`;

/** Jobs per `addBulk` call. */
const ADD_BATCH = 500;

/**
 * Stalled jobs go back to the queue every time: whether one may run again is the ledger's
 * decision (a key that sent a POST or PATCH is in doubt), not a count of stalls.
 */
const MAX_STALLED = 1_000_000;

/**
 * A queue of items of type `Item`, which must be what JSON carries unchanged: jobs travel
 * through Redis as JSON (see {@link JsonItem}). Without a type, an item is any value but
 * `undefined`, which JSON cannot write.
 */
export function createBulkQueue<Item extends { [K in keyof Item]: JsonItem<Item[K]> } = {} | null>(options: BulkQueueOptions): BulkQueue<Item> {
  checkOptions(options);
  const { name, connection, rate } = options;
  const prefix = options.prefix ?? "bull";
  const address = redisAddress(connection);
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const maxPauseMs = options.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS;
  const onError = options.onError ?? ((error: Error) => console.warn(`[store-admin-sdk/bulk/bullmq] ${error.message}`));
  const reporter = errorReporter(address, onError);
  const ledgerBase = `${prefix}:${name}:sdk`;
  const budgetBase = `${prefix}:sdk-budget:${rate?.budget ?? name}`;
  // ioredis's options type and BullMQ's loose copy of it differ in detail; the values are the same.
  const bullConnection = connection as ConnectionOptions;
  // Loaded only with the option, as a client loads it; a failure to load it fails each add().
  const telemetry = options.telemetry ? loadTelemetry(options.telemetry) : undefined;

  // The caller's side: fails fast while Redis is away.
  let callerRedis: Redis | undefined;
  let queue: Queue | undefined;
  /** The caller's error for a Redis that went away mid-call: one that names the address. */
  const named = (error: unknown): never => {
    throw isConnectionError(error) && !(error instanceof BulkQueueConnectionError) ? new BulkQueueConnectionError(address, error) : error;
  };
  let shut = false;
  const caller = async (): Promise<{ redis: Redis; queue: Queue }> => {
    if (shut) throw new Error(`The bulk queue "${name}" is closed: create another with createBulkQueue() to use it again.`);
    callerRedis ??= callerClient(connection, reporter, connectTimeoutMs);
    await connected(callerRedis, address, connectTimeoutMs);
    if (!queue) {
      queue = new Queue(name, { connection: callerRedis, prefix, skipVersionCheck: true });
      queue.on("error", (error: unknown) => reporter.report(error));
    }
    return { redis: callerRedis, queue };
  };
  const workers = new Set<BulkWorker>();
  const closers = new Set<() => Promise<void>>();

  /**
   * When the queue's work was first added (the ledger's `startedAt`), as this handle last saw
   * it: a Redis that comes back without it has lost the queue's state.
   */
  let startedAt: number | undefined;
  const checkState = (now: number | undefined): void => {
    if (startedAt !== undefined && now !== startedAt) throw new BulkQueueStateLostError(address, name);
    startedAt = now;
  };

  async function status(): Promise<BulkQueueStatus> {
    const { redis, queue } = await caller();
    const [jobs, ends] = await Promise.all([
      queue.getJobCounts("waiting", "delayed", "prioritized", "active"),
      redisLedger(redis, ledgerBase).counts(),
    ]).catch(named);
    checkState(ends.startedAt);
    return {
      waiting: (jobs.waiting ?? 0) + (jobs.delayed ?? 0) + (jobs.prioritized ?? 0),
      active: jobs.active ?? 0,
      done: ends.done,
      failed: ends.failed,
      inDoubt: ends.inDoubt,
    };
  }

  /** Queues `items`, one job per key, each job's data with `trace` when there is one; resolves with the number read. */
  async function addItems(items: Iterable<Item> | AsyncIterable<Item>, key: (item: Item) => string, trace: JobTrace | undefined): Promise<number> {
    const { redis, queue } = await caller();
    const ledger = redisLedger(redis, ledgerBase);
    await ledger.markStarted().catch(named);
    // What was added from here on is the state this handle follows (again, after a loss).
    startedAt = (await ledger.counts().catch(named)).startedAt;
    let batch: Array<{ name: string; data: JobData<Item>; opts: { jobId: string } }> = [];
    let count = 0;
    /** Queues the batch, each key bound to its item first: a key bound to another item is refused. */
    const queueBatch = async (): Promise<void> => {
      const jobs = batch;
      batch = [];
      const conflict = await ledger.bind(jobs.map((job) => [job.data.key, itemDigest(job.data.item)] as const)).catch(named);
      const bound = conflict < 0 ? jobs : jobs.slice(0, conflict);
      if (bound.length > 0) await queue.addBulk(bound).catch(named);
      if (conflict >= 0) {
        throw new Error(
          `add(): the queue "${name}" holds the key ${JSON.stringify(jobs[conflict]!.data.key)} with another item than item ${count - jobs.length + conflict} of this add. ` +
            "The same key with a different item is a different run: use another queue name, or restore the item as it was. Items before it were queued.",
        );
      }
    };
    try {
      for await (const item of items as AsyncIterable<Item>) {
        const itemKey = key(item);
        if (typeof itemKey !== "string" || itemKey === "") {
          throw new TypeError(`add(): key() returned ${JSON.stringify(itemKey)} for item ${count}; it must return a non-empty string. Items before it were queued.`);
        }
        batch.push({ name: "task", data: trace ? { key: itemKey, item, trace } : { key: itemKey, item }, opts: { jobId: jobIdOf(itemKey) } });
        count += 1;
        if (batch.length === ADD_BATCH) await queueBatch();
      }
    } finally {
      // What was read before a bad item (or a failing iterable) is queued, as the error says.
      if (batch.length > 0) await queueBatch();
    }
    return count;
  }

  return {
    name,

    async add(items, { key }) {
      if (typeof key !== "function") throw new TypeError("add(items, { key }): key must be a function returning an item's key as a string.");
      if (!telemetry) return addItems(items, key, undefined);
      // The add's span: its trace context goes into each job's data, the parent of the job's calls.
      const tracing = (await telemetry).bulkAdd(name);
      return tracing.end(addItems(items, key, jobTraceOf(tracing.carrier)));
    },

    work(task, workOptions) {
      if (shut) throw new Error(`The bulk queue "${name}" is closed: create another with createBulkQueue() to work on it.`);
      if (typeof task !== "function") throw new TypeError("work(task, options): task must be a function (item, { client, signal, key }) => …");
      const { client } = workOptions ?? ({} as WorkOptions);
      // Fails here, with a clear message, for anything but a client of createStoreAdminClient().
      deriveClient(client, { fetch: (fetch) => fetch });
      const concurrency = workOptions.concurrency ?? 4;
      if (!Number.isInteger(concurrency) || concurrency < 1) throw new TypeError(`work(): concurrency must be a whole number ≥ 1, got ${String(concurrency)}.`);
      const lockDurationMs = workOptions.lockDurationMs ?? 30_000;
      if (!Number.isFinite(lockDurationMs) || lockDurationMs < 1000) throw new TypeError(`work(): lockDurationMs must be at least 1000 ms, got ${String(lockDurationMs)}.`);

      const tokens: string[] = [];
      const redis = workerClient(connection, reporter);
      const ledger = redisLedger(redis, ledgerBase);
      const budget = redisBudget(redis, budgetBase, rate?.perSecond);
      // BullMQ's own pause for 429s: the limiter key, honoured by every worker before it takes a job.
      const pauser = new Queue(name, { connection: bullConnection, prefix, skipVersionCheck: true });
      pauser.on("error", (error: unknown) => reporter.report(error));
      const worker: Worker<JobData<Item>> = new Worker<JobData<Item>>(
        name,
        (job: Job<JobData<Item>>, token?: string, signal?: AbortSignal) =>
          runJob({ job, token: token ?? "", signal, task, client, ledger, budget, lockKey: `${worker.toKey(job.id ?? "")}:lock`, pause, tokens }),
        {
          connection: bullConnection,
          prefix,
          concurrency,
          lockDuration: lockDurationMs,
          stalledInterval: Math.max(500, Math.round(lockDurationMs / 2)),
          maxStalledCount: MAX_STALLED,
          // BullMQ applies `rateLimit()` (the 429 pause) only to workers with a limiter. The budget
          // counts requests; this counts jobs, so it is set above the budget (twice it), where it
          // only keeps workers from taking jobs far faster than their requests may start, and
          // its fixed one-second windows never hold the budget back.
          limiter: { max: rate ? Math.max(2, Math.ceil(rate.perSecond * 2)) : 1_000_000_000, duration: 1000 },
          skipVersionCheck: true,
        },
      );
      worker.on("error", (error: unknown) => reporter.report(error));
      // Back after an outage: is the queue's state still there? (A Redis without persistence
      // comes back empty, and the jobs left waiting are gone with it.)
      let seenStart: string | null = null;
      const lookAtState = async (): Promise<void> => {
        const now = await redis.hget(`${ledgerBase}:meta`, "startedAt");
        if (seenStart !== null && now !== seenStart) reporter.report(new BulkQueueStateLostError(address, name));
        seenStart = now;
      };
      redis.on("ready", () => void lookAtState().catch((error: unknown) => reporter.report(error)));
      worker.on("completed", () => {
        if (seenStart === null) void lookAtState().catch((error: unknown) => reporter.report(error));
      });
      async function pause(ms: number): Promise<void> {
        if (ms > maxPauseMs) {
          reporter.report(new Error(`The store asked for a pause of ${durationText(ms)} (Retry-After), longer than maxPauseMs (${durationText(maxPauseMs)}): every worker pauses for ${durationText(maxPauseMs)}, then goes on. Nothing is lost: the job that got the answer failed, and retryFailed() runs it again.`));
          ms = maxPauseMs;
        }
        await Promise.all([budget.pause(ms), pauser.rateLimit(ms)]);
      }
      let closing: Promise<void> | undefined;
      const handle: BulkWorker = {
        ready: () => worker.waitUntilReady().then(() => undefined),
        close() {
          closing ??= (async () => {
            await worker.close();
            await pauser.close();
            redis.disconnect();
            workers.delete(handle);
          })();
          return closing;
        },
      };
      workers.add(handle);
      return handle;
    },

    status,

    async *progress({ intervalMs = 500, signal } = {}) {
      if (!(typeof intervalMs === "number" && intervalMs >= 0)) throw new TypeError(`progress(): intervalMs must be a number of milliseconds ≥ 0, got ${String(intervalMs)}.`);
      // close() ends a progress() left open, and so does `signal`: the wait between snapshots ends at once.
      const stop = new AbortController();
      const closer = async (): Promise<void> => stop.abort();
      closers.add(closer);
      const onAbort = (): void => stop.abort();
      signal?.addEventListener("abort", onAbort);
      const history: Array<{ at: number; ended: number }> = [];
      try {
        for (;;) {
          // A Redis away or not answering fails this within connectTimeoutMs (BulkQueueConnectionError);
          // one back without the queue's state, at once (BulkQueueStateLostError).
          const now = await status();
          const ended = now.done + now.failed + now.inDoubt;
          const at = Date.now();
          history.push({ at, ended });
          while (history.length > 2 && at - history[0]!.at > 5000) history.shift();
          const first = history[0]!;
          const perSecond = at > first.at ? ((ended - first.ended) * 1000) / (at - first.at) : 0;
          const left = now.waiting + now.active;
          yield {
            done: now.done,
            failed: now.failed,
            skipped: 0,
            inDoubt: now.inDoubt,
            inFlight: now.active,
            perSecond,
            total: ended + left,
            ...(perSecond > 0 ? { etaMs: Math.round((left / perSecond) * 1000) } : {}),
          };
          if (left === 0 || stop.signal.aborted) return;
          // The next snapshot, intervalMs after this one.
          const wait = intervalMs - (Date.now() - at);
          if (wait > 0) await sleep(wait, stop.signal).catch(() => undefined);
          if (stop.signal.aborted) return;
        }
      } finally {
        closers.delete(closer);
        signal?.removeEventListener("abort", onAbort);
      }
    },

    async report() {
      const { redis } = await caller();
      const ledger = redisLedger(redis, ledgerBase);
      const [counts, failures, inDoubtKeys] = await Promise.all([ledger.counts(), ledger.failures(), ledger.inDoubtKeys()]).catch(named);
      return {
        runId: name,
        done: counts.done,
        failed: counts.failed,
        skipped: 0,
        inDoubt: counts.inDoubt,
        durationMs: counts.startedAt !== undefined && counts.lastEndAt !== undefined ? Math.max(0, counts.lastEndAt - counts.startedAt) : 0,
        failures: failures.map(({ key, status, name, error }): BulkFailure => ({ key, ...(status === undefined ? {} : { status }), error: storedError(error, name, status), message: error })),
        inDoubtKeys,
        stopped: false,
      };
    },

    async retryFailed() {
      const { redis, queue } = await caller();
      const count = await redisLedger(redis, ledgerBase).forgetFailed().catch(named);
      await queue.retryJobs({ state: "failed" }).catch(named);
      return count;
    },

    async close() {
      shut = true;
      await Promise.all([...closers].map((close) => close()));
      await Promise.all([...workers].map((worker) => worker.close()));
      await queue?.close();
      callerRedis?.disconnect();
    },
  };
}

function checkOptions(options: BulkQueueOptions): void {
  if (options === null || typeof options !== "object") throw new TypeError("createBulkQueue() takes an options object: { name, connection, rate? }.");
  if (typeof options.name !== "string" || !/^[\w.-]+$/.test(options.name)) {
    throw new TypeError(`createBulkQueue(): name must be a non-empty string of letters, digits, ".", "_" or "-", got ${JSON.stringify(options.name)}.`);
  }
  if (options.connection === null || typeof options.connection !== "object") {
    throw new TypeError('createBulkQueue(): connection must be ioredis options, such as { host: "127.0.0.1", port: 6379 }.');
  }
  const rate = options.rate;
  if (rate !== undefined && (rate === null || typeof rate.perSecond !== "number" || !(rate.perSecond > 0) || !Number.isFinite(rate.perSecond))) {
    throw new TypeError(`createBulkQueue(): rate.perSecond must be a positive number of requests per second, got ${JSON.stringify(rate?.perSecond)}.`);
  }
  if (options.onError !== undefined && typeof options.onError !== "function") throw new TypeError("createBulkQueue(): onError must be a function.");
  const { telemetry } = options;
  if (telemetry !== undefined && typeof telemetry !== "boolean" && (telemetry === null || typeof telemetry !== "object")) {
    throw new TypeError(`createBulkQueue(): telemetry must be true, false or { tracerProvider? }, got ${telemetry === null ? "null" : typeof telemetry}.`);
  }
  const { maxPauseMs } = options;
  if (maxPauseMs !== undefined && !(typeof maxPauseMs === "number" && maxPauseMs >= 0)) throw new TypeError(`createBulkQueue(): maxPauseMs must be a number of milliseconds ≥ 0, got ${String(maxPauseMs)}.`);
}

/**
 * A failure's error as the report gives it: an `Error` with the stored name, message and status,
 * all three enumerable so that a failure logged as JSON shows them (the task's own error object
 * stayed in the worker's process; its scrubbed text is what Redis holds).
 */
function storedError(message: string, name: string | undefined, status: number | undefined): Error {
  const error = new Error(message);
  Object.defineProperty(error, "message", { enumerable: true });
  error.name = name ?? "Error";
  if (status !== undefined) (error as Error & { status?: number }).status = status;
  return error;
}
