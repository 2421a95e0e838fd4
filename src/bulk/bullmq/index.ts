/**
 * store-admin-sdk/bulk/bullmq: the bulk runner's work across many processes and machines, on
 * BullMQ over Redis. `bullmq` and `ioredis` are optional peer dependencies: install them to use
 * this entry; the rest of the SDK never loads them.
 *
 * @example
 * import { createBulkQueue } from "store-admin-sdk/bulk/bullmq";
 * const bulk = createBulkQueue({ name: "expire-cards", connection: { host: "127.0.0.1", port: 6379 }, rate: { perSecond: 5 } });
 * await bulk.add(cards, { key: (card) => String(card.id) });
 * const worker = bulk.work(task, { client: store, concurrency: 8 });
 */
export {
  createBulkQueue,
  type AddOptions,
  type BulkQueue,
  type BulkQueueOptions,
  type BulkQueueStatus,
  type BulkWorker,
  type WorkOptions,
} from "./queue.js";
export { BulkQueueConnectionError, BulkQueueStateLostError } from "./connection.js";
export type { BulkFailure, BulkProgress, BulkReport, BulkTask, TaskContext } from "../types.js";
