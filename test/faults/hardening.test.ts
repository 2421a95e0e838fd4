/**
 * What an attack review broke, each against a fault server on 127.0.0.1 that counts the
 * requests it receives: loggers that throw or reject, a token function that never returns,
 * tokens echoed back by the server, short tokens, `__proto__` in a body, the `headers` option,
 * bodies on a GET, dot segments and unknown templates, query keys, a doubled `Retry-After`,
 * misleading messages, endless empty pages, and the per-call options.
 */
import { inspect } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildClient, createStoreAdminClient } from "../../src/client/client.js";
import {
  ApiError,
  InternalServerError,
  InvalidResponseError,
  NotFoundError,
  PaginationError,
  RateLimitError,
  StoreAdminError,
  TimeoutError,
} from "../../src/core/errors.js";
import { formatLogEvent, type RequestLogEvent } from "../../src/core/logger.js";
import { parseRetryAfterMs } from "../../src/core/retry-policy.js";
import type { StoreAdminClient, StoreAdminClientOptions } from "../../src/core/types.js";
import { unwrap } from "../../src/client/unwrap.js";
import { TEST_TOKEN, useFaultServer } from "../helpers/fault-server.js";
import { recordingSleep } from "../helpers/scripted-fetch.js";
import { rejection, everyRendering } from "../helpers/outcome.js";

const server = useFaultServer();

type Overrides = Partial<Omit<StoreAdminClientOptions, "baseUrl" | "apiUrl">>;

/** A client of the fault server whose waits between attempts are recorded, not slept. */
function client(overrides: Overrides = {}): StoreAdminClient {
  return buildClient(
    { apiUrl: server().url, accessToken: TEST_TOKEN, timeoutMs: 2_000, ...overrides } as StoreAdminClientOptions,
    { sleep: recordingSleep().sleep, random: () => 0 },
  );
}

const getUser = (store: StoreAdminClient, init: Record<string, unknown> = {}) =>
  store.GET("/users/{id}/", { params: { path: { id: 1 } }, ...init } as never);

/** The unhandled rejections seen while a test runs. */
function useUnhandledRejections(): () => unknown[] {
  const seen: unknown[] = [];
  const record = (reason: unknown): void => void seen.push(reason);
  beforeEach(() => {
    seen.length = 0;
    process.on("unhandledRejection", record);
  });
  afterEach(() => void process.off("unhandledRejection", record));
  return () => seen;
}

const turns = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("a logger never changes a call's outcome or the process", () => {
  const unhandled = useUnhandledRejections();

  it.each([
    [
      "throws",
      () => {
        throw new Error("sync logger failure");
      },
    ],
    ["returns a rejected promise", () => Promise.reject(new Error("async logger failure"))],
    [
      "is an async function that throws",
      async () => {
        throw new Error("async logger failure");
      },
    ],
  ])("a logger that %s: the call still succeeds and no rejection is left unhandled", async (_name, logger) => {
    server().enqueue({ status: 503, body: { detail: "busy" } }, { status: 200, body: { id: 1 } });
    const { data } = await getUser(client({ logger: logger as never }));
    expect(data).toEqual({ id: 1 });
    expect(server().count("GET", "/users/1/")).toBe(2);
    await turns();
    expect(unhandled()).toEqual([]);
  });
});

describe("a wait on accessToken() ends with the caller's signal, or after timeoutMs", () => {
  const activeTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

  it("a token function that never returns: the caller's signal rejects the call, nothing is sent, no timer is left", async () => {
    const timersBefore = activeTimers();
    const store = client({ accessToken: () => new Promise<string>(() => {}), timeoutMs: 60_000 });
    const started = performance.now();
    const error = await rejection(getUser(store, { signal: AbortSignal.timeout(100) }));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect((error as DOMException).name).toBe("TimeoutError");
    expect(error).not.toBeInstanceOf(StoreAdminError); // the signal's own reason
    expect(server().requests).toHaveLength(0);
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
  });

  it("without a signal, timeoutMs bounds the wait: a TimeoutError that says the request was not sent", async () => {
    const store = client({ accessToken: () => new Promise<string>(() => {}), timeoutMs: 150 });
    const error = await rejection(getUser(store));
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe(
      "[GET /users/{id}/] timed out after 150 ms (timeoutMs) waiting for accessToken(); the request was not sent.",
    );
    expect(server().requests).toHaveLength(0);
  });

  it("a token that arrives in time is used as before", async () => {
    const store = client({ accessToken: async () => "late-token", timeoutMs: 500 });
    await getUser(store);
    expect(server().requests[0]?.headers.authorization).toBe("Bearer late-token");
  });
});

describe("the token appears nowhere reachable from an error or a log event, whatever the server echoes", () => {
  // A prefix no exact match would find: the start of the token, as JSON.parse quotes it.
  const prefix = TEST_TOKEN.slice(0, 6);
  const deep = (levels: number): unknown =>
    levels === 0 ? { token: `Bearer ${TEST_TOKEN}` } : { inner: deep(levels - 1) };

  it("echoed in x-request-id, other headers, 20 levels deep in the body and as a JSON key", async () => {
    const events: RequestLogEvent[] = [];
    server().enqueue({
      status: 403,
      headers: { "x-request-id": `Bearer ${TEST_TOKEN}`, "x-echo": TEST_TOKEN, "set-cookie": `session=${TEST_TOKEN}` },
      body: {
        detail: `token ${TEST_TOKEN} refused`,
        nested: deep(20),
        [TEST_TOKEN]: "as a key",
        list: [[[[[[[[[[TEST_TOKEN]]]]]]]]]],
      },
    });
    const store = client({ logger: (event) => void events.push(event) });
    const error = await rejection(unwrap(getUser(store)));
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.requestId).toBe("Bearer [REDACTED]");
    expect(apiError.headers.get("x-echo")).toBe("[REDACTED]");
    expect(JSON.stringify(apiError.body)).toContain("[REDACTED]");
    expect(JSON.stringify(apiError.body)).not.toContain(prefix);
    expect(everyRendering(error)).not.toContain(prefix);
    expect(inspect(apiError.headers, { depth: null, showHidden: true })).not.toContain(prefix);
    expect(events).toHaveLength(1);
    expect(events[0]?.requestId).toBe("Bearer [REDACTED]");
    expect(JSON.stringify(events) + events.map(formatLogEvent).join("\n")).not.toContain(prefix);
  });

  it("a 2xx body that is not JSON and starts with the token: no prefix of it in the cause chain", async () => {
    server().enqueue({
      status: 200,
      headers: { "content-type": "application/json" },
      body: `${TEST_TOKEN} is not json`,
    });
    const error = await rejection(getUser(client()));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(((error as Error).cause as Error).message).toMatch(/^the body is not valid JSON/);
    expect(everyRendering(error)).not.toContain(prefix);
  });

  it("a redirect whose Location carries the token in its host: the origin named is scrubbed", async () => {
    server().enqueue({ status: 302, headers: { location: `http://${TEST_TOKEN}.example.com/` } });
    const error = await rejection(getUser(client()));
    expect(everyRendering(error)).not.toContain(prefix);
    expect(server().requests).toHaveLength(1);
  });
});

describe("redaction applies to what came from outside, never to the SDK's own words", () => {
  it('with accessToken "e", messages stay readable; a token that short is scrubbed only where it stands whole', async () => {
    const events: RequestLogEvent[] = [];
    server().enqueue({ status: 404, body: { detail: "gone", e: "e", note: "token e refused", "e-mail": "E" } });
    const store = client({ accessToken: "e", logger: (event) => void events.push(event) });
    const error = await rejection(unwrap(getUser(store)));
    // Inside a word it is no secret: keys and words survive; a whole value or word is scrubbed, in any case.
    expect((error as ApiError).body).toEqual({
      detail: "gone",
      "[REDACTED]": "[REDACTED]",
      note: "token [REDACTED] refused",
      "[REDACTED]-mail": "[REDACTED]",
    });
    expect((error as Error).message).toBe(
      `[GET /users/{id}/] 404 Not Found: gone. Check the ids in the path, and that baseUrl (or apiUrl) is the store's API address (requested /users/1/).`,
    );
    server().enqueue({ hang: true });
    const timeout = await rejection(
      getUser(client({ accessToken: "e", timeoutMs: 100, maxRetries: 0, logger: (event) => void events.push(event) })),
    );
    expect((timeout as Error).message).toMatch(
      /^\[GET \/users\/\{id\}\/\] timed out after 100 ms \(timeoutMs per attempt, body included\)\. Raise timeoutMs/,
    );
    expect(events.at(-1)?.error?.message).toBe((timeout as Error).message);
  });
});

describe("parsed data never sets a prototype", () => {
  it('an error body with "__proto__" keeps it as an own key', async () => {
    server().enqueue({
      status: 400,
      body: '{"detail":"no","__proto__":{"isAdmin":true}}',
      headers: { "content-type": "application/json" },
    });
    const error = (await rejection(unwrap(getUser(client())))) as ApiError;
    const body = error.body as Record<string, unknown>;
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(body.isAdmin).toBeUndefined();
    expect(Object.hasOwn(body, "__proto__")).toBe(true);
    expect(error.message).toContain("400 Bad Request: no.");
  });
});

describe("the client's headers option", () => {
  it.each([
    ["an object", { "X-Trace": "t1" }],
    ["a Headers object", new Headers({ "X-Trace": "t1" })],
    ["a Map", new Map([["X-Trace", "t1"]])],
    ["an array of pairs", [["X-Trace", "t1"]]],
  ])("accepts %s and sends it", async (_name, headers) => {
    await getUser(client({ headers: headers as never }));
    expect(server().requests[0]?.headers["x-trace"]).toBe("t1");
    expect(server().requests[0]?.headers.authorization).toBe(`Bearer ${TEST_TOKEN}`);
  });

  it.each([
    ["a string", "ab", /^headers must be an object, a Headers or an array of \[name, value\] pairs, got string\.$/],
    ["an array that is not of pairs", ["a", "b"], /^headers: each array entry must be a \[name, value\] pair\.$/],
    ["a name a header cannot have", { "bad name": "x" }, /^headers: /],
  ])("refuses %s at creation with a TypeError", (_name, headers, message) => {
    expect(() => client({ headers: headers as never })).toThrow(TypeError);
    expect(() => client({ headers: headers as never })).toThrow(message);
  });

  it.each([
    ["Authorization", "Bearer other", "the client sets it from accessToken"],
    ["x-store-api-version", "1999-01-01", "the client sends the version it was built for (2024-04-01)"],
    ["Content-Length", "0", "fetch computes it (a wrong value stalls the request)"],
    ["Transfer-Encoding", "chunked", "fetch sets it"],
    ["Host", "evil.example", "it comes from baseUrl/apiUrl"],
  ])("refuses %s at creation, saying why", (name, value, why) => {
    expect(() => client({ headers: { [name]: value } })).toThrow(new TypeError(`headers may not set ${name}: ${why}.`));
    expect(() => client({ headers: new Headers({ [name]: value }) as never })).toThrow(TypeError);
  });

  it("refuses the same headers per call, before sending", async () => {
    const store = client();
    const error = await rejection(getUser(store, { headers: { authorization: "Bearer other" } }));
    expect(error).toEqual(
      new TypeError(
        "[GET /users/{id}/] the per-call headers may not set authorization: the client sets it from accessToken.",
      ),
    );
    await expect(getUser(store, { headers: [["Content-Length", "0"]] })).rejects.toThrow(TypeError);
    await expect(getUser(store, { params: { path: { id: 1 }, header: { Host: "x" } } })).rejects.toThrow(
      /params\.header may not set Host/,
    );
    expect(server().requests).toHaveLength(0);
  });
});

describe("requests that cannot be what the caller meant are refused before sending", () => {
  it("a GET or HEAD with a body", async () => {
    const store = client();
    await expect(getUser(store, { body: { q: 1 } })).rejects.toThrow(
      new TypeError(
        "[GET /users/{id}/] a GET request cannot have a body; the request was not sent. Pass filters in params.query.",
      ),
    );
    await expect(
      store.HEAD("/users/{id}/" as never, { params: { path: { id: 1 } }, body: "x" } as never),
    ).rejects.toThrow(TypeError);
    expect(server().requests).toHaveLength(0);
  });

  it("a path template with . or .. segments, and any template outside the contract", async () => {
    const store = client();
    await expect(store.GET("/users/../../admin/secrets/" as never)).rejects.toThrow(
      new TypeError(
        "[GET /users/../../admin/secrets/] is not an operation of the API contract; the request was not sent. " +
          'Pass a path template such as "/users/{id}/" and the values in params.path.',
      ),
    );
    await expect(store.GET("/customers/" as never)).rejects.toThrow(
      /^\[GET \/customers\/\] is not an operation of the API contract; the request was not sent\./,
    );
    await expect(store.DELETE("/users/{id}/" as never, { params: { path: { id: 1 } } } as never)).rejects.toThrow(
      TypeError,
    );
    expect(server().requests).toHaveLength(0);
  });

  it("nothing in a query key adds a parameter", async () => {
    await client().GET("/users/", {
      params: { query: { "x&cursor=EVIL": 1, search: { a: 1, "b&cursor=EVIL": 2 } } },
    } as never);
    const sent = new URL(server().requests[0]!.url, server().url).searchParams;
    expect(sent.has("cursor")).toBe(false);
    expect([...sent.keys()]).toEqual(["x&cursor=EVIL", "search[a]", "search[b&cursor=EVIL]"]);
    expect(sent.get("search[b&cursor=EVIL]")).toBe("2");
  });
});

describe("Retry-After joined by a proxy", () => {
  it('"3600, 3600" is read as its first value: the GET is not resent, the wait is returned to the caller', async () => {
    server().enqueue({ status: 429, headers: { "retry-after": "3600, 3600" }, body: { detail: "slow down" } });
    const error = (await rejection(unwrap(getUser(client())))) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(3_600_000);
    expect(server().count("GET", "/users/1/")).toBe(1);
    expect(
      parseRetryAfterMs(
        "Wed, 21 Oct 2015 07:28:00 GMT, Wed, 21 Oct 2015 07:28:00 GMT",
        Date.parse("Wed, 21 Oct 2015 07:27:00 GMT"),
      ),
    ).toBe(60_000);
  });

  it('a 503 with "3600, 3600" is sent once, not three times', async () => {
    server().enqueue({ status: 503, headers: { "retry-after": "3600, 3600" }, body: { detail: "down" } });
    await expect(unwrap(getUser(client()))).rejects.toBeInstanceOf(InternalServerError);
    expect(server().count("GET", "/users/1/")).toBe(1);
  });
});

describe("messages that point the right way", () => {
  it("a baseUrl that already ends in /api/admin is refused at creation, with the fix", () => {
    expect(() =>
      createStoreAdminClient({ baseUrl: "https://shop.example.com/api/admin/", accessToken: TEST_TOKEN }),
    ).toThrow(
      new TypeError(
        "baseUrl ends in /api/admin, which the client appends itself (requests would go to …/api/admin/api/admin/). " +
          "Pass the store's address without it, or pass this URL as apiUrl.",
      ),
    );
  });

  it("a 404 names the requested path and suggests a wrong address too; never the token", async () => {
    server().enqueue({ status: 404, body: { detail: "Not found." } });
    const error = await rejection(unwrap(getUser(client())));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toBe(
      "[GET /users/{id}/] 404 Not Found: Not found. Check the ids in the path, and that baseUrl (or apiUrl) is the store's API address (requested /users/1/).",
    );
  });

  it("an HTML error page is summarised by its title, bounded, never pasted", async () => {
    const page = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>${"<p>filler text</p>".repeat(5_000)}</body></html>`;
    server().enqueue({ status: 502, headers: { "content-type": "text/html" }, body: page });
    const error = await rejection(unwrap(getUser(client({ maxRetries: 0 }))));
    expect((error as Error).message).toBe(
      '[GET /users/{id}/] 502 Bad Gateway: the server sent an HTML page, not JSON ("502 Bad Gateway"). The server failed; try again later.',
    );
  });

  it("an HTML page without a title is summarised by its first text", async () => {
    server().enqueue({
      status: 500,
      body: `<html><body><h1>Service down</h1><p>${"x".repeat(10_000)}</p></body></html>`,
    });
    const error = await rejection(unwrap(getUser(client({ maxRetries: 0 }))));
    expect((error as Error).message).toMatch(
      /^\[GET \/users\/\{id\}\/\] 500 Internal Server Error: the server sent an HTML page, not JSON \("Service down x+…"\)\. /,
    );
    expect((error as Error).message.length).toBeLessThan(250);
  });
});

describe("paginate() over a long run of empty pages", () => {
  it("stops after 50 empty pages in a row with a PaginationError, having sent 50 requests", async () => {
    const walk = await startEndlessEmptyPages();
    const error = await rejection(
      (async () => {
        for await (const _ of client().paginate("/users/")) void _;
      })(),
    );
    expect(error).toBeInstanceOf(PaginationError);
    expect((error as PaginationError).pagesRead).toBe(50);
    expect((error as Error).message).toBe(
      "[GET /users/] pagination stopped after 50 page(s): 50 empty pages in a row, each with a next link.",
    );
    expect(walk()).toBe(50);
  });

  it("empty pages between full ones do not count against the limit", async () => {
    let index = 0;
    const fallback = () => {
      const i = index++;
      return {
        status: 200,
        body: {
          next: i < 120 ? `${server().url}/users/?cursor=c${i + 1}` : null,
          previous: null,
          results: i % 40 === 39 ? [{ id: i }] : [],
        },
      };
    };
    for (let i = 0; i < 121; i++) server().enqueue(fallback());
    const items: unknown[] = [];
    for await (const item of client().paginate("/users/")) items.push(item);
    expect(items).toHaveLength(3);
    expect(server().count("GET", "/users/")).toBe(121);
  });

  /** Queues empty pages, each pointing to a fresh cursor, and returns the count of page requests. */
  async function startEndlessEmptyPages(): Promise<() => number> {
    for (let i = 0; i < 60; i++) {
      server().enqueue({
        status: 200,
        body: { next: `${server().url}/users/?cursor=c${i + 1}`, previous: null, results: [] },
      });
    }
    return () => server().count("GET", "/users/");
  }
});

describe("per-call options at run time", () => {
  it.each(["singal", "pathSerializer", "redirect", "idempotencyKey"])(
    "an unknown key (%s) is a TypeError naming it, and nothing is sent",
    async (key) => {
      const error = await rejection(getUser(client(), { [key]: "x" }));
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe(
        `[GET /users/{id}/] unknown per-call option \`${key}\`; a call takes params, body, signal, headers, parseAs, bodySerializer, querySerializer, middleware, timeoutMs, maxRetries. The request was not sent.`,
      );
      expect(server().requests).toHaveLength(0);
    },
  );

  it.each(["baseUrl", "fetch"])(
    "a per-call %s is a TypeError that says to set it on the client, and nothing is sent",
    async (key) => {
      await expect(getUser(client(), { [key]: key === "fetch" ? globalThis.fetch : server().url })).rejects.toThrow(
        new TypeError(
          `[GET /users/{id}/] unknown per-call option \`${key}\` (set it when creating the client); a call takes params, body, signal, headers, parseAs, bodySerializer, querySerializer, middleware, timeoutMs, maxRetries. The request was not sent.`,
        ),
      );
      expect(server().requests).toHaveLength(0);
    },
  );

  it("a per-call timeoutMs overrides the client's: a stalled server gives a TimeoutError within a second", async () => {
    server().enqueue({ hang: true });
    const store = client({ timeoutMs: 30_000, maxRetries: 0 });
    const started = performance.now();
    const error = await rejection(getUser(store, { timeoutMs: 100 }));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(100);
    expect(server().requests).toHaveLength(1);
  });

  it("a per-call maxRetries overrides the client's: 0 on a 503 sends one request, 4 sends five", async () => {
    server().enqueue({ status: 503, body: {} });
    const { response } = await getUser(client({ maxRetries: 2 }), { maxRetries: 0 });
    expect(response.status).toBe(503);
    expect(server().count("GET", "/users/1/")).toBe(1);
    for (let i = 0; i < 5; i++) server().enqueue({ status: 503, body: {} });
    await getUser(client({ maxRetries: 0 }), { maxRetries: 4 });
    expect(server().count("GET", "/users/1/")).toBe(6);
  });

  it("a per-call timeoutMs or maxRetries that is not a valid number is refused, naming it", async () => {
    await expect(getUser(client(), { timeoutMs: -1 })).rejects.toThrow(
      new TypeError("[GET /users/{id}/] timeoutMs must be a positive number of milliseconds, got -1."),
    );
    await expect(getUser(client(), { maxRetries: 1.5 })).rejects.toThrow(
      /maxRetries must be a whole number ≥ 0, got 1\.5/,
    );
    expect(server().requests).toHaveLength(0);
  });
});
