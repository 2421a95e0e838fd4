import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_TIMEOUT_MS } from "../../src/core/timeout.js";
import { DEFAULT_MAX_RETRIES } from "../../src/client/client.js";
import {
  decideRetry,
  INITIAL_RETRY_DELAY_MS,
  JITTER_RATIO,
  MAX_RETRY_DELAY_MS,
  isIdempotent,
  isRetryable,
  MAX_RETRY_AFTER_MS,
  parseRetryAfterMs,
  retryDelayMs,
} from "../../src/core/retry-policy.js";

const NOW = Date.parse("2024-04-01T12:00:00Z");

describe("isRetryable", () => {
  it("retries 429 for every method: the server refused the request unprocessed", () => {
    for (const method of ["GET", "PUT", "DELETE", "POST", "PATCH"]) {
      expect(isRetryable(method, { kind: "status", status: 429 })).toBe(true);
    }
  });

  it("retries 408 and 5xx only for idempotent methods", () => {
    for (const status of [408, 500, 502, 503, 504]) {
      expect(isRetryable("GET", { kind: "status", status })).toBe(true);
      expect(isRetryable("put", { kind: "status", status })).toBe(true);
      expect(isRetryable("DELETE", { kind: "status", status })).toBe(true);
      expect(isRetryable("POST", { kind: "status", status })).toBe(false);
      expect(isRetryable("PATCH", { kind: "status", status })).toBe(false);
    }
  });

  it("never retries other statuses", () => {
    for (const status of [200, 201, 204, 301, 400, 401, 403, 404, 409, 422]) {
      expect(isRetryable("GET", { kind: "status", status })).toBe(false);
    }
  });

  it("retries timeouts and broken connections only for idempotent methods", () => {
    expect(isRetryable("GET", { kind: "timeout" })).toBe(true);
    expect(isRetryable("POST", { kind: "timeout" })).toBe(false);
    expect(isRetryable("HEAD", { kind: "connection", requestSent: "maybe" })).toBe(true);
    expect(isRetryable("PATCH", { kind: "connection", requestSent: "maybe" })).toBe(false);
    expect(isRetryable("POST", { kind: "connection", requestSent: "yes" })).toBe(false);
  });

  it("retries a refused connection for every method: nothing was sent", () => {
    expect(isRetryable("POST", { kind: "connection", requestSent: "no" })).toBe(true);
    expect(isRetryable("PATCH", { kind: "connection", requestSent: "no" })).toBe(true);
  });

  it("never retries other failures (redirects, invalid bodies)", () => {
    expect(isRetryable("GET", { kind: "other" })).toBe(false);
  });

  it("knows the RFC 9110 idempotent methods", () => {
    expect(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].every(isIdempotent)).toBe(true);
    expect(["POST", "PATCH", "TRACE"].some(isIdempotent)).toBe(false);
  });
});

describe("parseRetryAfterMs", () => {
  it("reads delay-seconds, including fractions", () => {
    expect(parseRetryAfterMs("2", NOW)).toBe(2000);
    expect(parseRetryAfterMs(" 0 ", NOW)).toBe(0);
    expect(parseRetryAfterMs("0.05", NOW)).toBe(50);
  });

  it("reads an HTTP-date relative to now, and a past date as 0", () => {
    expect(parseRetryAfterMs("Mon, 01 Apr 2024 12:00:30 GMT", NOW)).toBe(30_000);
    expect(parseRetryAfterMs("Mon, 01 Apr 2024 11:00:00 GMT", NOW)).toBe(0);
  });

  it("ignores missing, negative and unreadable values", () => {
    for (const value of [null, undefined, "", "-1", "1.2.3", "soon"]) {
      expect(parseRetryAfterMs(value, NOW)).toBeUndefined();
    }
  });
});

describe("retryDelayMs", () => {
  it("backs off exponentially from 500 ms to 8 s, with up to 25 % jitter taken off", () => {
    const none = (): number => 0;
    const most = (): number => 0.999_999;
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, null, NOW, none))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000, 8000,
    ]);
    expect([1, 2, 5].map((n) => retryDelayMs(n, null, NOW, most))).toEqual([375, 750, 6000]);
    expect(retryDelayMs(1, null, NOW, () => 0.5)).toBe(438);
  });

  it("honours Retry-After exactly, in seconds or as a date", () => {
    expect(retryDelayMs(1, "3", NOW, () => 0.5)).toBe(3000);
    expect(retryDelayMs(2, "Mon, 01 Apr 2024 12:00:10 GMT", NOW)).toBe(10_000);
  });

  it("falls back to the backoff when Retry-After is unreadable", () => {
    expect(retryDelayMs(2, "later", NOW, () => 0)).toBe(1000);
  });
});

describe("decideRetry", () => {
  const base = { method: "GET", maxRetries: 2, now: NOW, random: () => 0 } as const;

  it("allows maxRetries retries, then stops", () => {
    const outcome = { kind: "status", status: 503 } as const;
    expect(decideRetry({ ...base, outcome, attempt: 1 })).toEqual({ retry: true, delayMs: 500 });
    expect(decideRetry({ ...base, outcome, attempt: 2 })).toEqual({ retry: true, delayMs: 1000 });
    expect(decideRetry({ ...base, outcome, attempt: 3 })).toEqual({ retry: false, reason: "retries-exhausted" });
  });

  it("never retries with maxRetries 0", () => {
    expect(decideRetry({ ...base, maxRetries: 0, outcome: { kind: "status", status: 429 }, attempt: 1 })).toEqual({
      retry: false,
      reason: "retries-exhausted",
    });
  });

  it("gives a Retry-After longer than the cap back to the caller", () => {
    const outcome = { kind: "status", status: 429 } as const;
    const atCap = String(MAX_RETRY_AFTER_MS / 1000);
    const overCap = String(MAX_RETRY_AFTER_MS / 1000 + 1);
    expect(decideRetry({ ...base, outcome, attempt: 1, retryAfter: atCap })).toEqual({
      retry: true,
      delayMs: MAX_RETRY_AFTER_MS,
    });
    expect(decideRetry({ ...base, outcome, attempt: 1, retryAfter: overCap })).toEqual({
      retry: false,
      reason: "retry-after-too-long",
    });
  });

  it("says when the outcome is not retryable at all, and when only because the method is not idempotent", () => {
    expect(decideRetry({ ...base, method: "POST", outcome: { kind: "status", status: 500 }, attempt: 1 })).toEqual({
      retry: false,
      reason: "not-idempotent",
    });
    expect(decideRetry({ ...base, method: "PATCH", outcome: { kind: "timeout" }, attempt: 1 })).toEqual({
      retry: false,
      reason: "not-idempotent",
    });
    expect(decideRetry({ ...base, method: "GET", outcome: { kind: "status", status: 404 }, attempt: 1 })).toEqual({
      retry: false,
      reason: "not-retryable",
    });
    expect(decideRetry({ ...base, method: "POST", outcome: { kind: "other" }, attempt: 1 })).toEqual({
      retry: false,
      reason: "not-retryable",
    });
  });
});

describe("docs/reliability.md", () => {
  const doc = readFileSync(new URL("../../docs/reliability.md", import.meta.url), "utf8");

  it("states the defaults and constants the code uses", () => {
    expect(doc).toContain(`| \`maxRetries\` | \`${DEFAULT_MAX_RETRIES}\` |`);
    expect(doc).toContain(`| \`timeoutMs\` | \`${DEFAULT_TIMEOUT_MS}\` |`);
    expect(doc).toContain(`| \`INITIAL_RETRY_DELAY_MS\` | ${INITIAL_RETRY_DELAY_MS} ms |`);
    expect(doc).toContain(`| \`MAX_RETRY_DELAY_MS\` | ${MAX_RETRY_DELAY_MS / 1000} s |`);
    expect(doc).toContain(`| \`JITTER_RATIO\` | ${JITTER_RATIO} |`);
    expect(doc).toContain(`| \`MAX_RETRY_AFTER_MS\` | ${MAX_RETRY_AFTER_MS / 1000} s |`);
  });

  it("has the backoff table retryDelayMs computes", () => {
    for (const retry of [1, 2, 3, 4, 5]) {
      const low = retryDelayMs(retry, null, NOW, () => 1);
      const high = retryDelayMs(retry, null, NOW, () => 0);
      expect(doc).toContain(`| ${retry}${retry === 5 ? " and later" : ""} | ${low}–${high} ms |`);
    }
  });
});
