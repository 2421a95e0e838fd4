/**
 * store-admin-sdk/plugins: the SDK's own plugins for the client's `plugins` option. A client
 * that uses none ships none of them.
 *
 * @example
 * import { createStoreAdminClient } from "store-admin-sdk";
 * import { idempotencyKey, rateLimit, telemetry, validateResponses } from "store-admin-sdk/plugins";
 * const store = createStoreAdminClient({ baseUrl, accessToken, plugins: [rateLimit({ perSecond: 5 }), idempotencyKey({ header: "Idempotency-Key" }), telemetry(), validateResponses("report")] });
 */
export { validateResponses } from "./validate-responses.js";
export { telemetry } from "./telemetry.js";
export { idempotencyKey, type IdempotencyKeyOptions } from "./idempotency-key.js";
export { rateLimit, type RateLimitOptions } from "./rate-limit.js";
