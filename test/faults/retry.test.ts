/**
 * Retry rules of the client (`src/client/request.ts` with `src/core/retry-policy.ts`), against a real
 * local server: which failures are sent again, for which methods, how often, and that every
 * attempt carries the whole body. Waits are recorded, not slept (`buildClient` with
 * `recordingSleep`), and the jitter is off (`random: () => 0`).
 *
 * The API has no DELETE operation; the idempotent methods it has are GET and PUT (DELETE's
 * rule is asserted in test/unit/retry-policy.test.ts).
 */
import { describe, expect, it } from "vitest";
import { buildClient } from "../../src/client/client.js";
import { ConnectionError, TimeoutError } from "../../src/core/errors.js";
import type { RequestLogEvent } from "../../src/core/logger.js";
import type { FetchLike } from "../../src/core/call-types.js";
import type { StoreAdminClient } from "../../src/core/types.js";
import { closedPortUrl, TEST_TOKEN, useFaultServer } from "../helpers/fault-server.js";
import { json, networkError, recordingSleep, scriptedFetch } from "../helpers/scripted-fetch.js";
import { rejection } from "../helpers/outcome.js";

const server = useFaultServer();

interface ClientOptions {
  apiUrl?: string;
  maxRetries?: number;
  timeoutMs?: number;
  fetch?: FetchLike;
  logger?: (event: RequestLogEvent) => void;
}

/** The client against the fault server, with the waits between attempts recorded instead of slept. */
function client(options: ClientOptions = {}): { store: StoreAdminClient; delays: number[] } {
  const recorder = recordingSleep();
  const store = buildClient(
    { apiUrl: server().url, accessToken: TEST_TOKEN, timeoutMs: 5_000, ...options },
    { sleep: recorder.sleep, random: () => 0 },
  );
  return { store, delays: recorder.delays };
}

const RENEW = "/subscriptions/7/renew/";
const renew = (store: StoreAdminClient) => store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 7 } } });

describe("429 Too Many Requests", () => {
  it("is retried for a POST, which reaches the handler once, with its whole body each time", async () => {
    server().enqueue({ status: 429, headers: { "retry-after": "0.05" } }, { status: 201, body: { id: 1 } });
    const { store, delays } = client();
    const { data, error, response } = await store.POST("/products/", { body: { title: "Mug" } });
    expect(response.status).toBe(201);
    expect(error).toBeUndefined();
    expect(data).toEqual({ id: 1 });
    expect(server().count("POST", "/products/")).toBe(2);
    expect(server().requests.map((r) => r.body)).toEqual(['{"title":"Mug"}', '{"title":"Mug"}']);
    expect(server().requests.map((r) => r.headers["content-type"])).toEqual(["application/json", "application/json"]);
    // The 429 paused the client for its Retry-After (50 ms): the retry waits in that pause, in
    // turn with the client's other calls; the sleep is only what the pause does not cover.
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeLessThan(50);
  });

  it("waits for Retry-After given as an HTTP date", async () => {
    const past = new Date(Date.now() - 60_000).toUTCString();
    server().enqueue({ status: 429, headers: { "retry-after": past } });
    const { store, delays } = client();
    const { data, response } = await store.GET("/users/");
    expect(response.status).toBe(200);
    expect(data).toEqual({ ok: true });
    expect(server().count("GET", "/users/")).toBe(2);
    expect(delays).toEqual([0]);
  });

  it("is returned to the caller after maxRetries + 1 attempts", async () => {
    const limited = { status: 429, headers: { "retry-after": "0" }, body: { detail: "slow down" } };
    server().enqueue(limited, limited, limited, limited);
    const { store, delays } = client();
    const { data, error, response } = await renew(store);
    expect(response.status).toBe(429);
    expect(data).toBeUndefined();
    expect(error).toEqual({ detail: "slow down" });
    expect(server().count("POST", RENEW)).toBe(3);
    expect(delays).toEqual([0, 0]);
  });

  it("is returned at once when Retry-After is longer than MAX_RETRY_AFTER_MS", async () => {
    server().enqueue({ status: 429, headers: { "retry-after": "120" } });
    const { store, delays } = client();
    const { response } = await store.GET("/users/");
    expect(response.status).toBe(429);
    expect(server().requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });
});

describe("408 and 5xx", () => {
  const IDEMPOTENT = [
    {
      name: "GET /users/{id}/",
      method: "GET",
      call: (store: StoreAdminClient) => store.GET("/users/{id}/", { params: { path: { id: 1 } } }),
    },
    {
      name: "PUT /users/{id}/",
      method: "PUT",
      call: (store: StoreAdminClient) =>
        store.PUT("/users/{id}/", { params: { path: { id: 1 } }, body: { first_name: "Ada" } }),
    },
  ] as const;
  for (const { name, method, call } of IDEMPOTENT) {
    it(`are retried for ${name}, then the last response is returned`, async () => {
      server().enqueue({ status: 503 }, { status: 408 }, { status: 500, body: { detail: "boom" } });
      const { store, delays } = client();
      const { error, response } = await call(store);
      expect(response.status).toBe(500);
      expect(error).toEqual({ detail: "boom" });
      expect(server().count(method, "/users/1/")).toBe(3);
      expect(delays).toEqual([500, 1000]);
      if (method === "PUT") expect(server().requests.map((r) => r.body)).toEqual(Array(3).fill('{"first_name":"Ada"}'));
    });
  }

  const NOT_IDEMPOTENT = [
    { method: "POST", path: RENEW, call: renew },
    {
      method: "POST",
      path: "/disputes/3/resolve/",
      call: (store: StoreAdminClient) =>
        store.POST("/disputes/{id}/resolve/", {
          params: { path: { id: 3 } },
          body: { resolution_other_message: "refunded" },
        }),
    },
    {
      method: "POST",
      path: "/products/",
      call: (store: StoreAdminClient) => store.POST("/products/", { body: { title: "Mug" } }),
    },
    {
      method: "PATCH",
      path: "/users/1/",
      call: (store: StoreAdminClient) =>
        store.PATCH("/users/{id}/", { params: { path: { id: 1 } }, body: { first_name: "Ada" } }),
    },
  ] as const;
  for (const { method, path, call } of NOT_IDEMPOTENT) {
    for (const status of [503, 408] as const) {
      it(`are never retried for ${method} ${path} (${status})`, async () => {
        server().enqueue({ status }, { status: 200, body: {} });
        const { store, delays } = client();
        expect((await call(store)).response.status).toBe(status);
        expect(server().count(method, path)).toBe(1);
        expect(delays).toEqual([]);
      });
    }
  }

  it("succeed on a later attempt", async () => {
    server().enqueue({ status: 502 }, { status: 200, body: { id: 1, email: "a@example.com" } });
    const { store } = client();
    const { data } = await store.GET("/users/{id}/", { params: { path: { id: 1 } } });
    expect(data).toEqual({ id: 1, email: "a@example.com" });
    expect(server().requests).toHaveLength(2);
  });

  it("honour a Retry-After on a 503", async () => {
    server().enqueue({ status: 503, headers: { "retry-after": "1" } });
    const { store, delays } = client();
    expect((await store.GET("/users/")).response.status).toBe(200);
    expect(delays).toEqual([1000]);
    expect(server().requests).toHaveLength(2);
  });
});

describe("broken connections", () => {
  it("a reset before the response is retried for GET and ends in ConnectionError", async () => {
    server().enqueue({ destroy: true }, { destroy: true }, { destroy: true });
    const { store, delays } = client();
    const error = await rejection(store.GET("/users/{id}/", { params: { path: { id: 1 } } }));
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).requestSent).toBe("maybe");
    expect(server().count("GET", "/users/1/")).toBe(3);
    expect(delays).toEqual([500, 1000]);
  });

  it("a reset before the response is never retried for POST", async () => {
    server().enqueue({ destroy: true });
    const { store } = client();
    const error = await rejection(renew(store));
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).message).toBe(
      "[POST /subscriptions/{id}/renew/] the connection broke before a response; the server may have the request " +
        "(UND_ERR_SOCKET: other side closed). It was not resent: check whether it took effect before calling again.",
    );
    expect(server().count("POST", RENEW)).toBe(1);
  });

  it("a body cut off mid-stream is retried for GET, never for POST", async () => {
    const cut = { status: 200, body: { id: 1, title: "a long enough title" }, truncate: true };
    server().enqueue(cut, { status: 200, body: { id: 1 } });
    const { store } = client();
    const { data } = await store.GET("/products/variants/{id}/", { params: { path: { id: 1 } } });
    expect(data).toEqual({ id: 1 });
    expect(server().requests).toHaveLength(2);

    server().enqueue(cut, { status: 200, body: { id: 3 } });
    const error = await rejection(
      store.POST("/disputes/{id}/resolve/", {
        params: { path: { id: 3 } },
        body: { resolution_other_message: "refunded" },
      }),
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).requestSent).toBe("yes");
    expect(server().count("POST", "/disputes/3/resolve/")).toBe(1);
  });

  it("a body cut off on every attempt of a GET ends in ConnectionError (requestSent yes) after maxRetries + 1", async () => {
    const cut = { status: 200, body: { id: 1, title: "a long enough title" }, truncate: true };
    server().enqueue(cut, cut, cut, { status: 200, body: { id: 1 } });
    const { store, delays } = client({ maxRetries: 2 });
    const error = await rejection(store.GET("/products/variants/{id}/", { params: { path: { id: 1 } } }));
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).requestSent).toBe("yes");
    expect(server().count("GET", "/products/variants/1/")).toBe(3);
    expect(delays).toEqual([500, 1000]);
  });

  it("a refused connection (nothing sent) is retried even for POST", async () => {
    const url = await closedPortUrl();
    let calls = 0;
    const counting: FetchLike = (input, init) => {
      calls++;
      return globalThis.fetch(input, init);
    };
    const { store, delays } = client({ apiUrl: url, fetch: counting });
    const error = await rejection(renew(store));
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).requestSent).toBe("no");
    expect((error as ConnectionError).message).toMatch(
      /^\[POST \/subscriptions\/\{id\}\/renew\/\] could not connect; nothing was sent \(ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:\d+\)\. Check the API address\.$/,
    );
    expect(calls).toBe(3);
    expect(delays).toEqual([500, 1000]);
  });

  it("a timeout is retried for GET, never for POST", async () => {
    server().enqueue({ hang: true }, { hang: true }, { status: 200, body: {} });
    const { store } = client({ timeoutMs: 250 });
    expect((await store.GET("/users/")).response.status).toBe(200);
    expect(server().requests).toHaveLength(3);

    server().enqueue({ hang: true }, { status: 201, body: { id: 1 } });
    const error = await rejection(store.POST("/products/", { body: { title: "x" } }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(server().count("POST", "/products/")).toBe(1);
  });
});

describe("options", () => {
  it("maxRetries: 0 sends once", async () => {
    server().enqueue({ status: 503 });
    const { store, delays } = client({ maxRetries: 0 });
    expect((await store.GET("/users/")).response.status).toBe(503);
    expect(server().requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("maxRetries: 5 sends up to six times, backing off to the 8 s cap", async () => {
    const scripted = scriptedFetch(Array.from({ length: 7 }, () => json(503)));
    const { store, delays } = client({ apiUrl: "http://127.0.0.1:9", maxRetries: 5, fetch: scripted.fetch });
    expect((await store.GET("/users/")).response.status).toBe(503);
    expect(scripted.log).toEqual(Array.from({ length: 6 }, () => "GET /users/ → 503"));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000]);
  });

  // maxRetries that are not whole numbers ≥ 0 are refused with a TypeError by
  // createStoreAdminClient: test/unit/client-options.test.ts.

  it("a refused connection reported by a scripted fetch is told apart from a reset", async () => {
    const scripted = scriptedFetch([
      networkError("ECONNREFUSED"),
      networkError("ECONNRESET", "read ECONNRESET"),
      json(200),
    ]);
    const { store, delays } = client({ apiUrl: "http://127.0.0.1:9", fetch: scripted.fetch });
    const error = await rejection(store.POST("/products/", { body: { title: "Mug" } }));
    expect(scripted.log).toEqual([
      "POST /products/ → throws TypeError: fetch failed",
      "POST /products/ → throws TypeError: fetch failed",
    ]);
    expect(scripted.bodies).toEqual(['{"title":"Mug"}', '{"title":"Mug"}']);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).requestSent).toBe("maybe");
    expect(delays).toEqual([500]);
  });

  it("a retry sends the bytes serialized for the first attempt, even if the caller changes the body meanwhile", async () => {
    const scripted = scriptedFetch([json(429, {}, { "retry-after": "0" }), json(201, { id: 1 })]);
    const body = { title: "Mug" };
    const store = buildClient(
      { apiUrl: "http://127.0.0.1:9", accessToken: TEST_TOKEN, fetch: scripted.fetch },
      {
        random: () => 0,
        sleep: async () => {
          body.title = "Changed";
        },
      },
    );
    const { data } = await store.POST("/products/", { body });
    expect(data).toEqual({ id: 1 });
    expect(scripted.bodies).toEqual(['{"title":"Mug"}', '{"title":"Mug"}']);
  });

  it("a middleware sees, and fetch receives, a real Request on every attempt, with the whole body each time", async () => {
    const scripted = scriptedFetch([json(429, {}, { "retry-after": "0" }), json(201, { id: 1 })]);
    const { store } = client({ apiUrl: "http://127.0.0.1:9", fetch: scripted.fetch });
    const seen: string[] = [];
    store.use({ onRequest: ({ request }) => void seen.push(`${request.method} ${new URL(request.url).pathname}`) });
    const { data } = await store.POST("/products/", { body: { title: "Mug" } });
    expect(data).toEqual({ id: 1 });
    expect(seen).toEqual(["POST /products/", "POST /products/"]);
    expect(scripted.calls.map((call) => call.input)).toEqual(["request", "request"]);
    expect(scripted.bodies).toEqual(['{"title":"Mug"}', '{"title":"Mug"}']);
  });
});

describe("the logger", () => {
  it("reports each attempt with the path template, status, attempt number, request id and the retry plan", async () => {
    server().enqueue({ status: 503, headers: { "x-request-id": "req_1" } }, { status: 200, body: { id: 42 } });
    const events: RequestLogEvent[] = [];
    const { store } = client({ logger: (event) => events.push(event) });
    const { data } = await store.GET("/users/{id}/", { params: { path: { id: 42 } } });
    expect(data).toEqual({ id: 42 });
    expect(events.map(({ durationMs, ...rest }) => ({ ...rest, durationMs: typeof durationMs }))).toEqual([
      {
        method: "GET",
        path: "/users/{id}/",
        status: 503,
        attempt: 1,
        requestId: "req_1",
        error: { name: "InternalServerError", message: "" },
        willRetry: true,
        retryDelayMs: 500,
        durationMs: "number",
      },
      { method: "GET", path: "/users/{id}/", status: 200, attempt: 2, willRetry: false, durationMs: "number" },
    ]);
  });

  it("names the path template without the query, reports a failed attempt's error, and survives a throwing logger", async () => {
    server().enqueue({ destroy: true });
    const events: RequestLogEvent[] = [];
    const { store } = client({
      maxRetries: 0,
      logger: (event) => {
        events.push(event);
        throw new Error("broken logger");
      },
    });
    const error = await rejection(store.GET("/users/", { params: { query: { email: "a@example.com" } } }));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(server().requests.map((r) => r.url)).toEqual(["/users/?email=a%40example.com"]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ method: "GET", path: "/users/", attempt: 1, willRetry: false });
    expect(events[0]?.error?.name).toBe("ConnectionError");
    expect(events[0]?.error?.message).toBe((error as ConnectionError).message);
    expect(events[0]?.status).toBeUndefined();
    expect(events[0]?.retryDelayMs).toBeUndefined();
  });

  it("a throwing logger does not fail a successful call, nor stop its retries", async () => {
    server().enqueue({ status: 503 }, { status: 200, body: { id: 7 } });
    const events: RequestLogEvent[] = [];
    const { store } = client({
      logger: (event) => {
        events.push(event);
        throw new Error("broken logger");
      },
    });
    const { data, response } = await store.GET("/users/{id}/", { params: { path: { id: 7 } } });
    expect(response.status).toBe(200);
    expect(data).toEqual({ id: 7 });
    expect(events.map((e) => [e.path, e.status, e.attempt, e.willRetry])).toEqual([
      ["/users/{id}/", 503, 1, true],
      ["/users/{id}/", 200, 2, false],
    ]);
  });
});
