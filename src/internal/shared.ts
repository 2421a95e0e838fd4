/**
 * What the package's other entries (`store-admin-sdk/bulk`, `/bulk/bullmq`, `/testing` and the
 * command) take from the main entry's modules beyond its public exports. scripts/build.ts
 * exports these from the built main entry too, untyped, and builds the other entries to
 * import the main entry's modules from it, so that there is one copy of each: one client
 * registry for `deriveClient`, one record of walks for `walkOf`, one `StoreAdminError`. They
 * are not part of the API: no declaration names them, and any release may change them.
 */
export { deriveClient, tokenSourceOf } from "../client.js";
export { walkOf } from "../paginate.js";
export { parseRetryAfterMs } from "../retry-policy.js";
export { clip, describe, redact, sanitizeCause } from "./redact.js";
export { sleep, untilStopped } from "./sleep.js";
