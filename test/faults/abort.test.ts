/**
 * The caller's AbortSignal (`signal` of a client call): it stops an attempt, a body read or
 * the wait before a retry at once, is never retried, and its reason comes back unchanged
 * (not wrapped).
 */
import { describe, expect, it } from "vitest";
import { buildClient, createStoreAdminClient } from "../../src/client/client.js";
import { sleep } from "../../src/core/sleep.js";
import type { RequestLogEvent } from "../../src/core/logger.js";
import type { FetchLike } from "../../src/core/call-types.js";
import type { StoreAdminClient } from "../../src/core/types.js";
import { TEST_TOKEN, useFaultServer } from "../helpers/fault-server.js";
import { recordingSleep, scriptedFetch } from "../helpers/scripted-fetch.js";

const server = useFaultServer();

/**
 * The client against the fault server, with a long timeout (an abort must not wait for it)
 * and the waits between attempts recorded: a retry after an abort would show in `delays`.
 */
function client(): { store: StoreAdminClient; delays: number[]; heads: () => number } {
  const recorder = recordingSleep();
  let heads = 0;
  // The platform's fetch, counting the responses whose headers have arrived.
  const fetch: FetchLike = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    heads++;
    return response;
  };
  const store = buildClient(
    { apiUrl: server().url, accessToken: TEST_TOKEN, timeoutMs: 60_000, maxRetries: 2, fetch },
    { sleep: recorder.sleep, random: () => 0 },
  );
  return { store, delays: recorder.delays, heads: () => heads };
}

/** What `promise` settles with, or "still pending" if it has not within `ms` (a bound, not a timed assertion). */
async function settledWithin(promise: Promise<unknown>, ms = 10_000): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise((resolve) => (timer = setTimeout(() => resolve("still pending"), ms)));
  try {
    return await Promise.race([
      promise.then(
        () => "resolved",
        (error: unknown) => error,
      ),
      bound,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lets anything the client might still send arrive at the server. */
const settle = (): Promise<unknown> => new Promise((resolve) => setTimeout(resolve, 50));

describe("abort", () => {
  it("an already aborted signal sends nothing", async () => {
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    controller.abort(reason);
    const { store, delays } = client();
    expect(await settledWithin(store.GET("/users/", { signal: controller.signal }))).toBe(reason);
    expect(await settledWithin(store.POST("/products/", { body: { title: "Mug" }, signal: controller.signal }))).toBe(
      reason,
    );
    await settle();
    expect(server().requests).toHaveLength(0);
    expect(delays).toEqual([]);
  });

  it("stops an attempt in flight at once and does not retry it", async () => {
    server().enqueue({ hang: true });
    const controller = new AbortController();
    const reason = new Error("shutdown");
    const { store, delays } = client();
    const pending = store.GET("/users/", { signal: controller.signal });
    await waitFor(() => server().requests.length === 1);
    controller.abort(reason);
    expect(await settledWithin(pending)).toBe(reason);
    await settle();
    expect(server().requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("stops a body read in flight at once", async () => {
    server().enqueue({ status: 200, body: { id: 1, email: "someone@example.com" }, stallAfterHeaders: true });
    const controller = new AbortController();
    const { store, delays, heads } = client();
    const pending = store.GET("/users/{id}/", { params: { path: { id: 1 } }, signal: controller.signal });
    await waitFor(() => heads() === 1); // the headers are in: the body is being read
    controller.abort();
    const error = await settledWithin(pending);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe("AbortError");
    expect(error).toBe(controller.signal.reason);
    await settle();
    expect(server().requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("stops a body read in flight of a POST with its reason, sending nothing more", async () => {
    server().enqueue({ status: 201, body: { id: 1, title: "a long enough title" }, stallAfterHeaders: true });
    const controller = new AbortController();
    const reason = new Error("user navigated away");
    const { store, heads } = client();
    const pending = store.POST("/products/", { body: { title: "Mug" }, signal: controller.signal });
    await waitFor(() => heads() === 1); // the headers are in: the body is being read
    controller.abort(reason);
    expect(await settledWithin(pending)).toBe(reason);
    await settle();
    expect(server().requests).toHaveLength(1);
  });

  it("stops the wait before a retry at once, even a long Retry-After", async () => {
    // The client's own sleep: without the abort it would wait 50 s.
    server().enqueue({ status: 429, headers: { "retry-after": "50" } });
    const controller = new AbortController();
    const reason = new Error("stop waiting");
    const events: RequestLogEvent[] = [];
    const store = createStoreAdminClient({
      apiUrl: server().url,
      accessToken: TEST_TOKEN,
      maxRetries: 2,
      timeoutMs: 10_000,
      logger: (event) => {
        events.push(event);
        // Aborted once the wait has begun (the sleep starts right after the logger returns).
        if (event.willRetry) setTimeout(() => controller.abort(reason), 20);
      },
    });
    const pending = store.POST("/subscriptions/{id}/renew/", {
      params: { path: { id: 7 } },
      signal: controller.signal,
    });
    expect(await settledWithin(pending)).toBe(reason);
    expect(events.map((e) => [e.status, e.willRetry, e.retryDelayMs])).toEqual([[429, true, 50_000]]);
    await settle();
    expect(server().requests).toHaveLength(1);
  });

  it("an abort while the wait is being decided (in the logger) stops the retry too", async () => {
    server().enqueue({ status: 503 });
    const controller = new AbortController();
    const reason = new Error("stop now");
    const recorder = recordingSleep();
    const store = buildClient(
      {
        apiUrl: server().url,
        accessToken: TEST_TOKEN,
        logger: (event) => {
          if (event.willRetry) controller.abort(reason);
        },
      },
      { sleep: recorder.sleep, random: () => 0 },
    );
    expect(await settledWithin(store.GET("/users/", { signal: controller.signal }))).toBe(reason);
    await settle();
    expect(server().requests).toHaveLength(1);
  });

  for (const middleware of [false, true]) {
    it(`is not mistaken for a network error by a scripted fetch either (${middleware ? "fetch(request)" : "fetch(url, init)"})`, async () => {
      const scripted = scriptedFetch([{ hang: true }, { hang: true }]);
      const controller = new AbortController();
      const reason = new Error("bye");
      const store = buildClient(
        { apiUrl: "http://127.0.0.1:9", accessToken: TEST_TOKEN, fetch: scripted.fetch },
        { sleep: recordingSleep().sleep, random: () => 0 },
      );
      if (middleware) store.use({ onRequest: () => undefined });
      const pending = store.GET("/users/", { signal: controller.signal });
      await waitFor(() => scripted.log.length === 1);
      controller.abort(reason);
      expect(await settledWithin(pending)).toBe(reason);
      await settle();
      expect(scripted.log).toEqual(["GET /users/ → hangs"]);
      expect(scripted.calls.map((call) => call.input)).toEqual([middleware ? "request" : "url"]);
    });
  }
});

describe("sleep", () => {
  it("resolves after the delay, rejects with the reason on abort, and clears its timer", async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
    const controller = new AbortController();
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
    const before = timers();
    const pending = sleep(60_000, controller.signal);
    controller.abort(new Error("now"));
    await expect(pending).rejects.toThrow("now");
    expect(timers()).toBe(before);
    await expect(sleep(5, controller.signal)).rejects.toThrow("now");
  });
});

/** Polls a condition on the event loop (no timed assertion: it only waits for an event). */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
