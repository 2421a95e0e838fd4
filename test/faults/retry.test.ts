/**
 * Retry rules at the transport (`withRetry(withTimeout(fetch))`), against a real local
 * server: which failures are sent again, for which methods, how often, and that every
 * attempt carries the whole body. Waits are recorded, not slept (`recordingSleep`).
 */
import { describe, expect, it } from "vitest";
import { ConnectionError, TimeoutError } from "../../src/errors.js";
import type { RequestLogEvent } from "../../src/logger.js";
import { withRetry, type RetryOptions } from "../../src/retry.js";
import { withTimeout, type FetchLike } from "../../src/timeout.js";
import { apiRequest, closedPortUrl, useFaultServer } from "../helpers/fault-server.js";
import { json, networkError, recordingSleep, scriptedFetch } from "../helpers/scripted-fetch.js";

const server = useFaultServer();

/** The transport as the client composes it, with the waits recorded instead of slept. */
function transport(options: RetryOptions & { timeoutMs?: number; fetch?: FetchLike } = {}) {
  const recorder = recordingSleep();
  const fetch = withRetry(withTimeout(options.fetch ?? globalThis.fetch, options.timeoutMs ?? 5_000), {
    random: () => 0,
    sleep: recorder.sleep,
    ...options,
  });
  return { fetch, delays: recorder.delays };
}

const RENEW = "/subscriptions/7/renew/";

describe("429 Too Many Requests", () => {
  it("is retried for a POST, which reaches the handler once, with its whole body each time", async () => {
    server().enqueue({ status: 429, headers: { "retry-after": "0.05" } }, { status: 201, body: { id: 1 } });
    const { fetch, delays } = transport();
    const response = await fetch(apiRequest(server().url, "POST", "/products/", { body: { title: "Mug" } }));
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ id: 1 });
    expect(server().count("POST", "/products/")).toBe(2);
    expect(server().requests.map((r) => r.body)).toEqual(['{"title":"Mug"}', '{"title":"Mug"}']);
    expect(delays).toEqual([50]);
  });

  it("waits for Retry-After given as an HTTP date", async () => {
    const past = new Date(Date.now() - 60_000).toUTCString();
    server().enqueue({ status: 429, headers: { "retry-after": past } });
    const { fetch, delays } = transport();
    expect((await fetch(apiRequest(server().url, "GET", "/users/"))).status).toBe(200);
    expect(delays).toEqual([0]);
  });

  it("is returned to the caller after maxRetries + 1 attempts", async () => {
    const limited = { status: 429, headers: { "retry-after": "0" }, body: { detail: "slow down" } };
    server().enqueue(limited, limited, limited, limited);
    const { fetch } = transport();
    const response = await fetch(apiRequest(server().url, "POST", RENEW));
    expect(response.status).toBe(429);
    expect(await response.json()).toEqual({ detail: "slow down" });
    expect(server().count("POST", RENEW)).toBe(3);
  });

  it("is returned at once when Retry-After is longer than MAX_RETRY_AFTER_MS", async () => {
    server().enqueue({ status: 429, headers: { "retry-after": "120" } });
    const { fetch, delays } = transport();
    const response = await fetch(apiRequest(server().url, "GET", "/users/"));
    expect(response.status).toBe(429);
    expect(server().requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });
});

describe("408 and 5xx", () => {
  for (const method of ["GET", "PUT", "DELETE"]) {
    it(`are retried for ${method}, then the last response is returned`, async () => {
      server().enqueue({ status: 503 }, { status: 408 }, { status: 500, body: { detail: "boom" } });
      const { fetch, delays } = transport();
      const response = await fetch(apiRequest(server().url, method, "/users/1/", method === "PUT" ? { body: {} } : {}));
      expect(response.status).toBe(500);
      expect(server().count(method, "/users/1/")).toBe(3);
      expect(delays).toEqual([500, 1000]);
    });
  }

  for (const [method, path] of [
    ["POST", RENEW],
    ["POST", "/disputes/3/resolve/"],
    ["POST", "/products/"],
    ["PATCH", "/users/1/"],
  ] as const) {
    it(`are never retried for ${method} ${path}`, async () => {
      server().enqueue({ status: 503 }, { status: 200, body: {} });
      const { fetch } = transport();
      expect((await fetch(apiRequest(server().url, method, path, { body: {} }))).status).toBe(503);
      expect(server().count(method, path)).toBe(1);
    });
  }

  it("succeed on a later attempt", async () => {
    server().enqueue({ status: 502 }, { status: 200, body: { id: 1, email: "a@example.com" } });
    const { fetch } = transport();
    const response = await fetch(apiRequest(server().url, "GET", "/users/1/"));
    expect(await response.json()).toEqual({ id: 1, email: "a@example.com" });
    expect(server().requests).toHaveLength(2);
  });

  it("honour a Retry-After on a 503", async () => {
    server().enqueue({ status: 503, headers: { "retry-after": "1" } });
    const { fetch, delays } = transport();
    await fetch(apiRequest(server().url, "GET", "/users/"));
    expect(delays).toEqual([1000]);
  });
});

describe("broken connections", () => {
  it("a reset before the response is retried for GET and ends in ConnectionError", async () => {
    server().enqueue({ destroy: true }, { destroy: true }, { destroy: true });
    const { fetch } = transport();
    const error = await fetch(apiRequest(server().url, "GET", "/users/1/")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).requestSent).toBe("maybe");
    expect(server().count("GET", "/users/1/")).toBe(3);
  });

  it("a reset before the response is never retried for POST", async () => {
    server().enqueue({ destroy: true });
    const { fetch } = transport();
    const error = await fetch(apiRequest(server().url, "POST", RENEW)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).message).toBe(
      "[POST /subscriptions/7/renew/] the connection failed before a response arrived; the request may have reached " +
        "the server (UND_ERR_SOCKET: other side closed). It was not resent automatically: check whether it took " +
        "effect before calling again.",
    );
    expect(server().count("POST", RENEW)).toBe(1);
  });

  it("a body cut off mid-stream is retried for GET, never for POST", async () => {
    const cut = { status: 200, body: { id: 1, title: "a long enough title" }, truncate: true };
    server().enqueue(cut, { status: 200, body: { id: 1 } });
    const { fetch } = transport();
    expect(await (await fetch(apiRequest(server().url, "GET", "/products/variants/1/"))).json()).toEqual({ id: 1 });
    expect(server().requests).toHaveLength(2);

    server().enqueue(cut);
    const error = await fetch(apiRequest(server().url, "POST", "/disputes/3/resolve/", { body: {} })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).requestSent).toBe("yes");
    expect(server().count("POST", "/disputes/3/resolve/")).toBe(1);
  });

  it("a refused connection (nothing sent) is retried even for POST", async () => {
    const url = await closedPortUrl();
    let calls = 0;
    const counting: FetchLike = (request, init) => {
      calls++;
      return globalThis.fetch(request, init);
    };
    const { fetch, delays } = transport({ fetch: counting });
    const error = await fetch(apiRequest(url, "POST", RENEW)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).requestSent).toBe("no");
    expect((error as ConnectionError).message).toMatch(
      /^\[POST \/subscriptions\/7\/renew\/\] could not connect; nothing was sent \(ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:\d+\)\. Check that the API address is right and reachable\.$/,
    );
    expect(calls).toBe(3);
    expect(delays).toEqual([500, 1000]);
  });

  it("a timeout is retried for GET, never for POST", async () => {
    server().enqueue({ hang: true }, { hang: true }, { status: 200, body: {} });
    const { fetch } = transport({ timeoutMs: 100 });
    expect((await fetch(apiRequest(server().url, "GET", "/users/"))).status).toBe(200);
    expect(server().requests).toHaveLength(3);

    server().enqueue({ hang: true });
    const error = await fetch(apiRequest(server().url, "POST", "/products/", { body: { title: "x" } })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(server().count("POST", "/products/")).toBe(1);
  });
});

describe("options", () => {
  it("maxRetries: 0 sends once", async () => {
    server().enqueue({ status: 503 });
    const { fetch } = transport({ maxRetries: 0 });
    expect((await fetch(apiRequest(server().url, "GET", "/users/"))).status).toBe(503);
    expect(server().requests).toHaveLength(1);
  });

  it("maxRetries: 5 sends up to six times, backing off to the 8 s cap", async () => {
    const scripted = scriptedFetch(Array.from({ length: 6 }, () => json(503)));
    const { fetch, delays } = transport({ maxRetries: 5, fetch: scripted.fetch });
    expect((await fetch(apiRequest("http://127.0.0.1:9", "GET", "/users/"))).status).toBe(503);
    expect(scripted.log).toEqual(Array.from({ length: 6 }, () => "GET /users/ → 503"));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000]);
  });

  it("rejects a maxRetries that is not a whole number ≥ 0", () => {
    expect(() => withRetry(globalThis.fetch, { maxRetries: -1 })).toThrow(RangeError);
    expect(() => withRetry(globalThis.fetch, { maxRetries: 1.5 })).toThrow(RangeError);
  });

  it("a refused connection reported by a scripted fetch is told apart from a reset", async () => {
    const scripted = scriptedFetch([networkError("ECONNREFUSED"), networkError("ECONNRESET", "read ECONNRESET"), json(200)]);
    const { fetch } = transport({ fetch: scripted.fetch });
    const error = await fetch(apiRequest("http://127.0.0.1:9", "POST", "/products/", { body: { title: "Mug" } })).catch(
      (e: unknown) => e,
    );
    expect(scripted.log).toEqual(["POST /products/ → throws TypeError: fetch failed", "POST /products/ → throws TypeError: fetch failed"]);
    expect(scripted.bodies).toEqual(['{"title":"Mug"}', '{"title":"Mug"}']);
    expect((error as ConnectionError).requestSent).toBe("maybe");
  });
});

describe("the onAttempt (logger) hook", () => {
  it("reports each attempt with the path template, status, attempt number and the retry plan", async () => {
    server().enqueue({ status: 503, headers: { "x-request-id": "req_1" } }, { status: 200, body: { id: 42 } });
    const events: RequestLogEvent[] = [];
    const { fetch } = transport({
      onAttempt: (event) => events.push(event),
      describe: () => ({ method: "GET", path: "/users/{id}/", scope: "users:read" }),
    });
    await fetch(apiRequest(server().url, "GET", "/users/42/"));
    expect(events.map(({ durationMs, ...rest }) => ({ ...rest, durationMs: typeof durationMs }))).toEqual([
      { method: "GET", path: "/users/{id}/", status: 503, attempt: 1, requestId: "req_1", willRetry: true, retryDelayMs: 500, durationMs: "number" },
      { method: "GET", path: "/users/{id}/", status: 200, attempt: 2, willRetry: false, durationMs: "number" },
    ]);
  });

  it("falls back to the URL pathname (no query) when describe knows nothing, and survives a throwing logger", async () => {
    server().enqueue({ destroy: true });
    const events: RequestLogEvent[] = [];
    const { fetch } = transport({
      maxRetries: 0,
      describe: () => undefined,
      onAttempt: (event) => {
        events.push(event);
        throw new Error("broken logger");
      },
    });
    const error = await fetch(apiRequest(server().url, "GET", "/users/?email=a%40example.com")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ method: "GET", path: "/users/", attempt: 1, willRetry: false });
    expect(events[0]?.error?.name).toBe("ConnectionError");
    expect(events[0]?.status).toBeUndefined();
  });
});
