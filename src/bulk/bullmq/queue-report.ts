/** What a queue says of its work: `status()` (the counters now), `progress()` (them over time) and `report()` (`runBulk`'s report shape). */
import { checkMilliseconds, sleep } from "#shared";
import type { BulkFailure, BulkProgress, BulkReport } from "../types.js";
import { caller, checkState, type QueueContext } from "./queue-context.js";
import type { BulkQueueStatus } from "./queue-types.js";
import { redisLedger } from "./redis-ledger.js";

export async function queueStatus(context: QueueContext): Promise<BulkQueueStatus> {
  const { redis, queue } = await caller(context);
  const [jobs, ends] = await Promise.all([
    queue.getJobCounts("waiting", "delayed", "prioritized", "active"),
    redisLedger(redis, context.ledgerBase).counts(),
  ]).catch(context.named);
  checkState(context, ends.startedAt);
  return {
    waiting: (jobs.waiting ?? 0) + (jobs.delayed ?? 0) + (jobs.prioritized ?? 0),
    active: jobs.active ?? 0,
    done: ends.done,
    failed: ends.failed,
    inDoubt: ends.inDoubt,
  };
}

/** The counters every `intervalMs` until nothing is waiting or running, `signal` aborts or the queue is closed. */
export async function* queueProgress(
  context: QueueContext,
  { intervalMs = 500, signal }: { intervalMs?: number; signal?: AbortSignal } = {},
): AsyncGenerator<BulkProgress, void, undefined> {
  checkMilliseconds("progress(): intervalMs", intervalMs);
  // close() ends a progress() left open, and so does `signal`: the wait between snapshots ends at once.
  const stop = new AbortController();
  const closer = async (): Promise<void> => stop.abort();
  context.closers.add(closer);
  const onAbort = (): void => stop.abort();
  signal?.addEventListener("abort", onAbort);
  const history: Array<{ at: number; ended: number }> = [];
  try {
    for (;;) {
      // A Redis away or not answering fails this within connectTimeoutMs (BulkQueueConnectionError);
      // one back without the queue's state, at once (BulkQueueStateLostError).
      const now = await queueStatus(context);
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
    context.closers.delete(closer);
    signal?.removeEventListener("abort", onAbort);
  }
}

export async function queueReport(context: QueueContext): Promise<BulkReport> {
  const { redis } = await caller(context);
  const ledger = redisLedger(redis, context.ledgerBase);
  const [counts, failures, inDoubtKeys] = await Promise.all([
    ledger.counts(),
    ledger.failures(),
    ledger.inDoubtKeys(),
  ]).catch(context.named);
  return {
    runId: context.name,
    done: counts.done,
    failed: counts.failed,
    skipped: 0,
    inDoubt: counts.inDoubt,
    durationMs:
      counts.startedAt !== undefined && counts.lastEndAt !== undefined
        ? Math.max(0, counts.lastEndAt - counts.startedAt)
        : 0,
    failures: failures.map(
      ({ key, status, name, error }): BulkFailure => ({
        key,
        ...(status === undefined ? {} : { status }),
        error: storedError(error, name, status),
        message: error,
      }),
    ),
    inDoubtKeys,
    stopped: false,
  };
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
