/** `add()`: a queue's items become jobs, one per key, each key bound to its item in the ledger first. */
import type { Queue } from "bullmq";
import type { JobTrace } from "./job-trace.js";
import { caller, type QueueContext } from "./queue-context.js";
import type { JobData } from "./queue-types.js";
import { itemDigest, redisLedger, type RedisLedger } from "./redis-ledger.js";

/** BullMQ refuses ids that look like integers or hold ":"; keys are both, often. */
const jobIdOf = (key: string): string => `key-${encodeURIComponent(key)}`;

/** Jobs per `addBulk` call. */
const ADD_BATCH = 500;

type JobToAdd<Item> = { name: string; data: JobData<Item>; opts: { jobId: string } };

/** Queues `items`, one job per key, each job's data with `trace` when there is one; resolves with the number read. */
export async function addItems<Item>(
  context: QueueContext,
  items: Iterable<Item> | AsyncIterable<Item>,
  key: (item: Item) => string,
  trace: JobTrace | undefined,
): Promise<number> {
  const { redis, queue } = await caller(context);
  const { named } = context;
  const ledger = redisLedger(redis, context.ledgerBase);
  await ledger.markStarted().catch(named);
  // What was added from here on is the state this handle follows (again, after a loss).
  context.startedAt = (await ledger.counts().catch(named)).startedAt;
  let batch: Array<JobToAdd<Item>> = [];
  let count = 0;
  const queueBatch = async (): Promise<void> => {
    const jobs = batch;
    batch = [];
    await queueJobs(context, ledger, queue, jobs, count);
  };
  try {
    for await (const item of items as AsyncIterable<Item>) {
      const itemKey = key(item);
      if (typeof itemKey !== "string" || itemKey === "") {
        throw new TypeError(
          `add(): key() returned ${JSON.stringify(itemKey)} for item ${count}; it must return a non-empty string. Items before it were queued.`,
        );
      }
      batch.push({
        name: "task",
        data: trace ? { key: itemKey, item, trace } : { key: itemKey, item },
        opts: { jobId: jobIdOf(itemKey) },
      });
      count += 1;
      if (batch.length === ADD_BATCH) await queueBatch();
    }
  } finally {
    // What was read before a bad item (or a failing iterable) is queued, as the error says.
    if (batch.length > 0) await queueBatch();
  }
  return count;
}

/** Queues a batch, each key bound to its item first: a key bound to another item is refused (`count`: items read so far). */
async function queueJobs<Item>(
  context: QueueContext,
  ledger: RedisLedger,
  queue: Queue,
  jobs: Array<JobToAdd<Item>>,
  count: number,
): Promise<void> {
  const { named } = context;
  const conflict = await ledger
    .bind(jobs.map((job) => [job.data.key, itemDigest(job.data.item)] as const))
    .catch(named);
  const bound = conflict < 0 ? jobs : jobs.slice(0, conflict);
  if (bound.length > 0) await queue.addBulk(bound).catch(named);
  if (conflict >= 0) {
    throw new Error(
      `add(): the queue "${context.name}" holds the key ${JSON.stringify(jobs[conflict]!.data.key)} with another item than item ${count - jobs.length + conflict} of this add. ` +
        "The same key with a different item is a different run: use another queue name, or restore the item as it was. Items before it were queued.",
    );
  }
}
