/**
 * The one way the client reaches its per-operation tables (`operation-tables.ts`): the first
 * call of a client method, of `GET`/`POST`/…, or of `paginate` loads them, once; later calls
 * read them without waiting (docs/architecture.md, "Cost per operation"). Not exported from the package.
 */
import { StoreAdminError } from "../core/errors.js";
import { loadOnce } from "../core/load-once.js";

type OperationTables = typeof import("./operation-tables.js");

let loaded: OperationTables | undefined;

/**
 * The tables, loaded once (`loadOnce`: concurrent first calls share one load). Gone (the package
 * replaced under a running process): a StoreAdminError before anything is sent; the next call tries again.
 */
export const loadTables = loadOnce(
  async (): Promise<OperationTables> =>
    (loaded = await import("./operation-tables.js").catch((cause: unknown): never => {
      throw new StoreAdminError("Not sent: the SDK's operation tables did not load", { cause });
    })),
);

/** The tables if a call has loaded them already, else `undefined` (then {@link loadTables}). */
export const loadedTables = (): OperationTables | undefined => loaded;
