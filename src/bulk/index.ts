/**
 * store-admin-sdk/bulk: many calls as one resumable run, under a concurrency limit and a rate
 * budget, with a ledger that makes "never sent twice" hold across crashes.
 *
 * @example
 * import { runBulk, fileLedger } from "store-admin-sdk/bulk";
 * const report = await runBulk({
 *   client: store,
 *   runId: "expire-cards-2026-11",
 *   items: store.paginate("/gift-cards/"),
 *   key: (card) => String(card.id),
 *   task: (card, { client, signal }) => client.PATCH("/gift-cards/{id}/", { params: { path: { id: card.id } }, body: { expired_at: null }, signal }),
 *   rate: { perSecond: 5 },
 *   ledger: fileLedger("runs/expire-cards.ledger"),
 * });
 */
export { CallChangedError, runBulk } from "./run.js";
export { memoryLedger } from "./memory-ledger.js";
export { fileLedger, type FileLedgerOptions } from "./file-ledger.js";
export { rateBudget } from "./budget.js";
export type {
  BulkFailure,
  BulkProgress,
  BulkReport,
  BulkTask,
  KeyState,
  Ledger,
  LedgerEnd,
  LedgerEntry,
  LedgerResume,
  RateBudget,
  RateLimit,
  RunBulkOptions,
  TaskContext,
} from "./types.js";
