/**
 * The door: what the package's other entries (`store-admin-sdk/testing`, `/bulk`,
 * `/bulk/bullmq`, `/mcp` and the command) take from the main entry's modules: its public
 * exports, and the client registry and helpers beyond them. Their sources import it by its
 * package-private name, `#shared` (package.json `imports`: only the package's own files can
 * resolve it), so TypeScript checks every name they take. Built beside the main entry
 * (scripts/build.ts), it gives each module one copy across entries: one client registry for
 * `deriveClient`, one record of walks for `walkOf`, one `StoreAdminError`.
 *
 * Not part of the API, and not reachable through the package's `exports`: `tokenSourceOf` and
 * `deriveClient` reach a client's token, so no public entry may export them (test/package/entry-guarantees.test.ts).
 */
export * from "./index.js";
export {
  deriveClient,
  pauseLeftOf,
  pluginsOf,
  TELEMETRY,
  telemetryOf,
  tokenSourceOf,
  type RunTelemetry,
  type RunTelemetrySource,
} from "./client/client.js";
export { secretsOf } from "./client/plugin-chain.js";
export { pausedMs } from "./client/rate-pause.js";
export { MAX_EXTRA_ATTEMPTS } from "./core/plugin.js";
export { cursorOf, walkOf } from "./client/paginate.js";
export { loadOnce } from "./core/load-once.js";
export { ownOptions } from "./core/own.js";
export {
  checkBoolean,
  checkFunction,
  checkMilliseconds,
  checkWholeNumber,
  mustBe,
  typeName,
  unknownOptions,
} from "./core/options.js";
export { isIdempotent, parseRetryAfterMs } from "./core/retry-policy.js";
export { clip, describe, headOf, redact, sanitizeCause } from "./core/redact.js";
export { sleep, untilStopped } from "./core/sleep.js";
export { onAbort } from "./core/timeout.js";
export { checkHeaders } from "./client/headers.js";
export { NULL_BODY_STATUSES } from "./client/transport.js";
export { reasonPhrase } from "./core/error-messages.js";
export { noteDrifts } from "./core/logger.js";
export { MAX_RETRY_AFTER_MS } from "./core/retry-policy.js";
export { API_ROOT_PATH } from "../generated/operations.js";
export type { TokenSource } from "./client/auth.js";
export type { FetchLike } from "./core/call-types.js";
