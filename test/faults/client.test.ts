/**
 * The reliability rules through the real client (`createStoreAdminClient`), against the
 * fault server: the calls that create something reach the server at most once, the token
 * never reaches another origin, and failures come back as the SDK's typed errors.
 */
import { describe, expect, it } from "vitest";
import { createStoreAdminClient } from "../../src/client/client.js";
import {
  type ConnectionError,
  InvalidResponseError,
  PermissionDeniedError,
  RateLimitError,
  RedirectError,
  StoreAdminError,
  TimeoutError,
} from "../../src/core/errors.js";
import { formatLogEvent, type RequestLogEvent } from "../../src/core/logger.js";
import { unwrap } from "../../src/client/unwrap.js";
import { useFaultServer, TEST_TOKEN, type Fault } from "../helpers/fault-server.js";

const server = useFaultServer();
const elsewhere = useFaultServer();

function client(events: RequestLogEvent[] = []) {
  return createStoreAdminClient({
    apiUrl: server().url,
    accessToken: TEST_TOKEN,
    timeoutMs: 200,
    maxRetries: 2,
    logger: (event) => events.push(event),
  });
}

/** The three calls that create something, with what the server must receive at most once. */
const CREATING_CALLS = [
  {
    name: "POST /subscriptions/{id}/renew/",
    path: "/subscriptions/7/renew/",
    call: (store: ReturnType<typeof client>) =>
      store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 7 } } }),
  },
  {
    name: "POST /disputes/{id}/resolve/",
    path: "/disputes/3/resolve/",
    call: (store: ReturnType<typeof client>) =>
      store.POST("/disputes/{id}/resolve/", {
        params: { path: { id: 3 } },
        body: { resolution_other_message: "refunded" },
      }),
  },
  {
    name: "POST /products/",
    path: "/products/",
    call: (store: ReturnType<typeof client>) => store.POST("/products/", { body: { title: "Mug" } }),
  },
] as const;

const FAILURES: Array<[string, Fault, (error: unknown) => void]> = [
  ["500", { status: 500, body: { detail: "boom" } }, () => undefined],
  ["503", { status: 503, headers: { "retry-after": "0" } }, () => undefined],
  ["408", { status: 408 }, () => undefined],
  ["a reset", { destroy: true }, (e) => expect((e as ConnectionError).requestSent).toBe("maybe")],
  ["a timeout", { hang: true }, (e) => expect(e).toBeInstanceOf(TimeoutError)],
  [
    "a body cut off",
    { status: 200, body: { id: 7, status: "active" }, truncate: true },
    (e) => expect((e as ConnectionError).requestSent).toBe("yes"),
  ],
];

describe("calls that create something reach the server at most once", () => {
  for (const { name, path, call } of CREATING_CALLS) {
    for (const [failure, fault, check] of FAILURES) {
      it(`${name} after ${failure}`, async () => {
        server().enqueue(fault, { status: 200, body: { id: 1 } }, { status: 200, body: { id: 1 } });
        const result = await call(client()).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
        if ("error" in result) {
          expect(result.error).toBeInstanceOf(StoreAdminError);
          check(result.error);
        } else {
          expect(result.value.response.status).toBe(fault.status);
        }
        expect(server().count("POST", path)).toBe(1);
      });
    }

    it(`${name} is sent again after a 429, which the server refused unprocessed`, async () => {
      server().enqueue({ status: 429, headers: { "retry-after": "0.05" } }, { status: 200, body: { id: 1 } });
      const { data, response } = await call(client());
      expect(response.status).toBe(200);
      expect(data).toMatchObject({ id: 1 });
      expect(server().count("POST", path)).toBe(2);
    });
  }

  it("an idempotent call is retried: GET /users/{id}/ after two 503s", async () => {
    const events: RequestLogEvent[] = [];
    server().enqueue(
      { status: 503, headers: { "retry-after": "0" } },
      { status: 503, headers: { "retry-after": "0" } },
      { status: 200, body: { id: 42 } },
    );
    const { data } = await client(events).GET("/users/{id}/", { params: { path: { id: 42 } } });
    expect(data).toMatchObject({ id: 42 });
    expect(server().count("GET", "/users/42/")).toBe(3);
    expect(events.map(formatLogEvent).map((line) => line.replace(/ \d+ ms/, " N ms"))).toEqual([
      "GET /users/{id}/ 503 attempt 1 N ms InternalServerError retrying in 0 ms",
      "GET /users/{id}/ 503 attempt 2 N ms InternalServerError retrying in 0 ms",
      "GET /users/{id}/ 200 attempt 3 N ms",
    ]);
  });
});

describe("the token never reaches another origin", () => {
  it("a redirect to a second server is not followed: it receives nothing", async () => {
    server().enqueue({ status: 302, headers: { location: `${elsewhere().url}/users/42/?steal=1` } });
    const error = await client()
      .GET("/users/{id}/", { params: { path: { id: 42 } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectError);
    expect((error as RedirectError).message).toBe(
      `[GET /users/{id}/] 302 redirect to ${elsewhere().url} was not followed; the token was not sent there. ` +
        "If the API moved, update baseUrl/apiUrl.",
    );
    expect(server().requests).toHaveLength(1);
    expect(server().requests[0]?.headers.authorization).toBe(`Bearer ${TEST_TOKEN}`);
    expect(elsewhere().requests).toHaveLength(0);
  });
});

describe("typed errors through the client", () => {
  it("invalid JSON on a 200 is an InvalidResponseError naming the operation", async () => {
    server().enqueue({ status: 200, headers: { "content-type": "application/json" }, body: "{not json" });
    const error = await client()
      .GET("/users/{id}/", { params: { path: { id: 1 } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).message).toMatch(/^\[GET \/users\/\{id\}\/\] .*it is not valid JSON\./);
  });

  it("a Retry-After beyond the cap is returned at once as a RateLimitError", async () => {
    server().enqueue({ status: 429, headers: { "retry-after": "600" }, body: { detail: "Too many requests" } });
    const error = await unwrap(client().POST("/subscriptions/{id}/renew/", { params: { path: { id: 7 } } })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(600_000);
    expect((error as RateLimitError).message).toBe(
      "[POST /subscriptions/{id}/renew/] 429 Too Many Requests: Too many requests. Rate limited: retry after 600 s.",
    );
    expect(server().requests).toHaveLength(1);
  });

  it("a Retry-After beyond the cap holds no other call of the client: the next call is sent, and meets its own 429", async () => {
    server().enqueue(
      { status: 429, headers: { "retry-after": "60.001" } },
      { status: 429, headers: { "retry-after": "60.001" } },
    );
    const store = client();
    const first = await store.GET("/users/{id}/", { params: { path: { id: 1 } } });
    const second = await store.GET("/users/{id}/", { params: { path: { id: 2 } } });
    expect([first.response.status, second.response.status]).toEqual([429, 429]);
    expect(server().requests.map((r) => r.path)).toEqual(["/users/1/", "/users/2/"]);
  });

  it("a 403 names the scope the operation requires, and the token stays out of it", async () => {
    server().enqueue({ status: 403, body: { detail: `token Bearer ${TEST_TOKEN} lacks scope` } });
    const error = await unwrap(client().GET("/users/{id}/", { params: { path: { id: 1 } } })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect((error as PermissionDeniedError).message).toBe(
      '[GET /users/{id}/] 403 Forbidden: token Bearer [REDACTED] lacks scope. The access token lacks the scope "users:read" ' +
        "this operation requires: use a token that holds it.",
    );
    expect(JSON.stringify(error)).not.toContain(TEST_TOKEN);
  });
});
