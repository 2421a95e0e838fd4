/**
 * The per-operation tables the client needs only once a call is made: each operation's facts
 * (scope, list, multipart, …: `generated/operation-facts.ts`) and each method's operation
 * (`generated/method-table.ts`). Loaded on first need by {@link loadTables}, so their size,
 * which grows with every operation of the contract, is not paid at start, and a bundler that
 * splits code puts them in a chunk of their own. Not exported from the package.
 */
export { operations } from "../../generated/operation-facts.js";
export { methodTable } from "../../generated/method-table.js";
