/** The shapes of `createBulkQueue()`: its options, the queue, a worker, and what a job carries. */
import type { RedisOptions } from "ioredis";
import type { StoreAdminClient, TelemetryOptions } from "#shared";
import type { BulkProgress, BulkReport, BulkTask } from "../types.js";
import type { JobTrace } from "./job-trace.js";

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
export interface JobData<Item> {
  key: string;
  item: Item;
  /** With the producer's `telemetry` option (`job-trace.ts`). */
  trace?: JobTrace;
}
