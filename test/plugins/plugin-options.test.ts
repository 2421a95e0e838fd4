/**
 * The plugins of `store-admin-sdk/plugins` under bad options and hostile timing, from the
 * sources against a local server that counts and times what it receives: every option that
 * would bound or key nothing, or fail every call later, is refused when the plugin is made,
 * naming it; `rateLimit()` starts again after every pause (a timer that fires a little early
 * by the clock included), keeps a started attempt's `perSecond` slot when its call is aborted,
 * and holds one abort listener per signal however many calls wait.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStoreAdminClient } from "../../src/index.js";
import { idempotencyKey, rateLimit, telemetry } from "../../src/plugins/index.js";
import { startFaultServer, type FaultServer, type ReceivedRequest } from "../helpers/fault-server.js";

const TOKEN = "sk_live_plugin_options_0123456789";

/** Arrival times by path (ms, this process's clock). */
const arrived: Array<{ path: string; at: number }> = [];
let answer: (request: ReceivedRequest) => { status?: number; headers?: Record<string, string>; delayMs?: number } =
  () => ({});
let server: FaultServer;
beforeAll(async () => {
  server = await startFaultServer((request) => {
    arrived.push({ path: request.path, at: performance.now() });
    return { status: 200, body: { id: 1 }, ...answer(request) };
  });
});
afterAll(async () => {
  await server.close();
});

const clientWith = (...plugins: Parameters<typeof createStoreAdminClient>[0]["plugins"] & object) =>
  createStoreAdminClient({ apiUrl: server.url, accessToken: TOKEN, maxRetries: 0, plugins });

describe("options refused when the plugin is made", () => {
  it.each([
    [{}, "rateLimit() bounds nothing without maxConcurrent or perSecond: pass one, or both."],
    [{ perSecnd: 5 }, 'rateLimit() has no option "perSecnd": it takes { maxConcurrent?, perSecond? }.'],
    [[], "rateLimit() takes { maxConcurrent?, perSecond? }."],
    [{ perSecond: 0 }, "rateLimit({ perSecond }) must be a whole number ≥ 1, got 0."],
  ])("rateLimit(%j)", (options, message) => {
    expect(() => rateLimit(options as never)).toThrow(new TypeError(message));
  });

  it.each([
    ["Authorization", "idempotencyKey({ header }) may not set Authorization: the client sets it from accessToken."],
    ["Content-Length", /^idempotencyKey\(\{ header \}\) may not set Content-Length: /],
    ["X-Store-API-Version", /^idempotencyKey\(\{ header \}\) may not set X-Store-API-Version: /],
  ])("idempotencyKey({ header: %j })", (header, message) => {
    expect(() => idempotencyKey({ header })).toThrow(message);
  });

  it.each([
    [
      { tracerProvider: 42 },
      "telemetry({ tracerProvider }) must be an OpenTelemetry tracerProvider (an object with getTracer()), got number.",
    ],
    [
      { tracerProvider: {} },
      "telemetry({ tracerProvider }) must be an OpenTelemetry tracerProvider (an object with getTracer()), got object.",
    ],
    [
      { meterProvider: "x" },
      "telemetry({ meterProvider }) must be an OpenTelemetry meterProvider (an object with getMeter()), got string.",
    ],
    [
      { tracerprovider: {} },
      'telemetry() has no option "tracerprovider": it takes { tracerProvider?, meterProvider?, attributes? }.',
    ],
  ])("telemetry(%j)", (options, message) => {
    expect(() => telemetry(options as never)).toThrow(new TypeError(message));
  });
});

describe("idempotencyKey({ key }) returning what no header can carry", () => {
  it.each([
    ["a promise", () => Promise.resolve("k"), "a promise"],
    ["a line break", () => "a\nb", JSON.stringify("a\nb")],
    ["surrounding spaces", () => " spaced ", JSON.stringify(" spaced ")],
  ])("%s: the call fails naming the plugin's option, nothing is sent", async (_label, key, shown) => {
    const before = server.requests.length;
    const store = clientWith(idempotencyKey({ header: "Idempotency-Key", key: key as never }));
    await expect(store.subscriptions.renew(1)).rejects.toThrow(
      `idempotencyKey({ key }) returned ${shown} for POST /subscriptions/{id}/renew/; return the key itself (printable ASCII, no line breaks or surrounding spaces, as a header value) or undefined.`,
    );
    expect(server.requests.length).toBe(before);
  });
});

describe("rateLimit() under hostile timing", () => {
  it("starts again after a 429's pause, for each of 40 clients paused at once: every second call is answered", async () => {
    answer = (request) => (request.path.endsWith("/1/") ? { status: 429, headers: { "retry-after": "1" } } : {});
    const clients = Array.from({ length: 40 }, () => clientWith(rateLimit({ maxConcurrent: 2 })));
    const first = await Promise.all(clients.map((store) => store.GET("/users/{id}/", { params: { path: { id: 1 } } })));
    expect(first.map(({ response }) => response.status)).toEqual(Array(40).fill(429));
    answer = () => ({});
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // Each second call is bounded by its signal: one still held by a paused queue fails the test by name.
    const second = await Promise.all(
      clients.map((store) =>
        store.GET("/users/{id}/", { params: { path: { id: 2 } }, signal: AbortSignal.timeout(8000) }).then(
          ({ response }) => response.status,
          (error: Error) => error.name,
        ),
      ),
    );
    expect(second).toEqual(Array(40).fill(200));
  });

  it("perSecond alone: after a 429 with Retry-After: 2, no call waiting for a second's slot leaves inside the pause", async () => {
    let first = true;
    answer = () => {
      if (!first) return {};
      first = false;
      return { status: 429, headers: { "retry-after": "2" } };
    };
    const store = clientWith(rateLimit({ perSecond: 2 }));
    const from = arrived.length;
    const statuses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        store.GET("/users/{id}/", { params: { path: { id: 100 + i } } }).then(({ response }) => response.status),
      ),
    );
    expect(statuses.filter((status) => status === 429)).toHaveLength(1);
    const times = arrived.slice(from).map((arrival) => arrival.at);
    const paused = times[0]!;
    // The 429's answer starts the pause: what was sent before it arrives with it; nothing more until it ends.
    expect(times.filter((at) => at > paused + 100 && at < paused + 1900)).toEqual([]);
    answer = () => ({});
  });

  it("perSecond: 1 holds when the first call is aborted in flight: the next request arrives a second after the first", async () => {
    answer = () => ({ delayMs: 300 });
    const store = clientWith(rateLimit({ perSecond: 1 }));
    const from = arrived.length;
    const aborted = store.users.retrieve(3, { signal: AbortSignal.timeout(50) }).catch((error: Error) => error.name);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await store.users.retrieve(4);
    expect(await aborted).toBe("TimeoutError");
    const times = arrived.slice(from).map((arrival) => arrival.at);
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(1000);
    answer = () => ({});
  });

  it("30 calls waiting on one signal: no MaxListenersExceededWarning, and an abort rejects every one of them", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    try {
      const store = clientWith(rateLimit({ maxConcurrent: 1 }));
      answer = () => ({ delayMs: 200 });
      const controller = new AbortController();
      const calls = Array.from({ length: 30 }, (_, i) =>
        store.users.retrieve(i + 10, { signal: controller.signal }).then(
          () => "done",
          (error: Error) => error.name,
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort();
      const ends = await Promise.all(calls);
      expect(ends.filter((end) => end === "AbortError")).toHaveLength(30);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
      answer = () => ({});
    }
  });
});
