/**
 * The one way the client reaches what it needs only when a call fails or a logger is set
 * (`off-path.ts`). `import()` resolves the module once; later calls reuse it. Not exported
 * from the package.
 *
 * The module may be gone: a package replaced under a running process (an in-place upgrade)
 * leaves the process asking for a chunk the new build names differently. Then the call still
 * fails with an error that is `instanceof StoreAdminError`, with its `status` when a response
 * came and the load error as `cause` ({@link unloadedError}), and request.ts keeps the safe
 * retry decision.
 */
export const loadOffPath = (status?: number) => import("./off-path.js").catch((cause: unknown) => Promise.reject(unloadedError(cause, `${status ?? "Failed"}: the SDK's error module`, status)));

/** The module {@link loadOffPath} resolves to. */
export type OffPath = Awaited<ReturnType<typeof loadOffPath>>;

/**
 * The error of a call that failed while one of the SDK's lazy modules could not be loaded. Made without
 * errors.ts (importing it here would load it with the client): `StoreAdminError` recognises
 * the registered symbol.
 */
export function unloadedError(cause: unknown, what: string, status?: number): Error {
  const error = new Error(`${what} did not load`, { cause });
  return Object.assign(error, { name: "StoreAdminError", status, [Symbol.for("store-admin-sdk.unloaded")]: true });
}
