/**
 * The `idempotencyKey()` plugin: a key in a header of every POST and PATCH, the same on each
 * attempt of a call, which makes such a call retryable on the statuses and errors a GET is
 * (a 5xx, a timeout, a cut connection). Only for a store that honours the header: the contract
 * declares none, so the SDK cannot know, and without the plugin a POST is never sent twice.
 */
import { checkFunction, checkHeaders, type PluginCall, type StoreAdminPlugin } from "#shared";

/** The options of {@link idempotencyKey}. */
export interface IdempotencyKeyOptions {
  /** The header the store reads the key from, e.g. `"Idempotency-Key"`. */
  header: string;
  /**
   * The key of a call: a fresh random one per call by default. A function returning a stable
   * key (a job's id) makes a resend after a crash carry the same key; `undefined` from it: a fresh one.
   */
  key?: ((call: PluginCall) => string | undefined) | undefined;
}

/** A key as a header carries it unchanged: printable ASCII, no surrounding space (fetch would trim it). */
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** Methods that change something and that the retry policy never resends on its own. */
const UNSAFE = new Set(["POST", "PATCH"]);

/** The key a bulk run gives a call of its task (`store-admin-sdk/bulk`: the run id and the item's key), by call. */
export const stableKeys = new WeakMap<PluginCall, string>();

/** Whether `plugin` was made by {@link idempotencyKey}. */
export const isIdempotencyKey = (plugin: StoreAdminPlugin): boolean => made.has(plugin);

const made = new WeakSet<StoreAdminPlugin>();

/**
 * Sends `header: <key>` on every POST and PATCH, one key per call, and lets the retry policy
 * resend them as it resends a GET.
 * @example
 * createStoreAdminClient({ …, plugins: [idempotencyKey({ header: "Idempotency-Key" })] });
 */
export function idempotencyKey(options: IdempotencyKeyOptions): StoreAdminPlugin & { readonly header: string } {
  const header = options?.header;
  if (typeof header !== "string" || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) {
    throw new TypeError(
      `idempotencyKey({ header }) must name a header, such as "Idempotency-Key", got ${JSON.stringify(header)}.`,
    );
  }
  // The client's own headers and fetch's cannot carry a key: refused here, not on the first POST.
  checkHeaders({ [header]: "" }, "idempotencyKey({ header })");
  checkFunction("idempotencyKey({ key })", options.key, "a function returning the call's key");
  const keyOf = options.key;
  const plugin = {
    name: "idempotency-key",
    header,
    wrapCall(call, next) {
      if (UNSAFE.has(call.method)) {
        const key: unknown = stableKeys.get(call) ?? keyOf?.(call) ?? crypto.randomUUID();
        if (typeof key !== "string" || !HEADER_VALUE.test(key))
          throw new TypeError(
            `idempotencyKey({ key }) returned ${typeof (key as Promise<unknown> | null)?.then === "function" ? "a promise" : JSON.stringify(key)} for ${call.method} ${call.path}; return the key itself (printable ASCII, no line breaks or surrounding spaces, as a header value) or undefined.`,
          );
        call.headers.set(header, key);
        call.idempotent = true;
      }
      return next();
    },
  } satisfies StoreAdminPlugin & { readonly header: string };
  made.add(plugin);
  return plugin;
}
