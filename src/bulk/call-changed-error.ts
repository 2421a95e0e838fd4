/**
 * Thrown by `runBulk` when an item's `fingerprint` differs from the one the ledger recorded for
 * its key, done or in doubt: the same key with another call (yesterday's ledger, today's file).
 * Nothing is sent for it; the run stops.
 */
export class CallChangedError<Item = unknown> extends Error {
  override name = "CallChangedError";
  constructor(
    /** How the message names the ledger. */
    readonly ledger: string,
    readonly runId: string,
    readonly key: string,
    /** What the ledger holds of the key: `done`, `sending` or `inDoubt`. */
    readonly state: string,
    /** The item whose fingerprint differs. */
    readonly item: Item,
  ) {
    super(
      `${ledger[0]!.toUpperCase()}${ledger.slice(1)} holds the key ${JSON.stringify(key)} of the run ${JSON.stringify(runId)} as ${state === "done" ? "done" : "in doubt"} with another call than this item's. ` +
        "The same key with a different call is a different run: give it its own runId (or ledger), or restore the item as it was.",
    );
  }
}
