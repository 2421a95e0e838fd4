/**
 * A server asking for a pause of weeks, and a budget of a request every few decades: no timer
 * overflows (`setTimeout` clamps anything over 2^31−1 ms to 1 ms, with a
 * `TimeoutOverflowWarning`, and a wait re-armed at each firing becomes a busy loop), and a
 * `Retry-After` beyond `maxPauseMs` stops the run with a message saying when to come back; a
 * resume then does the rest, each PATCH sent once (the refused one twice).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createStoreAdminClient } from "../../src/index.js";
import { memoryLedger, rateBudget, runBulk } from "../../src/bulk/index.js";
import { sleep } from "../../src/core/sleep.js";
import { startBulkServer, type BulkServer } from "./server.js";

let server: BulkServer;
const warnings: Error[] = [];
const onWarning = (warning: Error): void => {
  if (warning.name === "TimeoutOverflowWarning") warnings.push(warning);
};

beforeAll(async () => {
  server = await startBulkServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  warnings.length = 0;
  process.on("warning", onWarning);
});
afterEach(() => {
  process.off("warning", onWarning);
});

const ids = Array.from({ length: 12 }, (_, i) => i + 1);
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a Retry-After longer than maxPauseMs", () => {
  for (const [retryAfter, after] of [
    ["3000000", /20\d\d-\d\d-\d\dT[\d:.]+Z/],
    ["Thu, 01 Jan 2099 00:00:00 GMT", /20\d\d-\d\d-\d\dT[\d:.]+Z/],
    // Beyond what a Date holds: said in words, not a RangeError taken for a broken connection.
    [
      "99999999999999999999",
      /a time beyond any date \(the store's Retry-After is not a usable time; ask its operator\)/,
    ],
  ] as const) {
    it(`Retry-After: ${retryAfter} stops the run with a message, no timer overflows, and a resume does the rest`, async () => {
      server.respond = (request) =>
        request.method === "PATCH" && request.id === "3" && server.count("PATCH", 3) === 1
          ? { status: 429, headers: { "retry-after": retryAfter }, body: { detail: "come back later" } }
          : undefined;
      const ledger = memoryLedger();
      const client = createStoreAdminClient({ apiUrl: server.url, accessToken: "sk_test_long_pause" });
      const task = (id: number, { client: c, signal }: { client: typeof client; signal: AbortSignal }) =>
        c.PATCH("/gift-cards/{id}/", { params: { path: { id } }, body: { expired_at: null }, signal });
      // Without the cap, the run would wait for weeks: the signal ends it after 3 s, so that
      // the assertions below say what went wrong.
      const stop = new AbortController();
      const guard = setTimeout(() => stop.abort(), 3000);
      const first = await runBulk({
        client,
        runId: "long-pause",
        ledger,
        items: ids,
        key: String,
        concurrency: 2,
        rate: { perSecond: 100 },
        signal: stop.signal,
        task,
      }).finally(() => clearTimeout(guard));
      const sentAfterStop = server.received.length;
      await settle(300);
      expect(
        warnings.map((w) => w.message),
        "TimeoutOverflowWarning",
      ).toEqual([]);
      expect(server.received.length, "nothing sent after the run returned").toBe(sentAfterStop);
      expect(first.stopped).toBe(true);
      expect(first.stopReason).toMatch(
        new RegExp(
          `^The store answered 429 with a Retry-After of \\d+ days, longer than maxPauseMs \\(10 min\\): the run stopped\\. Run it again with the same runId and ledger after ${after.source} to go on\\.$`,
        ),
      );
      expect(stop.signal.aborted, "the run stopped on its own, not by the signal").toBe(false);
      // The refused PATCH failed (a 429 is a refusal: not in doubt); keys after it were not taken
      // (one whose PATCH was about to leave when the run stopped ends failed too, unsent).
      expect(first.inDoubt).toBe(0);
      expect(first.failures.find((f) => f.key === "3")).toMatchObject({ status: 429 });
      expect(first.done).toBeLessThan(ids.length - 1);

      server.respond = undefined;
      const second = await runBulk({
        client,
        runId: "long-pause",
        ledger,
        items: ids,
        key: String,
        concurrency: 2,
        rate: { perSecond: 100 },
        task,
      });
      expect(second).toMatchObject({ failed: 0, inDoubt: 0, stopped: false });
      expect(second.stopReason).toBeUndefined();
      expect(first.done + second.done).toBe(ids.length);
      for (const id of ids) expect(server.count("PATCH", id), `PATCH ${id}`).toBe(id === 3 ? 2 : 1);
    });
  }

  it("a pause under maxPauseMs is waited out; maxPauseMs is checked", async () => {
    let refused = false;
    server.respond = (request) => {
      if (refused || request.id !== "2") return undefined;
      refused = true;
      return { status: 429, headers: { "retry-after": "1" } };
    };
    const client = createStoreAdminClient({ apiUrl: server.url, accessToken: "sk_test_long_pause" });
    const report = await runBulk({
      client,
      runId: "short-pause",
      items: [1, 2, 3],
      key: String,
      concurrency: 1,
      maxPauseMs: 1500,
      task: (id, { client: c }) => c.GET("/users/{id}/", { params: { path: { id } } }),
    });
    expect(report).toMatchObject({ done: 3, failed: 0, stopped: false });
    expect(server.received).toHaveLength(4);
    for (const bad of [-1, Number.NaN, "60000"]) {
      await expect(
        runBulk({ client, runId: "bad", items: [], key: String, task: () => undefined, maxPauseMs: bad as number }),
      ).rejects.toThrow(/^maxPauseMs must be a number of milliseconds ≥ 0, got /);
    }
  });
});

describe("no timer beyond 2^31−1 ms", () => {
  it("a budget of one request per 31 years: the second waits without a warning or a busy loop, and its signal ends the wait", async () => {
    const budget = rateBudget({ perSecond: 1e-9 });
    await budget.acquire();
    const stop = new AbortController();
    const waiting = budget.acquire(stop.signal).then(
      () => "acquired",
      (reason: unknown) => reason,
    );
    await settle(200);
    stop.abort("enough");
    expect(await waiting).toBe("enough");
    expect(warnings).toEqual([]);
  });

  it("a run at rate 1e-9/s sends one request, waits quietly, and stops on its signal", async () => {
    const client = createStoreAdminClient({ apiUrl: server.url, accessToken: "sk_test_tiny_rate" });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    const report = await runBulk({
      client,
      runId: "tiny-rate",
      items: [1, 2, 3],
      key: String,
      concurrency: 1,
      rate: { perSecond: 1e-9 },
      signal: stop.signal,
      task: (id, { client: c, signal }) => c.GET("/users/{id}/", { params: { path: { id } }, signal }),
    });
    expect(report).toMatchObject({ done: 1, stopped: true });
    expect(server.received).toHaveLength(1);
    expect(warnings).toEqual([]);
  });

  it("sleep() of 35 days sets no overflowing timer and ends on its signal", async () => {
    const stop = new AbortController();
    const slept = sleep(35 * 86_400_000, stop.signal).catch((reason: unknown) => reason);
    await settle(100);
    stop.abort("stop");
    expect(await slept).toBe("stop");
    expect(warnings).toEqual([]);
  });
});
