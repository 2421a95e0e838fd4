/**
 * What one `createBulkQueue()` handle keeps: its options as used, the caller's side of Redis
 * (one connection, one BullMQ `Queue`, opened on first use and failing fast while Redis is
 * away), the queue's state as last seen, and what `close()` must close.
 */
import { Queue, type ConnectionOptions } from "bullmq";
import type { Redis, RedisOptions } from "ioredis";
import { DEFAULT_MAX_PAUSE_MS } from "../budget.js";
import {
  BulkQueueConnectionError,
  BulkQueueStateLostError,
  callerClient,
  connected,
  errorReporter,
  isConnectionError,
  redisAddress,
} from "./connection.js";
import type { BulkQueueOptions, BulkWorker } from "./queue-types.js";

export interface QueueContext {
  readonly name: string;
  readonly connection: RedisOptions;
  readonly rate: BulkQueueOptions["rate"];
  readonly prefix: string;
  /** How messages name the Redis server. */
  readonly address: string;
  readonly connectTimeoutMs: number;
  readonly maxPauseMs: number;
  readonly reporter: ReturnType<typeof errorReporter>;
  /** Where the SDK's ledger and budget keys live in Redis. */
  readonly ledgerBase: string;
  readonly budgetBase: string;
  /** ioredis's options type and BullMQ's loose copy of it differ in detail; the values are the same. */
  readonly bullConnection: ConnectionOptions;
  /** The caller's error for a Redis that went away mid-call: one that names the address. */
  readonly named: (error: unknown) => never;
  callerRedis: Redis | undefined;
  queue: Queue | undefined;
  /** `close()` was called: later calls are refused. */
  shut: boolean;
  /**
   * When the queue's work was first added (the ledger's `startedAt`), as this handle last saw
   * it: a Redis that comes back without it has lost the queue's state.
   */
  startedAt: number | undefined;
  /** This process's workers and open `progress()` iterators: `close()` closes them. */
  readonly workers: Set<BulkWorker>;
  readonly closers: Set<() => Promise<void>>;
}

export function queueContext(options: BulkQueueOptions): QueueContext {
  const { name, connection, rate } = options;
  const prefix = options.prefix ?? "bull";
  const address = redisAddress(connection);
  const onError = options.onError ?? ((error: Error) => console.warn(`[store-admin-sdk/bulk/bullmq] ${error.message}`));
  return {
    name,
    connection,
    rate,
    prefix,
    address,
    connectTimeoutMs: options.connectTimeoutMs ?? 5000,
    maxPauseMs: options.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS,
    reporter: errorReporter(address, onError),
    ledgerBase: `${prefix}:${name}:sdk`,
    budgetBase: `${prefix}:sdk-budget:${rate?.budget ?? name}`,
    bullConnection: connection as ConnectionOptions,
    named: (error) => {
      throw isConnectionError(error) && !(error instanceof BulkQueueConnectionError)
        ? new BulkQueueConnectionError(address, error)
        : error;
    },
    callerRedis: undefined,
    queue: undefined,
    shut: false,
    startedAt: undefined,
    workers: new Set(),
    closers: new Set(),
  };
}

/** The caller's side, connected: fails fast while Redis is away, and once the handle is closed. */
export async function caller(context: QueueContext): Promise<{ redis: Redis; queue: Queue }> {
  if (context.shut)
    throw new Error(
      `The bulk queue "${context.name}" is closed: create another with createBulkQueue() to use it again.`,
    );
  context.callerRedis ??= callerClient(context.connection, context.reporter, context.connectTimeoutMs);
  const redis = context.callerRedis;
  await connected(redis, context.address, context.connectTimeoutMs);
  if (!context.queue) {
    const queue = new Queue(context.name, { connection: redis, prefix: context.prefix, skipVersionCheck: true });
    queue.on("error", (error: unknown) => context.reporter.report(error));
    context.queue = queue;
  }
  return { redis, queue: context.queue };
}

/** Follows the ledger's `startedAt`: throws when Redis came back without the queue's state. */
export function checkState(context: QueueContext, now: number | undefined): void {
  if (context.startedAt !== undefined && now !== context.startedAt)
    throw new BulkQueueStateLostError(context.address, context.name);
  context.startedAt = now;
}
