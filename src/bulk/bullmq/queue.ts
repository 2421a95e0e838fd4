/**
 * `createBulkQueue()`: `runBulk`'s work spread over many processes and machines, on BullMQ over
 * Redis. BullMQ does the queueing: job ids deduplicate keys, its limiter and `rateLimit()` hold
 * every worker back after a 429, stalled jobs of a dead worker go back to the queue. What the
 * SDK adds is what BullMQ cannot know: the rate budget counts requests, not jobs
 * (`redis-budget.ts`), and a key whose task sent a POST or PATCH is never re-run after a crash
 * (`redis-ledger.ts`). Jobs carry the item and its key, never the client or its token, and
 * with `telemetry` the trace context of the `add()` that queued them (`job-trace.ts`).
 */
import { checkFunction, checkMilliseconds, mustBe, typeName } from "#shared";
import { loadTelemetry } from "../../plugins/telemetry.js";
import type { JsonItem } from "./json-item.js";
import { jobTraceOf } from "./job-trace.js";
import { addItems } from "./queue-add.js";
import { caller, queueContext } from "./queue-context.js";
import { queueProgress, queueReport, queueStatus } from "./queue-report.js";
import type { BulkQueue, BulkQueueOptions } from "./queue-types.js";
import { startWorker } from "./queue-worker.js";
import { redisLedger } from "./redis-ledger.js";

export type {
  AddOptions,
  BulkQueue,
  BulkQueueOptions,
  BulkQueueStatus,
  BulkWorker,
  WorkOptions,
} from "./queue-types.js";

/**
 * A queue of items of type `Item`, which must be what JSON carries unchanged: jobs travel
 * through Redis as JSON (see {@link JsonItem}). Without a type, an item is any value but
 * `undefined`, which JSON cannot write.
 *
 * Its parts: the handle's state and the caller's side of Redis (`queue-context.ts`), `add()`
 * (`queue-add.ts`), `work()` (`queue-worker.ts`), and `status()`, `progress()` and `report()`
 * (`queue-report.ts`).
 */
export function createBulkQueue<Item extends { [K in keyof Item]: JsonItem<Item[K]> } = {} | null>(
  options: BulkQueueOptions,
): BulkQueue<Item> {
  checkOptions(options);
  const context = queueContext(options);
  const { name } = context;
  // Loaded only with the option, as a client loads it; a failure to load it fails each add().
  const telemetry = options.telemetry ? loadTelemetry(options.telemetry) : undefined;
  const status = () => queueStatus(context);

  return {
    name,

    async add(items, { key }) {
      if (typeof key !== "function")
        throw new TypeError("add(items, { key }): key must be a function returning an item's key as a string.");
      if (!telemetry) return addItems(context, items, key, undefined);
      // The add's span: its trace context goes into each job's data, the parent of the job's calls.
      const tracing = (await telemetry).bulkAdd(name);
      return tracing.end(addItems(context, items, key, jobTraceOf(tracing.carrier)));
    },

    work: (task, workOptions) => startWorker(context, task, workOptions),

    status,

    progress: (progressOptions) => queueProgress(context, progressOptions),

    report: () => queueReport(context),

    async retryFailed() {
      const { redis, queue } = await caller(context);
      const count = await redisLedger(redis, context.ledgerBase).forgetFailed().catch(context.named);
      await queue.retryJobs({ state: "failed" }).catch(context.named);
      return count;
    },

    async close() {
      context.shut = true;
      await Promise.all([...context.closers].map((close) => close()));
      await Promise.all([...context.workers].map((worker) => worker.close()));
      await context.queue?.close();
      context.callerRedis?.disconnect();
    },
  };
}

function checkOptions(options: BulkQueueOptions): void {
  if (options === null || typeof options !== "object")
    throw new TypeError("createBulkQueue() takes an options object: { name, connection, rate? }.");
  if (typeof options.name !== "string" || !/^[\w.-]+$/.test(options.name))
    mustBe(
      "createBulkQueue(): name",
      'a non-empty string of letters, digits, ".", "_" or "-"',
      options.name,
      JSON.stringify,
    );
  if (options.connection === null || typeof options.connection !== "object")
    mustBe(
      "createBulkQueue(): connection",
      'ioredis options, such as { host: "127.0.0.1", port: 6379 }',
      options.connection,
      null,
    );
  const rate = options.rate;
  if (
    rate !== undefined &&
    (rate === null || typeof rate.perSecond !== "number" || !(rate.perSecond > 0) || !Number.isFinite(rate.perSecond))
  )
    mustBe(
      "createBulkQueue(): rate.perSecond",
      "a positive number of requests per second",
      rate?.perSecond,
      JSON.stringify,
    );
  checkFunction("createBulkQueue(): onError", options.onError);
  const { telemetry } = options;
  if (
    telemetry !== undefined &&
    typeof telemetry !== "boolean" &&
    (telemetry === null || typeof telemetry !== "object")
  )
    mustBe("createBulkQueue(): telemetry", "true, false or { tracerProvider? }", telemetry, typeName);
  checkMilliseconds("createBulkQueue(): maxPauseMs", options.maxPauseMs);
}
