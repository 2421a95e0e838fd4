/**
 * The per-operation tables the client needs only once a call is made: each operation's facts
 * (scope, list, multipart, …: `generated/operation-facts.ts`) and each method's operation
 * (`generated/method-table.ts`). Loaded on first need by {@link loadTables}, so their size,
 * which grows with every operation of the contract, is not paid at start, and a bundler that
 * splits code puts them in a chunk of their own. So is the loader of the `validateResponses`
 * option's check (drift.ts), whose per-operation validators are tables of the same kind: it
 * costs the start of a client without the option nothing. Not exported from the package.
 */
import type { DriftContext } from "./drift.js";

export { operations } from "../../generated/operation-facts.js";
export { methodTable } from "../../generated/method-table.js";

/** Installs the `validateResponses` option's check on `context` (drift.ts), but for `"off"`; rejects with a TypeError for a bad value. */
export const loadDriftCheck = async (context: DriftContext): Promise<void> => {
  if (context.drift !== "off") (await import("./drift.js")).default(context);
};
