/**
 * runBulk against a local HTTP server that counts what it receives: streaming and duplicates,
 * the rate budget (retries counted), the run-wide pause on a 429, results and failures, resume,
 * in doubt, the dry run, stopping, and bad options.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createStoreAdminClient, UnprocessableEntityError, type Middleware } from "../../src/index.js";
import { memoryLedger, runBulk, type BulkProgress, type Ledger } from "../../src/bulk/index.js";
import { startBulkServer, type BulkServer } from "./server.js";

const TOKEN = "sk_live_bulk_secret_token";
let server: BulkServer;

beforeAll(async () => {
  server = await startBulkServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const client = (options: { maxRetries?: number } = {}) =>
  createStoreAdminClient({ apiUrl: server.url, accessToken: TOKEN, ...options });
const ids = (n: number, from = 1) => Array.from({ length: n }, (_, i) => from + i);
const expire = (id: number, { client: c, signal }: { client: ReturnType<typeof client>; signal: AbortSignal }) =>
  c.PATCH("/gift-cards/{id}/", { params: { path: { id } }, body: { expired_at: null }, signal });

describe("items stream", () => {
  it("pulls items as workers free up (never more than the workers hold) and does a duplicate key once", async () => {
    let pulled = 0;
    let ended = 0;
    let mostAhead = 0;
    const yielded = new Set<number>();
    function* items() {
      for (const id of [1, 2, 3, 2, 4, 5, 6, 1, 7, 8, 9, 10, 11, 12]) {
        pulled++;
        // A duplicate never reaches a task: it ends as it is pulled.
        if (yielded.has(id)) ended++;
        yielded.add(id);
        mostAhead = Math.max(mostAhead, pulled - ended);
        yield id;
      }
    }
    const report = await runBulk({
      client: client(),
      runId: "stream",
      items: items(),
      key: String,
      concurrency: 3,
      task: async (id, context) => {
        try {
          return await expire(id, context);
        } finally {
          ended++;
        }
      },
    });
    expect(mostAhead).toBeLessThanOrEqual(3 + 1);
    expect(report).toMatchObject({ done: 12, failed: 0, skipped: 2, inDoubt: 0, stopped: false });
    for (const id of ids(12)) expect(server.count("PATCH", id)).toBe(1);
  });

  it("takes arrays, sync and async iterables", async () => {
    async function* later() {
      for (const id of [3, 4]) yield id;
    }
    for (const items of [[1, 2], new Set([1, 2]).values(), later()]) {
      const report = await runBulk({ client: client(), runId: "kinds", items, key: String, task: expire });
      expect(report.done).toBe(2);
    }
    expect(server.received).toHaveLength(6);
  });
});

describe("rate budget", () => {
  it("holds requests per second in every window the server sees, retries included, together with concurrency", async () => {
    const attempts = new Map<string, number>();
    server.respond = (request) => {
      const seen = (attempts.get(request.id!) ?? 0) + 1;
      attempts.set(request.id!, seen);
      // Every third key's first GET fails with a 503 (no Retry-After): the client retries it.
      if (Number(request.id) % 3 === 0 && seen === 1) return { status: 503, body: { detail: "busy" } };
      return { delayMs: 30, body: { id: Number(request.id) } };
    };
    const report = await runBulk({
      client: client(),
      runId: "rate",
      items: ids(45),
      key: String,
      concurrency: 6,
      rate: { perSecond: 15 },
      task: (id, { client: c, signal }) => c.GET("/users/{id}/", { params: { path: { id } }, signal }),
    });
    expect(report.done).toBe(45);
    // 45 keys and a retry for each of the 15 keys divisible by 3.
    expect(server.received).toHaveLength(60);
    expect(server.count("GET", 3)).toBe(2);
    expect(server.maxInWindow()).toBeLessThanOrEqual(Math.floor(15 * 1.1));
    expect(server.maxConcurrent).toBeLessThanOrEqual(6);
  });

  it("takes a rate budget object: acquire is awaited before every attempt", async () => {
    let acquired = 0;
    const report = await runBulk({
      client: client(),
      runId: "budget-object",
      items: ids(5),
      key: String,
      rate: {
        acquire: async () => {
          acquired++;
        },
        pauseUntil: () => undefined,
      },
      task: expire,
    });
    expect(report.done).toBe(5);
    expect(acquired).toBe(5);
  });
});

describe("one 429 slows the whole run", () => {
  it("starts no request of the run until the Retry-After has passed", async () => {
    let refusedAt: number | undefined;
    server.respond = (request) => {
      if (request.id === "6" && refusedAt === undefined) {
        refusedAt = Date.now();
        return { status: 429, headers: { "retry-after": "1" }, body: { detail: "slow down" } };
      }
      return { delayMs: 5, body: { id: Number(request.id) } };
    };
    const report = await runBulk({
      client: client(),
      runId: "429",
      items: ids(30),
      key: String,
      concurrency: 4,
      task: expire,
    });
    expect(report.done).toBe(30);
    expect(refusedAt).toBeDefined();
    // Requests already on their way when the 429 left may land just after it; none in the second after.
    const during = server.received.filter((r) => r.at >= refusedAt! + 100 && r.at < refusedAt! + 990);
    expect(during).toEqual([]);
    // The refused PATCH was resent (a 429 is refused before any handler runs) after the pause.
    expect(server.count("PATCH", 6)).toBe(2);
    expect(server.received.some((r) => r.at >= refusedAt! + 990)).toBe(true);
  });
});

describe("a client paused by a 429 before the run", () => {
  it("the run starts after the client's pause, and its requests leave spaced by the rate, not all at once when the pause ends", async () => {
    server.respond = (request) =>
      request.id === "99" ? { status: 429, headers: { "retry-after": "1" }, body: { detail: "slow down" } } : undefined;
    const store = client({ maxRetries: 0 });
    await store.PATCH("/gift-cards/{id}/", { params: { path: { id: 99 } }, body: { expired_at: null } });
    const refusedAt = server.received[0]!.at;
    // 10/s: a slot every 105 ms, the first when the pause ends, so the fifth request cannot leave
    // before 1,000 + 4 × 105 ms. Without the client's pause as the run's, the 5 slots were handed
    // out during the pause and the requests left together when it ended (at most twice as fast
    // as the spacing: the fifth about 1,210 ms after the 429).
    const report = await runBulk({
      client: store,
      runId: "paused-client",
      items: ids(5),
      key: String,
      concurrency: 5,
      rate: { perSecond: 10 },
      task: expire,
    });
    expect(report.done).toBe(5);
    const times = server.received.slice(1).map((r) => r.at - refusedAt);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...times), JSON.stringify(times)).toBeGreaterThanOrEqual(1400);
  });
});

describe("results", () => {
  it("done for a 2xx or a plain value; failed with the status and the SDK's error (no token) for an error status or a throw", async () => {
    server.respond = (request) =>
      request.id === "2"
        ? {
            status: 422,
            body: {
              detail: `bad card; token was ${TOKEN}`,
              validation: [{ location: ["body", "expired_at"], message: "invalid" }],
            },
          }
        : undefined;
    const events: BulkProgress[] = [];
    const report = await runBulk({
      client: client(),
      runId: "results",
      items: ids(5),
      key: String,
      progressIntervalMs: 0,
      onProgress: (p) => events.push(p),
      task: async (id, context) => {
        if (id === 4) {
          // A GET, not a PATCH: a throw after a PATCH the store did not refuse is in doubt.
          await context.client.GET("/gift-cards/", { signal: context.signal });
          throw new Error(`no luck with ${TOKEN} (raw) or Bearer ${TOKEN}`);
        }
        if (id === 5) return "a plain value";
        return expire(id, context);
      },
    });
    expect(report).toMatchObject({ runId: "results", done: 3, failed: 2, skipped: 0, inDoubt: 0 });
    const byKey = Object.fromEntries(report.failures.map((f) => [f.key, f]));
    expect(byKey["2"]!.status).toBe(422);
    expect(byKey["2"]!.error).toBeInstanceOf(UnprocessableEntityError);
    expect(byKey["2"]!.message).toContain("expired_at");
    expect(byKey["4"]!.status).toBeUndefined();
    expect(byKey["4"]!.message).toBe("no luck with [REDACTED] (raw) or Bearer [REDACTED]");
    expect(JSON.stringify(report.failures.map((f) => f.message))).not.toContain(TOKEN);
    expect(JSON.stringify(events)).not.toContain(TOKEN);
    expect(events.at(-1)).toMatchObject({ done: 3, failed: 2, inFlight: 0, total: 5 });
  });

  it("runs the caller's middleware on every request of a task", async () => {
    const store = client();
    let seen = 0;
    const count: Middleware = {
      onRequest: () => {
        seen++;
      },
    };
    store.use(count);
    await runBulk({ client: store, runId: "middleware", items: ids(4), key: String, task: expire });
    expect(seen).toBe(4);
    expect(server.received).toHaveLength(4);
  });
});

describe("resume", () => {
  it("skips keys done, retries failed ones (or keeps them with retryFailed: false), and counts the skipped", async () => {
    const ledger = memoryLedger();
    server.respond = (request) =>
      ["3", "7"].includes(request.id!) ? { status: 409, body: { detail: "conflict" } } : undefined;
    const first = await runBulk({
      client: client(),
      runId: "resume",
      items: ids(10),
      key: String,
      ledger,
      task: expire,
    });
    expect(first).toMatchObject({ done: 8, failed: 2, skipped: 0 });

    server.reset();
    const kept = await runBulk({
      client: client(),
      runId: "resume",
      items: ids(10),
      key: String,
      ledger,
      task: expire,
      retryFailed: false,
    });
    expect(kept).toMatchObject({ done: 0, failed: 0, skipped: 10 });
    expect(server.received).toHaveLength(0);

    const second = await runBulk({
      client: client(),
      runId: "resume",
      items: ids(10),
      key: String,
      ledger,
      task: expire,
    });
    expect(second).toMatchObject({ done: 2, failed: 0, skipped: 8 });
    expect(server.received.map((r) => r.id).sort()).toEqual(["3", "7"]);
  });

  it("refuses a ledger of another run", async () => {
    const ledger = memoryLedger();
    await runBulk({ client: client(), runId: "one", items: [1], key: String, ledger, task: expire });
    await expect(
      runBulk({ client: client(), runId: "two", items: [1], key: String, ledger, task: expire }),
    ).rejects.toThrow(/belongs to the run "one", not "two"/);
  });
});

describe("in doubt", () => {
  it("a POST left without an answer (aborted) or answered 5xx is in doubt and not re-run; GET failures are plain failures", async () => {
    const ledger = memoryLedger();
    const hard = new AbortController();
    server.respond = (request) => {
      if (request.id === "2") return { status: 500, body: { detail: "oops" } };
      if (request.id === "3") {
        hard.abort(); // the run is aborted while this renewal is on the server
        return { delayMs: 300, status: 201, body: { id: 3 } };
      }
      if (request.id === "4" && request.method === "GET") return { status: 500, body: { detail: "oops" } };
      return undefined;
    };
    const renew = (id: number, { client: c, signal }: { client: ReturnType<typeof client>; signal: AbortSignal }) =>
      id === 4
        ? c.GET("/users/{id}/", { params: { path: { id } }, signal, maxRetries: 0 })
        : c.POST("/subscriptions/{id}/renew/", { params: { path: { id } }, signal });
    const first = await runBulk({
      client: client(),
      runId: "doubt",
      items: ids(4),
      key: String,
      concurrency: 1,
      ledger,
      abortInFlight: hard.signal,
      task: renew,
    });
    expect(first.inDoubtKeys.sort()).toEqual(["2", "3"]);
    expect(first).toMatchObject({ done: 1, inDoubt: 2, stopped: true });

    server.reset();
    server.respond = (request) =>
      request.method === "GET" ? { status: 500, body: { detail: "still down" } } : undefined;
    const second = await runBulk({ client: client(), runId: "doubt", items: ids(4), key: String, ledger, task: renew });
    expect(second).toMatchObject({ done: 0, failed: 1, skipped: 1, inDoubt: 2 });
    expect(second.inDoubtKeys.sort()).toEqual(["2", "3"]);
    expect(server.count("POST", 2) + server.count("POST", 3)).toBe(0);
    expect(server.count("GET", 4)).toBe(1);

    server.reset();
    const third = await runBulk({
      client: client(),
      runId: "doubt",
      items: ids(4),
      key: String,
      ledger,
      task: renew,
      rerunInDoubt: true,
    });
    expect(third).toMatchObject({ done: 3, skipped: 1, inDoubt: 0 });
    expect(server.count("POST", 3)).toBe(1);
  });
});

describe("dry run", () => {
  it("sends nothing, records nothing, and shows which items the contract refuses, by field", async () => {
    const ledger: Ledger = {
      ...memoryLedger(),
      open: () => Promise.reject(new Error("the dry run must not open the ledger")),
    };
    const report = await runBulk({
      client: client(),
      runId: "dry",
      items: [
        { id: 1, body: { expired_at: null } },
        { id: 2, body: { expired_at: "not a date" } },
        { id: 3, body: { no_such_field: 1 } },
        { id: 4, body: { expired_at: null }, query: { _method: "DELETE" } },
      ],
      key: (item) => String(item.id),
      ledger,
      dryRun: true,
      task: (item, { client: c, signal }) =>
        c.PATCH("/gift-cards/{id}/", {
          params: { path: { id: item.id }, query: item.query as never },
          body: item.body as never,
          signal,
        }),
    });
    expect(server.received).toHaveLength(0);
    expect(report.done).toBe(1);
    expect(report.failures.map((f) => f.key)).toEqual(["2", "3", "4"]);
    expect(report.failures[0]!.status).toBe(422);
    expect(report.failures[0]!.message).toContain("expired_at");
    expect(report.failures[1]!.message).toContain("no_such_field");
    expect(report.failures[2]!.message).toContain("query._method");
  });
});

describe("stop", () => {
  it("stops taking items when the signal aborts, records the tasks in flight, and a resume does exactly the rest", async () => {
    const ledger = memoryLedger();
    const stop = new AbortController();
    server.respond = () => ({ delayMs: 20, body: { id: 1 } });
    let started = 0;
    const put = (id: number, { client: c, signal }: { client: ReturnType<typeof client>; signal: AbortSignal }) => {
      if (++started === 10) stop.abort();
      return c.PUT("/users/{id}/", {
        params: { path: { id } },
        body: { email: `u${id}@example.com` } as never,
        signal,
      });
    };
    const first = await runBulk({
      client: client(),
      runId: "stop",
      items: ids(40),
      key: String,
      concurrency: 4,
      ledger,
      signal: stop.signal,
      task: put,
    });
    expect(first.stopped).toBe(true);
    expect(first.done).toBe(10);
    expect(server.received).toHaveLength(10);

    const second = await runBulk({
      client: client(),
      runId: "stop",
      items: ids(40),
      key: String,
      concurrency: 4,
      ledger,
      task: put,
    });
    expect(second).toMatchObject({ done: 30, skipped: 10, stopped: false });
    for (const id of ids(40)) expect(server.count("PUT", id)).toBe(1);
  });
});

describe("bad options", () => {
  const base = () => ({ client: client(), runId: "bad", items: [1], key: String, task: () => undefined });
  it.each([
    [{ runId: "" }, /runId must be a non-empty string/],
    [{ items: 5 }, /items must be an iterable/],
    [{ key: "id" }, /key must be a function/],
    [{ task: undefined }, /task must be a function/],
    [{ concurrency: 0 }, /concurrency must be a whole number ≥ 1, got 0/],
    [{ concurrency: 1.5 }, /concurrency must be a whole number/],
    [{ rate: { perSecond: 0 } }, /rate.perSecond must be a positive number/],
    [{ rate: { perSecond: Number.NaN } }, /rate.perSecond must be a positive number/],
    [
      { ledger: { open: () => undefined } },
      /ledger must be a Ledger .* lacks get, start, sending, end, checkpoint, close/,
    ],
    [{ signal: "stop" }, /signal must be an AbortSignal/],
    [{ client: { GET: () => undefined } }, /client must be a client made by createStoreAdminClient/],
  ])("%j is refused with a clear error, nothing sent", async (change, message) => {
    await expect(runBulk({ ...base(), ...change } as never)).rejects.toThrow(message);
    expect(server.received).toHaveLength(0);
  });

  it("a key function returning no string stops the run with a clear error after the tasks in flight", async () => {
    await expect(
      runBulk({
        client: client(),
        runId: "bad-key",
        items: [{ id: 1 }, {}],
        key: (item: { id?: number }) => item.id as unknown as string,
        task: () => 1,
      }),
    ).rejects.toThrow(/key\(item\) must return a non-empty string; it returned 1/);
  });
});
