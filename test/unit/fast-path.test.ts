/**
 * The client's speed mechanisms (src/client/deadline-clock.ts, src/client/page-items.ts,
 * src/client/openapi-fetch-internals.ts), and the openapi-fetch behaviours they (and the client) rely on:
 * each test in "openapi-fetch still behaves as the fast path assumes" fails if an upgrade of
 * openapi-fetch changes one of them.
 *
 * `deadlineClock()`: attempts that start close together share one
 * AbortController and one timer; an attempt times out no earlier than `timeoutMs` and no later
 * than `timeoutMs` + 5 % (≤ 100 ms); a caller's signal or a streamed body gets its own.
 * Fake timers and a fake `performance.now()`: the clock is asserted, not measured.
 */
import createClient, { type Middleware } from "openapi-fetch";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { deadlineClock, MAX_BATCH_ATTEMPTS } from "../../src/client/deadline-clock.js";
import { PlannedRequest, trackMiddleware } from "../../src/client/openapi-fetch-internals.js";
import { itemsOf } from "../../src/client/page-items.js";
import { buildClient } from "../../src/client/client.js";
import { TEST_TOKEN, useFaultServer } from "../helpers/fault-server.js";

describe("deadlineClock", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("reuses one signal for attempts one after another, for up to MAX_BATCH_ATTEMPTS of them", () => {
    const start = deadlineClock(1_000);
    const signals = new Set<AbortSignal | undefined>();
    for (let i = 0; i < MAX_BATCH_ATTEMPTS * 2; i++) {
      const deadline = start(undefined, false);
      signals.add(deadline.signal);
      deadline.stop();
    }
    expect(signals.size).toBe(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("times an attempt out between timeoutMs and timeoutMs + 5 %, and only the attempts of its batch", () => {
    const start = deadlineClock(1_000); // window: 50 ms
    const first = start(undefined, false);
    vi.advanceTimersByTime(40);
    const joined = start(undefined, false); // within the window: same batch
    expect(joined.signal).toBe(first.signal);
    vi.advanceTimersByTime(20);
    const later = start(undefined, false); // 60 ms after the batch opened: a new one
    expect(later.signal).not.toBe(first.signal);

    vi.advanceTimersByTime(1_050 - 60 - 1); // 1,049 ms after the first started
    expect(first.signal!.aborted).toBe(false);
    vi.advanceTimersByTime(1); // 1,050 ms: the first ran timeoutMs + window, the joiner 1,010 ms
    expect([first.timedOut, joined.timedOut, first.signal!.aborted]).toEqual([true, true, true]);
    expect((first.signal!.reason as DOMException).name).toBe("TimeoutError");
    expect([later.timedOut, later.signal!.aborted]).toEqual([false, false]);

    const fresh = start(undefined, false); // later's batch is busy and past its window
    expect(new Set([first.signal, later.signal, fresh.signal]).size).toBe(3);
    expect(fresh.signal!.aborted).toBe(false);
    vi.advanceTimersByTime(60); // 1,110 ms: later ran timeoutMs + window
    expect([later.timedOut, fresh.timedOut]).toEqual([true, false]);
    for (const deadline of [first, joined, later, fresh]) deadline.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("clears the shared timer when the last attempt in flight stops, and arms it again for the next", () => {
    const start = deadlineClock(1_000);
    const a = start(undefined, false);
    const b = start(undefined, false);
    expect(vi.getTimerCount()).toBe(1);
    a.stop();
    a.stop(); // idempotent: b still counts
    expect(vi.getTimerCount()).toBe(1);
    b.stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5_000);
    const c = start(undefined, false);
    expect(c.signal).toBe(a.signal);
    vi.advanceTimersByTime(1_049);
    expect(c.timedOut).toBe(false);
    vi.advanceTimersByTime(1);
    expect(c.timedOut).toBe(true);
  });

  it("gives a caller's signal, or a streamed body, a controller and a timer of its own", () => {
    const start = deadlineClock(1_000);
    const shared = start(undefined, false);
    const caller = new AbortController();
    const own = start(caller.signal, false);
    const streamed = start(undefined, true);
    expect(new Set([shared.signal, own.signal, streamed.signal]).size).toBe(3);
    const reason = new Error("caller gave up");
    caller.abort(reason);
    expect(own.signal!.reason).toBe(reason);
    expect([own.timedOut, shared.signal!.aborted, streamed.signal!.aborted]).toEqual([false, false, false]);
    vi.advanceTimersByTime(1_000);
    expect(streamed.timedOut).toBe(true); // exactly timeoutMs: its own timer
    expect(shared.timedOut).toBe(false);
    for (const deadline of [shared, own, streamed]) deadline.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("sets no timer and no signal when timeoutMs cannot be timed (Infinity, or more than a timer holds)", () => {
    for (const timeoutMs of [Number.POSITIVE_INFINITY, 2 ** 31]) {
      const deadline = deadlineClock(timeoutMs)(undefined, false);
      expect(deadline.signal).toBeUndefined();
      expect(vi.getTimerCount()).toBe(0);
      deadline.stop();
    }
  });
});

describe("shared deadlines through the client", () => {
  const server = useFaultServer();

  it("a hanging attempt times out alone: the calls around it, in the same batch, succeed", async () => {
    const store = buildClient({ apiUrl: server().url, accessToken: TEST_TOKEN, timeoutMs: 300, maxRetries: 0 }, {});
    server().enqueue({ status: 200, body: { id: 1 } }, { hang: true }, { status: 200, body: { id: 3 } });
    const outcomes = await Promise.all(
      [1, 2, 3].map((id) =>
        store.GET("/users/{id}/", { params: { path: { id } } }).then(
          (r) => (r.data as { id: number }).id,
          (e: Error) => e.name,
        ),
      ),
    );
    expect(outcomes).toEqual([1, "TimeoutError", 3]);
    expect(server().requests).toHaveLength(3);
  });

  it("a later timeout never cuts a body the caller reads as a stream after the call returned", async () => {
    const store = buildClient({ apiUrl: server().url, accessToken: TEST_TOKEN, timeoutMs: 200, maxRetries: 0 }, {});
    server().enqueue({ status: 200, body: { id: 1, note: "x".repeat(50_000) } }, { hang: true });
    const streamed = await store.GET("/users/{id}/", { params: { path: { id: 1 } }, parseAs: "stream" });
    const hanging = store.GET("/users/{id}/", { params: { path: { id: 2 } } }).catch((e: Error) => e.name);
    expect(await hanging).toBe("TimeoutError");
    const text = await new Response(streamed.data as ReadableStream).text();
    expect(JSON.parse(text)).toMatchObject({ id: 1 });
  });
});

describe("openapi-fetch still behaves as the fast path assumes", () => {
  const ok = () =>
    new Response(JSON.stringify({ id: 1 }), { status: 200, headers: { "content-type": "application/json" } });

  it("PlannedRequest: a per-call Request class is constructed with (url, init), and that object goes to the per-call fetch", async () => {
    const seen: unknown[] = [];
    const client = createClient<never>({ baseUrl: "https://api.test" });
    const signal = new AbortController().signal;
    await (client as never as { GET: (p: string, i: object) => Promise<unknown> }).GET("/users/{id}/", {
      params: { path: { id: 7 } },
      signal,
      Request: PlannedRequest,
      fetch: (request: unknown) => {
        seen.push(request);
        return Promise.resolve(ok());
      },
    });
    expect(seen).toHaveLength(1);
    const planned = seen[0] as PlannedRequest;
    expect(planned).toBeInstanceOf(PlannedRequest);
    expect(planned.url).toBe("https://api.test/users/7/");
    expect(planned.method).toBe("GET");
    // deadlineClock: the call's signal reaches the request init as is.
    expect(planned.init.signal).toBe(signal);
    expect(planned.headers).toBeInstanceOf(Headers);
  });

  it("headers: params.header is merged after the client's and the call's headers (the SDK's headers win)", async () => {
    let sent: PlannedRequest | undefined;
    const client = createClient<never>({ baseUrl: "https://api.test", headers: { "x-a": "client" } });
    await (client as never as { GET: (p: string, i: object) => Promise<unknown> }).GET("/x", {
      headers: { "x-a": "call" },
      params: { header: { "x-a": "sdk" } },
      Request: PlannedRequest,
      fetch: (request: PlannedRequest) => {
        sent = request;
        return Promise.resolve(ok());
      },
    });
    expect(sent?.headers.get("x-a")).toBe("sdk");
  });

  it("bodies: openapi-fetch reads the Response our fetch returns through its text()/json() methods, and returns that Response", async () => {
    const reads: string[] = [];
    const client = createClient<never>({ baseUrl: "https://api.test" });
    const get = (client as never as { GET: (p: string, i: object) => Promise<{ data: unknown; response: Response }> })
      .GET;
    for (const [parseAs, contentLength] of [
      ["json", undefined],
      ["json", "8"],
      ["text", undefined],
    ] as const) {
      const response = ok();
      if (contentLength) response.headers.set("content-length", contentLength);
      Object.assign(response, {
        text: () => (reads.push("text"), Promise.resolve('{"id":1}')),
        json: () => (reads.push("json"), Promise.resolve({ id: 1 })),
      });
      const result = await get("/x", { parseAs, fetch: () => Promise.resolve(response) });
      expect(result.response).toBe(response);
    }
    expect(reads).toEqual(["text", "json", "text"]);
  });

  it("trackMiddleware: use and eject are replaceable properties, and middleware registered through the wrapper still runs", async () => {
    const client = createClient<never>({ baseUrl: "https://api.test" });
    const hasMiddleware = trackMiddleware(client);
    const calls: string[] = [];
    const m: Middleware = { onRequest: () => void calls.push("onRequest") };
    expect(hasMiddleware()).toBe(false);
    client.use(m);
    expect(hasMiddleware()).toBe(true);
    await (client as never as { GET: (p: string, i: object) => Promise<unknown> }).GET("/x", {
      fetch: () => Promise.resolve(ok()),
    });
    expect(calls).toEqual(["onRequest"]);
    client.eject(m);
    expect(hasMiddleware()).toBe(false);
  });
});

describe("itemsOf", () => {
  it("yields every item of every page in order, also when next() is called before a page arrives", async () => {
    async function* pages() {
      yield { results: [1, 2] };
      yield { results: [] };
      yield { results: [3] };
    }
    const items = itemsOf<number>(pages());
    const early = await Promise.all([items.next(), items.next(), items.next(), items.next()]);
    expect(early.map((step) => step.value)).toEqual([1, 2, 3, undefined]);
    expect(early[3]?.done).toBe(true);
  });
});
