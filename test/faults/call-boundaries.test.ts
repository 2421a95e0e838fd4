/**
 * What one call may leave to another, and what the SDK does at the edges of what servers
 * send: each call has headers of its own, logging never changes an outcome (whatever is thrown),
 * leaving a `paginate()` loop aborts the page in flight, a doubled `Content-Type` is read, many
 * calls share one caller signal without a warning, and 2xx bodies that are not an object, ids
 * beyond 2^53 and absurd `Retry-After` values get the documented treatment. Against the fault
 * server on 127.0.0.1, which counts what it receives.
 */
import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildClient } from "../../src/client/client.js";
import { ConnectionError, InvalidResponseError, RateLimitError } from "../../src/core/errors.js";
import type { RequestLogEvent } from "../../src/core/logger.js";
import { parseRetryAfterMs } from "../../src/core/retry-policy.js";
import type { StoreAdminClient, StoreAdminClientOptions } from "../../src/core/types.js";
import { unwrap } from "../../src/client/unwrap.js";
import { TEST_TOKEN, useFaultServer } from "../helpers/fault-server.js";
import { recordingSleep } from "../helpers/scripted-fetch.js";
import { rejection } from "../helpers/outcome.js";

const server = useFaultServer();

function client(overrides: Partial<StoreAdminClientOptions> = {}, sleep = recordingSleep().sleep): StoreAdminClient {
  return buildClient(
    { apiUrl: server().url, accessToken: TEST_TOKEN, timeoutMs: 5_000, ...overrides } as StoreAdminClientOptions,
    { sleep, random: () => 0 },
  );
}

const getUser = (store: StoreAdminClient, init: Record<string, unknown> = {}) =>
  store.GET("/users/{id}/", { params: { path: { id: 1 } }, ...init } as never);

/** Resolves once the server has received `count` requests. */
async function received(count: number): Promise<void> {
  while (server().requests.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("each call has headers of its own", () => {
  it("a middleware that adds Idempotency-Key to params.header for one POST: the next calls do not send it", async () => {
    const store = client();
    let key = 0;
    store.use({
      onRequest({ request, params }) {
        // Sets it for the call's later attempts (and, before, for every later call of the client).
        if (request.method === "POST")
          (params as { header: Record<string, string> }).header["Idempotency-Key"] = `key-${++key}`;
      },
    });
    await store.POST("/products/", { body: { title: "Mug" } } as never);
    await getUser(store);
    await getUser(store);
    expect(server().requests.map((request) => request.headers["idempotency-key"])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(server().requests.map((request) => request.headers.authorization)).toEqual(
      Array(3).fill(`Bearer ${TEST_TOKEN}`),
    );
  });

  it("params.header given by the caller is copied, never changed", async () => {
    const header = Object.freeze({ "X-Trace": "t1" });
    const store = client();
    store.use({
      onRequest: ({ params }) => void ((params as { header: Record<string, string> }).header["X-Extra"] = "x"),
    });
    await getUser(store, { params: { path: { id: 1 }, header } });
    expect(header).toEqual({ "X-Trace": "t1" });
    expect(server().requests[0]?.headers["x-trace"]).toBe("t1");
  });
});

describe("with a logger, whatever is thrown reaches the caller as it is", () => {
  const bare = () => Object.create(null) as object;
  const events: RequestLogEvent[] = [];
  const logged = (overrides: Partial<StoreAdminClientOptions> = {}) =>
    client({ logger: (event) => void events.push(event), maxRetries: 0, ...overrides });
  beforeEach(() => void (events.length = 0));

  it("an abort reason made with Object.create(null)", async () => {
    server().enqueue({ hang: true });
    const controller = new AbortController();
    const reason = bare();
    const call = rejection(getUser(logged(), { signal: controller.signal }));
    await received(1);
    controller.abort(reason);
    expect(await call).toBe(reason);
    expect(events).toMatchObject([{ error: { name: "object", message: "object" }, willRetry: false }]);
  });

  it("an onResponse middleware that throws such a value", async () => {
    const store = logged();
    const thrown = bare();
    store.use({
      onResponse: () => {
        throw thrown;
      },
    });
    expect(await rejection(getUser(store))).toBe(thrown);
    expect(events).toHaveLength(1);
    expect(server().requests).toHaveLength(1);
  });

  it("a fetch that throws such a value: a ConnectionError whose cause says what it was", async () => {
    const error = await rejection(
      getUser(
        logged({
          fetch: async () => {
            throw bare();
          },
        }),
      ),
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).cause).toBe("object");
    expect(events).toHaveLength(1);
  });
});

describe("leaving a paginate() loop", () => {
  const page = (items: number[], next: number | null) => ({
    status: 200,
    body: {
      next: next === null ? null : `${server().url}/users/?cursor=c${next}`,
      previous: null,
      results: items.map((id) => ({ id })),
    },
  });

  it("return() while a page is in flight aborts it: the pending next() and every later one are done, nothing is resent", async () => {
    const events: RequestLogEvent[] = [];
    server().enqueue(page([1, 2], 2), { ...page([3, 4], null), delayMs: 1_500 });
    const items = client({ logger: (event) => void events.push(event) }).paginate("/users/");
    expect(await items.next()).toEqual({ value: { id: 1 }, done: false });
    expect(await items.next()).toEqual({ value: { id: 2 }, done: false });
    const pending = items.next();
    await received(2);
    const started = performance.now();
    await items.return(undefined);
    const returnMs = performance.now() - started;
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(await items.next()).toEqual({ value: undefined, done: true });
    console.info(`return() with a page in flight (server answering in 1,500 ms) settled in ${returnMs.toFixed(1)} ms`);
    // The page in flight was aborted (its attempt logged as such), not waited for, and not resent.
    expect(events.map((event) => event.error?.name ?? event.status)).toEqual([200, "AbortError"]);
    expect(returnMs).toBeLessThan(1_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server().count("GET", "/users/")).toBe(2);
  });

  it("the caller's signal still ends the walk with its reason, and leaves no listener on it", async () => {
    server().enqueue(page([1], 2), { hang: true });
    const controller = new AbortController();
    const items = client().paginate("/users/", { signal: controller.signal } as never);
    expect(await items.next()).toEqual({ value: { id: 1 }, done: false });
    const pending = items.next();
    await received(2);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    controller.abort(new Error("job cancelled"));
    expect(await rejection(pending)).toEqual(new Error("job cancelled"));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("a walk that ends by itself leaves no listener on the caller's signal", async () => {
    server().enqueue(page([1], 2), page([2], null));
    const controller = new AbortController();
    const seen: unknown[] = [];
    for await (const item of client().paginate("/users/", { signal: controller.signal } as never)) seen.push(item);
    expect(seen).toEqual([{ id: 1 }, { id: 2 }]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});

describe("a Content-Type a proxy doubled", () => {
  it('"application/json, application/json" is JSON; "application/json, text/html" is not', async () => {
    server().enqueue({
      status: 200,
      headers: { "content-type": "application/json, application/json" },
      body: '{"id":1}',
    });
    expect((await getUser(client())).data).toEqual({ id: 1 });
    server().enqueue({
      status: 200,
      headers: { "content-type": "application/json; charset=utf-8, application/problem+json" },
      body: '{"id":2}',
    });
    expect((await getUser(client())).data).toEqual({ id: 2 });
    server().enqueue({ status: 200, headers: { "content-type": "application/json, text/html" }, body: "<p>login</p>" });
    const error = await rejection(getUser(client()));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toContain("its content-type is application/json, text/html, not application/json");
    expect(server().count("GET", "/users/1/")).toBe(3);
  });
});

describe("many calls sharing one caller signal", () => {
  const warnings: Error[] = [];
  const record = (warning: Error): void => void warnings.push(warning);
  beforeEach(() => {
    warnings.length = 0;
    process.on("warning", record);
  });
  afterEach(() => void process.off("warning", record));

  it("200 concurrent calls, then 200 waiting to retry: no MaxListenersExceededWarning, one listener, an abort reaches every one", async () => {
    const CALLS = 200;
    const controller = new AbortController();
    const { signal } = controller;
    // The client's own wait between attempts: the calls all wait at once, and the signal ends the waits.
    const store = buildClient({ apiUrl: server().url, accessToken: TEST_TOKEN, maxRetries: 1 }, {});
    for (let i = 0; i < CALLS; i++) server().enqueue({ status: 200, body: { id: i }, delayMs: 50 });
    const first = await Promise.all(Array.from({ length: CALLS }, () => getUser(store, { signal })));
    expect(first.every(({ response }) => response.status === 200)).toBe(true);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);

    for (let i = 0; i < CALLS; i++) server().enqueue({ status: 503, headers: { "retry-after": "30" } });
    const calls = Array.from({ length: CALLS }, () => rejection(getUser(store, { signal })));
    await received(2 * CALLS);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const listeners = getEventListeners(signal, "abort").length;
    controller.abort(new Error("stop"));
    const reasons = await Promise.all(calls);
    await new Promise((resolve) => setImmediate(resolve));
    console.info(
      `${CALLS} calls on one signal: ${listeners} abort listener(s) on it while they waited, ${warnings.length} warning(s)`,
    );
    expect(listeners).toBe(1);
    expect(reasons.every((reason) => (reason as Error).message === "stop")).toBe(true);
    expect(warnings.map((warning) => warning.name)).not.toContain("MaxListenersExceededWarning");
    expect(server().requests).toHaveLength(2 * CALLS);
  });
});

describe("what 2xx bodies and headers the types cannot describe become", () => {
  it.each([
    ["null", null],
    ["42", 42],
    ['"hello"', "hello"],
    ["true", true],
  ])(
    "a 2xx body of %s is valid JSON: it is the data, as parsed (the schema is not checked at run time)",
    async (body, parsed) => {
      server().enqueue({ status: 200, headers: { "content-type": "application/json" }, body });
      const { data, error } = await getUser(client());
      expect(error).toBeUndefined();
      expect(data).toBe(parsed);
      expect(server().count("GET", "/users/1/")).toBe(1);
    },
  );

  it('parseAs: "text" still gets any text', async () => {
    server().enqueue({ status: 200, headers: { "content-type": "application/json" }, body: "42" });
    expect((await getUser(client(), { parseAs: "text" })).data).toBe("42");
  });

  it('an id beyond 2^53 arrives rounded, as JSON.parse reads it (documented); parseAs: "text" keeps its digits', async () => {
    server().enqueue({ status: 200, headers: { "content-type": "application/json" }, body: '{"id":9007199254740993}' });
    expect(((await getUser(client())).data as { id: number }).id).toBe(2 ** 53);
    server().enqueue({ status: 200, headers: { "content-type": "application/json" }, body: '{"id":9007199254740993}' });
    expect((await getUser(client(), { parseAs: "text" })).data).toBe('{"id":9007199254740993}');
  });

  it('a 400-digit Retry-After is unreadable: no "Infinity" anywhere, the backoff applies', async () => {
    const huge = `1${"0".repeat(399)}`;
    expect(parseRetryAfterMs(huge)).toBeUndefined();
    const sleeps = recordingSleep();
    for (let i = 0; i < 3; i++)
      server().enqueue({ status: 429, headers: { "retry-after": huge }, body: { detail: "slow down" } });
    const error = (await rejection(unwrap(getUser(client({}, sleeps.sleep))))) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBeUndefined();
    expect(error.message).toBe(
      "[GET /users/{id}/] 429 Too Many Requests: slow down. Rate limited: wait before calling again.",
    );
    expect(sleeps.delays).toEqual([500, 1000]);
    expect(server().count("GET", "/users/1/")).toBe(3);
  });
});
