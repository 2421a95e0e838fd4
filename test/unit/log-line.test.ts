/**
 * `formatLogEvent`'s line for what the attempt loop adds to an event: the wait in the client's
 * pause after a 429, an error status's class and detail, and why a failed attempt is not retried.
 */
import { describe, expect, it } from "vitest";
import { formatLogEvent, type RequestLogEvent } from "../../src/core/logger.js";
import { MAX_RETRY_AFTER_MS } from "../../src/core/retry-policy.js";

const base: RequestLogEvent = { method: "PATCH", path: "/users/{id}/", attempt: 1, durationMs: 12, willRetry: false };

describe("formatLogEvent", () => {
  it("says how long an attempt waited in the client's pause, and nothing when it did not", () => {
    expect(formatLogEvent({ ...base, status: 200, pausedMs: 987 })).toBe(
      "PATCH /users/{id}/ 200 attempt 1 12 ms paused 987 ms",
    );
    expect(formatLogEvent({ ...base, status: 200 })).toBe("PATCH /users/{id}/ 200 attempt 1 12 ms");
  });

  it("gives an error status's class and the store's detail, or the class alone when there is no detail", () => {
    expect(formatLogEvent({ ...base, status: 404, error: { name: "NotFoundError", message: "No such user." } })).toBe(
      "PATCH /users/{id}/ 404 attempt 1 12 ms NotFoundError: No such user.",
    );
    expect(formatLogEvent({ ...base, status: 404, error: { name: "NotFoundError", message: "" } })).toBe(
      "PATCH /users/{id}/ 404 attempt 1 12 ms NotFoundError",
    );
  });

  it("says why a failed attempt is not retried; a final answer says it by itself", () => {
    const failed = { ...base, status: 503, error: { name: "InternalServerError", message: "" } };
    expect(formatLogEvent({ ...failed, notRetried: "not-idempotent" })).toMatch(
      / not retried: PATCH is not idempotent$/,
    );
    expect(formatLogEvent({ ...failed, notRetried: "retries-exhausted" })).toMatch(/ not retried: attempts used up$/);
    expect(formatLogEvent({ ...failed, status: 429, notRetried: "retry-after-too-long" })).toMatch(
      new RegExp(` not retried: Retry-After over ${MAX_RETRY_AFTER_MS / 1000} s$`),
    );
    expect(formatLogEvent({ ...failed, status: 400, notRetried: "not-retryable" })).toBe(
      "PATCH /users/{id}/ 400 attempt 1 12 ms InternalServerError",
    );
  });
});
