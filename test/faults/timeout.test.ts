/**
 * The client's per-attempt timeout (`timeoutMs`, `src/core/timeout.ts` used by `src/client/request.ts`):
 * the limit covers the whole exchange, headers and body, per attempt, and produces a
 * `TimeoutError` that says so. Counts and messages are asserted, never durations.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it, vi } from "vitest";
import { buildClient, createStoreAdminClient } from "../../src/client/client.js";
import { InvalidResponseError, TimeoutError } from "../../src/core/errors.js";
import { DEFAULT_TIMEOUT_MS } from "../../src/core/timeout.js";
import type { FetchLike } from "../../src/core/call-types.js";
import type { StoreAdminClient } from "../../src/core/types.js";
import { TEST_TOKEN, useFaultServer } from "../helpers/fault-server.js";
import { recordingSleep } from "../helpers/scripted-fetch.js";
import { rejection } from "../helpers/outcome.js";

const server = useFaultServer();

/** The client against the fault server; waits between attempts are recorded, not slept. */
function client(timeoutMs: number | undefined, maxRetries?: number, fetch?: FetchLike): StoreAdminClient {
  return buildClient(
    {
      apiUrl: server().url,
      accessToken: TEST_TOKEN,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(maxRetries === undefined ? {} : { maxRetries }),
      ...(fetch === undefined ? {} : { fetch }),
    },
    { sleep: recordingSleep().sleep, random: () => 0 },
  );
}

/** The platform's fetch, counting the responses whose headers have arrived. */
function headCounting(): { fetch: FetchLike; heads: () => number } {
  let heads = 0;
  const fetch: FetchLike = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    heads++;
    return response;
  };
  return { fetch, heads: () => heads };
}

/** Active `setTimeout` timers of the process. */
const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

/**
 * The active timers once their count has held still for a quarter of a second: the test
 * runner's own short-lived timers (one, for about 100 ms after a test starts) come and go,
 * an attempt's deadline (60 s here) stays.
 */
async function settledTimers(): Promise<number> {
  let last = timers();
  for (let stable = 0, turns = 0; stable < 5 && turns < 60; turns++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = timers();
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
  return last;
}

/** Polls a condition on the event loop (no timed assertion: it only waits for an event). */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("timeoutMs", () => {
  it("times out a server that never answers", async () => {
    server().enqueue({ hang: true });
    const error = await rejection(client(50, 0).GET("/users/"));
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(50);
    expect((error as TimeoutError).message).toBe(
      "[GET /users/] timed out after 50 ms (timeoutMs per attempt, body included). " +
        "Raise timeoutMs if the server is slow.",
    );
  });

  it("times out a server that sends the headers and then stalls in the body", async () => {
    const counting = headCounting();
    const store = client(100, 0, counting.fetch);
    // A first call opens the connection, so that the headers of the next arrive well in time.
    // It has a limit of its own: on a loaded machine opening a connection can take 100 ms.
    expect((await store.GET("/users/", { timeoutMs: 5_000 })).data).toEqual({ ok: true });
    server().enqueue({ status: 200, body: { id: 1, email: "someone@example.com" }, stallAfterHeaders: true });
    const error = await rejection(store.GET("/users/{id}/", { params: { path: { id: 1 } } }));
    expect(counting.heads()).toBe(2); // the headers arrived: the body timed out
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).message).toBe(
      "[GET /users/{id}/] timed out after 100 ms (timeoutMs per attempt, body included). " +
        "Raise timeoutMs if the server is slow.",
    );
    expect(server().requests).toHaveLength(2);
  });

  it("says that a timed-out POST may have reached the server, and does not send it again", async () => {
    server().enqueue({ delayMs: 2_000, status: 200, body: {} });
    const error = await rejection(client(50).POST("/subscriptions/{id}/renew/", { params: { path: { id: 7 } } }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).message).toBe(
      "[POST /subscriptions/{id}/renew/] timed out after 50 ms (timeoutMs per attempt, body included). " +
        "The request may have reached the server: check whether it took effect before calling again.",
    );
    // Not sent again. (Under load, 50 ms can run out before the request has even arrived.)
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server().count("POST", "/subscriptions/7/renew/")).toBeLessThanOrEqual(1);
  });

  it("applies per attempt: each retry of a GET gets a fresh timer", async () => {
    const stall = { status: 200, body: { id: 1, email: "x@example.com" }, stallAfterHeaders: true };
    const counting = headCounting();
    const store = client(200, 2, counting.fetch);
    expect((await store.GET("/users/")).data).toEqual({ ok: true });
    server().enqueue(stall, stall, { status: 200, body: { id: 1 } });
    const { data } = await store.GET("/users/{id}/", { params: { path: { id: 1 } } });
    expect(data).toEqual({ id: 1 });
    expect(server().count("GET", "/users/1/")).toBe(3);
    expect(counting.heads()).toBe(4); // each stalled attempt had its headers: the body timed out
  });

  it("ends in the last TimeoutError after maxRetries + 1 attempts", async () => {
    server().enqueue({ hang: true }, { hang: true }, { hang: true }, { status: 200, body: {} });
    const error = await rejection(
      client(250, 2).PUT("/users/{id}/", { params: { path: { id: 1 } }, body: { first_name: "Ada" } }),
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(server().count("PUT", "/users/1/")).toBe(3);
  });

  it("returns the response whole, with status, status text and headers, once read in time", async () => {
    server().enqueue({ status: 201, headers: { "x-request-id": "req_9" }, body: { id: 5 } });
    const { data, error, response } = await createStoreAdminClient({
      apiUrl: server().url,
      accessToken: TEST_TOKEN,
    }).POST("/products/", {
      body: { title: "a" },
    });
    expect(error).toBeUndefined();
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Created");
    expect(response.headers.get("x-request-id")).toBe("req_9");
    expect(data).toEqual({ id: 5 });
  });

  it("gives a 204 a null body, and no data", async () => {
    server().enqueue({ status: 204 });
    const { data, error, response } = await client(undefined).PUT("/users/{id}/", {
      params: { path: { id: 1 } },
      body: { first_name: "Ada" },
    });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    expect(data).toBeUndefined();
    expect(error).toBeUndefined();
    expect(server().requests).toHaveLength(1);
  });

  it("leaves no timer behind once the attempt ends, whether it succeeded, failed or was aborted", async () => {
    const store = createStoreAdminClient({
      apiUrl: server().url,
      accessToken: TEST_TOKEN,
      timeoutMs: 60_000,
      maxRetries: 0,
    });
    const before = await settledTimers();
    for (let i = 0; i < 5; i++) expect((await store.GET("/users/")).data).toEqual({ ok: true });
    expect(await settledTimers()).toBe(before);

    server().enqueue({ status: 404, body: { detail: "Not found." } });
    expect((await store.GET("/users/{id}/", { params: { path: { id: 1 } } })).response.status).toBe(404);
    server().enqueue({ status: 200, headers: { "content-type": "text/html" }, body: "<html></html>" });
    expect(await rejection(store.GET("/users/{id}/", { params: { path: { id: 1 } } }))).toBeInstanceOf(
      InvalidResponseError,
    );
    expect(await settledTimers()).toBe(before);

    server().enqueue({ hang: true });
    const controller = new AbortController();
    const reason = new Error("stop");
    const pending = rejection(store.GET("/users/", { signal: controller.signal }));
    await waitFor(() => server().requests.length === 8);
    expect(await settledTimers()).toBe(before + 1); // the attempt's deadline, while it runs
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(await settledTimers()).toBe(before);
  });

  it("rejects a timeoutMs that is not positive; Infinity, or more than a timer holds, means no timer", async () => {
    for (const timeoutMs of [0, -1, Number.NaN]) {
      expect(() => createStoreAdminClient({ apiUrl: server().url, accessToken: TEST_TOKEN, timeoutMs })).toThrow(
        TypeError,
      );
      expect(() => createStoreAdminClient({ apiUrl: server().url, accessToken: TEST_TOKEN, timeoutMs })).toThrow(
        `timeoutMs must be a positive number of milliseconds, got ${timeoutMs}.`,
      );
    }
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);

    // setTimeout fires at once for either delay (it overflows): the attempt would time out.
    for (const timeoutMs of [Number.POSITIVE_INFINITY, 2 ** 31]) {
      const store = createStoreAdminClient({ apiUrl: server().url, accessToken: TEST_TOKEN, timeoutMs, maxRetries: 0 });
      const sent = server().requests.length;
      server().enqueue({ hang: true });
      const controller = new AbortController();
      const reason = new Error("no timeout here");
      const setTimeoutSpy = vi.spyOn(globalThis, "setTimeout");
      try {
        let settled = false;
        const pending = rejection(store.GET("/users/", { signal: controller.signal })).finally(() => (settled = true));
        await waitFor(() => settled || server().requests.length === sent + 1);
        // Give a timer that fired at once a few turns to abort the attempt.
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(setTimeoutSpy.mock.calls.filter(([, delay]) => delay === timeoutMs)).toEqual([]);
        controller.abort(reason);
        expect(await pending).toBe(reason);
      } finally {
        setTimeoutSpy.mockRestore();
      }
    }
  });
});

describe("after a garbage collection", () => {
  // undici links a Request's signal to its parent through a WeakRef; once optimized code had
  // dropped the attempt's Request, a GC cut the link and a stalled body hung forever. The
  // soak test found it (see the note in src/client/request.ts). Reproducing it needs optimized code,
  // hence the warm-up, and an explicit GC. The client calls its fetch as fetch(url, init)
  // without middleware and fetch(request) with it: each way is tried.
  const VARIANTS: Array<{ name: string; fetch?: FetchLike; middleware?: boolean; expectInput?: "url" | "request" }> = [
    { name: "the platform fetch, called as fetch(url, init)" },
    {
      name: "a custom fetch, called as fetch(url, init)",
      fetch: (input, init) => globalThis.fetch(input, init),
      expectInput: "url",
    },
    {
      name: "a custom fetch with middleware registered, called as fetch(request)",
      fetch: (input, init) => globalThis.fetch(input, init),
      middleware: true,
      expectInput: "request",
    },
  ];

  for (const variant of VARIANTS) {
    it(`a stalled body still times out, and the caller's abort still stops it: ${variant.name}`, {
      timeout: 60_000,
    }, async () => {
      setFlagsFromString("--expose-gc");
      const gc = runInNewContext("gc") as () => void;
      const inputs = new Set<string>();
      const fetch: FetchLike | undefined = variant.fetch
        ? (input, init) => {
            inputs.add(
              input instanceof Request
                ? "request"
                : typeof input === "string" && init?.signal instanceof AbortSignal
                  ? "url"
                  : "other",
            );
            return variant.fetch!(input, init);
          }
        : undefined;
      const make = (timeoutMs: number): StoreAdminClient => {
        const store = createStoreAdminClient({
          apiUrl: server().url,
          accessToken: TEST_TOKEN,
          timeoutMs,
          maxRetries: 0,
          ...(fetch ? { fetch } : {}),
        });
        if (variant.middleware) store.use({ onRequest: () => undefined });
        return store;
      };
      // 1 s rather than less: none of the 1,000 warm-up calls may time out on a loaded machine.
      const timingOut = make(1_000);
      const aborting = make(30_000);
      for (let i = 0; i < 1_000; i++) expect((await timingOut.GET("/users/")).data).toEqual({ ok: true });
      if (variant.expectInput) expect([...inputs]).toEqual([variant.expectInput]);

      const stall = { status: 200, body: { id: 1, padding: "x".repeat(100) }, stallAfterHeaders: true };
      const reason = new Error("caller gave up");
      const controllers = Array.from({ length: 5 }, () => new AbortController());
      const before = server().requests.length;
      server().enqueue(...Array.from({ length: 10 }, () => stall));
      const outcomes = [
        ...Array.from({ length: 5 }, () => timingOut.GET("/users/{id}/", { params: { path: { id: 1 } } })),
        ...controllers.map((c) => aborting.GET("/users/{id}/", { params: { path: { id: 1 } }, signal: c.signal })),
      ].map((pending) =>
        pending.then(
          () => "ok",
          (e: unknown) => (e === reason ? "aborted" : (e as Error).name),
        ),
      );
      while (server().requests.length < before + 10) await new Promise((resolve) => setTimeout(resolve, 5));
      gc();
      gc();
      for (const controller of controllers) controller.abort(reason);
      // A bound on waiting, so that a regression reads "hung" instead of a test timeout.
      let giveUp: ReturnType<typeof setTimeout> | undefined;
      const hung = new Promise<string>((resolve) => (giveUp = setTimeout(() => resolve("hung"), 15_000)));
      const settled = await Promise.race([Promise.all(outcomes), hung]);
      clearTimeout(giveUp);
      expect(settled).toEqual([...Array(5).fill("TimeoutError"), ...Array(5).fill("aborted")]);
      expect(server().requests).toHaveLength(before + 10);
    });
  }
});
