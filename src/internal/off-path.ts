/**
 * What the client needs only when a call fails or a logger is set: every error class and the
 * wording of its message (`errors.ts`), the redaction of server text quoted in a message
 * (`redact.ts`; telemetry.ts loads this module for it too), the retry policy (`retry-policy.ts`: a success is never retried) and the
 * logger's events (`logger.ts`), and the request id `.withResponse()` reads. Loaded on first need by
 * {@link loadOffPath}, so an application whose calls succeed never loads it, and a bundler
 * that splits code puts it in a chunk of its own (docs/performance.md, "Bundle size").
 * Not exported from the package.
 */
export * from "../core/errors.js";
export { clip, describe, redact } from "../core/redact.js";
export { attemptEvent, emitLogEvent, printEnvLog } from "../core/logger.js";
export { requestIdOf } from "../core/request-id.js";
export { decideRetry } from "../core/retry-policy.js";
