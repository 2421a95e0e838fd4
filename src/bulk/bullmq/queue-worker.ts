/**
 * `work()`: one process's BullMQ worker running `task` on each job (`job.ts`), with its own
 * Redis connection, the shared ledger and budget, BullMQ's limiter for the 429 pause, and a
 * watch on the queue's state across outages.
 */
import { Queue, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { checkWholeNumber, deriveClient, mustBe } from "#shared";
import { durationText } from "../budget.js";
import type { BulkTask } from "../types.js";
import { BulkQueueStateLostError, workerClient } from "./connection.js";
import { runJob } from "./job.js";
import type { QueueContext } from "./queue-context.js";
import type { BulkWorker, JobData, WorkOptions } from "./queue-types.js";
import { redisBudget, type RedisBudget } from "./redis-budget.js";
import { redisLedger } from "./redis-ledger.js";

/**
 * Stalled jobs go back to the queue every time: whether one may run again is the ledger's
 * decision (a key that sent a POST or PATCH is in doubt), not a count of stalls.
 */
const MAX_STALLED = 1_000_000;

/** The worker's options, checked; fails with a clear message for anything but a client of createStoreAdminClient(). */
function workSettings(
  context: QueueContext,
  task: unknown,
  workOptions: WorkOptions,
): { concurrency: number; lockDurationMs: number } {
  if (context.shut)
    throw new Error(`The bulk queue "${context.name}" is closed: create another with createBulkQueue() to work on it.`);
  // Worded as it always was, without the closing period checkFunction would add.
  if (typeof task !== "function")
    throw new TypeError("work(task, options): task must be a function (item, { client, signal, key }) => …");
  const { client } = workOptions ?? ({} as WorkOptions);
  deriveClient(client, { fetch: (fetch) => fetch });
  const concurrency = workOptions.concurrency ?? 4;
  checkWholeNumber("work(): concurrency", concurrency, 1);
  const lockDurationMs = workOptions.lockDurationMs ?? 30_000;
  if (!Number.isFinite(lockDurationMs) || lockDurationMs < 1000)
    mustBe("work(): lockDurationMs", "at least 1000 ms", lockDurationMs);
  return { concurrency, lockDurationMs };
}

export function startWorker<Item>(context: QueueContext, task: BulkTask<Item>, workOptions: WorkOptions): BulkWorker {
  const { concurrency, lockDurationMs } = workSettings(context, task, workOptions);
  const { name, prefix, bullConnection, reporter, rate } = context;
  const { client } = workOptions;
  const tokens: string[] = [];
  const redis = workerClient(context.connection, reporter);
  const ledger = redisLedger(redis, context.ledgerBase);
  const budget = redisBudget(redis, context.budgetBase, rate?.perSecond);
  // BullMQ's own pause for 429s: the limiter key, honoured by every worker before it takes a job.
  const pauser = new Queue(name, { connection: bullConnection, prefix, skipVersionCheck: true });
  pauser.on("error", (error: unknown) => reporter.report(error));
  const pause = pauseAll(context, budget, pauser);
  const worker: Worker<JobData<Item>> = new Worker<JobData<Item>>(
    name,
    (job: Job<JobData<Item>>, token?: string, signal?: AbortSignal) =>
      runJob({
        job,
        token: token ?? "",
        signal,
        task,
        client,
        ledger,
        budget,
        lockKey: `${worker.toKey(job.id ?? "")}:lock`,
        pause,
        tokens,
      }),
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
  watchState(context, redis, worker);
  return workerHandle(context, worker, pauser, redis);
}

/**
 * Pauses every worker for `ms` (a 429 or 503's `Retry-After`): the shared budget and BullMQ's
 * limiter. Longer than `maxPauseMs`: reported, and cut to it.
 */
function pauseAll(context: QueueContext, budget: RedisBudget, pauser: Queue): (ms: number) => Promise<void> {
  const { maxPauseMs, reporter } = context;
  return async (ms) => {
    if (ms > maxPauseMs) {
      reporter.report(
        new Error(
          `The store asked for a pause of ${durationText(ms)} (Retry-After), longer than maxPauseMs (${durationText(maxPauseMs)}): every worker pauses for ${durationText(maxPauseMs)}, then goes on. Nothing is lost: the job that got the answer failed, and retryFailed() runs it again.`,
        ),
      );
      ms = maxPauseMs;
    }
    await Promise.all([budget.pause(ms), pauser.rateLimit(ms)]);
  };
}

/**
 * Back after an outage: is the queue's state still there? (A Redis without persistence comes
 * back empty, and the jobs left waiting are gone with it.)
 */
function watchState<Item>(context: QueueContext, redis: Redis, worker: Worker<JobData<Item>>): void {
  const { reporter } = context;
  let seenStart: string | null = null;
  const lookAtState = async (): Promise<void> => {
    const now = await redis.hget(`${context.ledgerBase}:meta`, "startedAt");
    if (seenStart !== null && now !== seenStart)
      reporter.report(new BulkQueueStateLostError(context.address, context.name));
    seenStart = now;
  };
  redis.on("ready", () => void lookAtState().catch((error: unknown) => reporter.report(error)));
  worker.on("completed", () => {
    if (seenStart === null) void lookAtState().catch((error: unknown) => reporter.report(error));
  });
}

/** The worker as the caller holds it, listed in the queue's workers until closed. */
function workerHandle<Item>(
  context: QueueContext,
  worker: Worker<JobData<Item>>,
  pauser: Queue,
  redis: Redis,
): BulkWorker {
  let closing: Promise<void> | undefined;
  const handle: BulkWorker = {
    ready: () => worker.waitUntilReady().then(() => undefined),
    close() {
      closing ??= (async () => {
        await worker.close();
        await pauser.close();
        redis.disconnect();
        context.workers.delete(handle);
      })();
      return closing;
    },
  };
  context.workers.add(handle);
  return handle;
}
