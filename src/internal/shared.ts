/**
 * What the package's other entries (`store-admin-sdk/bulk`, `/bulk/bullmq`, `/testing` and the
 * command) take from the main entry's modules: its public exports, and the client registry and
 * helpers beyond them. scripts/build.ts builds this file beside the main entry, and the other
 * entries import it as `#shared` (package.json `imports`, which only the package's own files
 * can resolve), so that there is one copy of each module: one client registry for
 * `deriveClient`, one record of walks for `walkOf`, one `StoreAdminError`.
 *
 * Not part of the API, and not reachable through the package's `exports`: `tokenSourceOf` and
 * `deriveClient` reach a client's token, so no public entry may export them (test/package/entry-guarantees.test.ts).
 */
export * from "../index.js";
export { deriveClient, loadTelemetry, telemetryOf, tokenSourceOf } from "../client.js";
export { cursorOf, walkOf } from "../paginate.js";
export { ownOptions } from "./own.js";
export { isIdempotent, parseRetryAfterMs } from "../retry-policy.js";
export { clip, describe, headOf, redact, sanitizeCause } from "./redact.js";
export { sleep, untilStopped } from "./sleep.js";
export { NULL_BODY_STATUSES } from "../transport.js";
export { reasonPhrase } from "./error-messages.js";
export { API_ROOT_PATH } from "../../generated/operations.js";
