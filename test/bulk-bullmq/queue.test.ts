/**
 * The queue's bookkeeping with real worker processes: a key added twice, by two producers, is
 * worked once; failures show in status() and in a report of runBulk's shape, and retryFailed()
 * re-queues the failed keys only; progress() yields runBulk's progress shape until the queue is
 * empty; invalid options are refused with errors that name them.
 */
import { describe, expect, it } from "vitest";
import { createBulkQueue, type BulkProgress } from "../../src/bulk/bullmq/index.js";
import { createStoreAdminClient } from "../../src/index.js";
import type { TestItem } from "./fixtures/worker.js";
import { useQueueEnvironment } from "./helpers/environment.js";

const env = useQueueEnvironment("sk_live_queue_token_0123456789");

describe("deduplicated work", () => {
  it("the same keys added by two producers at once, and again after the run, are worked once", async () => {
    const { server } = env;
    server.reset();
    const one = env.queue("dedup");
    const two = env.queue("dedup");
    const items = (from: number, to: number): TestItem[] =>
      Array.from({ length: to - from + 1 }, (_, i) => ({ id: from + i, method: i % 2 ? "POST" : "GET" }));
    // 1–60 and 31–90: keys 31–60 come from both producers.
    const added = await Promise.all([
      one.add(items(1, 60), { key: (item) => String(item.id) }),
      two.add(items(31, 90), { key: (item) => String(item.id) }),
    ]);
    expect(added).toEqual([60, 60]);
    expect((await one.status()).waiting).toBe(90);
    const workers = await env.startWorkers("dedup", 2);
    await env.settled(one, 90);
    // The same keys again, from an async iterable, after they are done: nothing more is sent.
    await two.add(
      (async function* () {
        yield* items(1, 90);
      })(),
      { key: (item) => String(item.id) },
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await two.status()).toEqual({ waiting: 0, active: 0, done: 90, failed: 0, inDoubt: 0 });
    expect(server.requests).toHaveLength(90);
    expect([...server.countByKey().values()].every((count) => count === 1)).toBe(true);
    await Promise.all(workers.map((worker) => worker.kill("SIGTERM")));
  }, 60_000);
});

describe("keys that arrive together", () => {
  it("[1, 2, 2, 3, 3, 3] in one add, worked by two processes at once, sends each key once", async () => {
    const { server } = env;
    server.reset();
    const bulk = env.queue("together");
    const items: TestItem[] = [1, 2, 2, 3, 3, 3].map((id) => ({ id, method: "POST" }));
    // One job per key: BullMQ keeps the first job of an id; the ledger's lock-checked marks do the rest.
    expect(await bulk.add(items, { key: (item) => String(item.id) })).toBe(6);
    const workers = await env.startWorkers("together", 2);
    await env.settled(bulk, 3);
    expect(await bulk.status()).toEqual({ waiting: 0, active: 0, done: 3, failed: 0, inDoubt: 0 });
    expect(Object.fromEntries(server.countByKey())).toEqual({ 1: 1, 2: 1, 3: 1 });
    await Promise.all(workers.map((worker) => worker.kill("SIGTERM")));
  }, 60_000);
});

describe("failures, the report and retryFailed()", () => {
  it("failed keys are in status() and the report with their status; a POST answered 500 is in doubt; retryFailed() re-runs the failed keys only", async () => {
    const { server } = env;
    server.reset();
    const bulk = env.queue("failures");
    const items: TestItem[] = Array.from({ length: 20 }, (_, i) => ({ id: i + 1, method: i % 2 ? "POST" : "GET" }));
    let broken = true;
    // Key 4 (POST): 409. Key 7 (GET): 404. Key 10 (POST): 422. Key 8 (POST): 500, which may have
    // been acted on: in doubt, as in runBulk, and never re-run by retryFailed(). Key 12 (POST):
    // 200 with an HTML body the client cannot use: the store may have acted, so in doubt too.
    server.answer(({ key }) => {
      if (!broken) return undefined;
      if (key === "12") return { headers: { "content-type": "text/html" }, body: "<html>ok</html>" };
      const status = ({ "4": 409, "7": 404, "10": 422, "8": 500 } as Record<string, number>)[key];
      return status ? { status } : undefined;
    });
    await bulk.add(items, { key: (item) => String(item.id) });
    const workers = await env.startWorkers("failures", 2);
    await env.settled(bulk, 20);
    expect(await bulk.status()).toEqual({ waiting: 0, active: 0, done: 15, failed: 3, inDoubt: 2 });
    const report = await bulk.report();
    expect(report).toMatchObject({
      runId: "failures",
      done: 15,
      failed: 3,
      skipped: 0,
      inDoubt: 2,
      inDoubtKeys: ["12", "8"],
      stopped: false,
    });
    expect(report.durationMs).toBeGreaterThan(0);
    const failures = [...report.failures].sort((a, b) => Number(a.key) - Number(b.key));
    expect(failures.map(({ key, status }) => ({ key, status }))).toEqual([
      { key: "4", status: 409 },
      { key: "7", status: 404 },
      { key: "10", status: 422 },
    ]);
    for (const failure of failures) {
      // The SDK's error message for the status, as runBulk reports it.
      expect(failure.message).toContain(String(failure.status));
      expect(failure.error).toBeInstanceOf(Error);
      expect((failure.error as Error).message).toBe(failure.message);
      // Useful when logged as JSON: the SDK error's name, its message and status.
      expect(JSON.parse(JSON.stringify(failure.error))).toEqual({
        name: expect.stringMatching(/Error$/),
        message: failure.message,
        status: failure.status,
      });
    }
    expect((failures[0]!.error as Error).name).toBe("ConflictError");
    expect(server.countByKey().get("7")).toBe(1);

    broken = false;
    expect(await bulk.retryFailed()).toBe(3);
    await env.settled(bulk, 20);
    expect(await bulk.status()).toEqual({ waiting: 0, active: 0, done: 18, failed: 0, inDoubt: 2 });
    expect((await bulk.report()).failures).toEqual([]);
    const counts = server.countByKey();
    for (const [key, count] of counts)
      expect(count, `requests for key ${key}`).toBe(["4", "7", "10"].includes(key) ? 2 : 1);
    await Promise.all(workers.map((worker) => worker.kill("SIGTERM")));
  }, 60_000);
});

describe("progress()", () => {
  it("yields runBulk's progress shape as keys end, and ends when nothing waits or runs", async () => {
    const { server } = env;
    server.reset();
    server.answer(() => ({ delayMs: 20 }));
    const bulk = env.queue("progress", { rate: { perSecond: 40 } });
    await bulk.add(
      Array.from({ length: 40 }, (_, i): TestItem => ({ id: i + 1, method: "GET" })),
      { key: (item) => String(item.id) },
    );
    const workers = await env.startWorkers("progress", 2, { RATE: 40 });
    const seen: BulkProgress[] = [];
    for await (const progress of bulk.progress({ intervalMs: 250 })) seen.push(progress);
    expect(seen.length).toBeGreaterThan(2);
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ done: 40, failed: 0, skipped: 0, inDoubt: 0, inFlight: 0, total: 40 });
    for (const progress of seen) {
      expect(Object.keys(progress).sort()).toEqual(
        expect.arrayContaining(["done", "failed", "skipped", "inDoubt", "inFlight", "perSecond", "total"]),
      );
    }
    // Done only grows; some snapshot saw the run at work, at about its budget of 40 requests/s.
    expect(seen.every((p, i) => i === 0 || p.done >= seen[i - 1]!.done)).toBe(true);
    expect(seen.some((p) => p.perSecond > 5 && p.etaMs !== undefined)).toBe(true);
    await Promise.all(workers.map((worker) => worker.kill("SIGTERM")));
  }, 60_000);
});

describe("progress() that would not end", () => {
  it("ends when its signal aborts, and close() ends one left open, with jobs still waiting and no worker", async () => {
    const bulk = env.queue("progress-stop");
    await bulk.add([{ id: 1, method: "GET" }], { key: (item) => String(item.id) });
    const stop = new AbortController();
    const seen: BulkProgress[] = [];
    const started = Date.now();
    setTimeout(() => stop.abort(), 300);
    for await (const progress of bulk.progress({ intervalMs: 5000, signal: stop.signal })) seen.push(progress);
    // The abort woke it: it did not wait out its 5 s interval.
    expect(Date.now() - started).toBeLessThan(4000);
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen[0]).toMatchObject({ done: 0, inFlight: 0, total: 1 });

    const open = bulk.progress({ intervalMs: 5000 });
    expect((await open.next()).done).toBe(false);
    const pending = open.next();
    await bulk.close();
    expect((await pending).done).toBe(true);
    await expect(bulk.status()).rejects.toThrow('The bulk queue "progress-stop" is closed');
    expect(() =>
      bulk.work(async () => undefined, {
        client: createStoreAdminClient({ apiUrl: env.server.url, accessToken: "t" }),
      }),
    ).toThrow(/is closed/);
  }, 30_000);
});

describe("bad input", () => {
  const connection = { host: "127.0.0.1", port: 1 };
  it("createBulkQueue() names the option that is wrong", () => {
    expect(() => createBulkQueue({ name: "", connection })).toThrow(/name must be a non-empty string/);
    expect(() => createBulkQueue({ name: "a:b", connection })).toThrow(/name must be .*"a:b"/);
    expect(() => createBulkQueue({ name: "ok", connection: undefined as never })).toThrow(
      /connection must be ioredis options/,
    );
    expect(() => createBulkQueue({ name: "ok", connection, rate: { perSecond: 0 } })).toThrow(
      /rate\.perSecond must be a positive number.*0/,
    );
    expect(() => createBulkQueue({ name: "ok", connection, rate: { perSecond: Number.NaN } })).toThrow(
      /rate\.perSecond/,
    );
    expect(() => createBulkQueue(undefined as never)).toThrow(/takes an options object/);
  });

  it("work() refuses a task that is not a function, a client not made by createStoreAdminClient, a bad concurrency", async () => {
    const bulk = createBulkQueue<TestItem>({ name: "bad-work", connection });
    const client = createStoreAdminClient({ apiUrl: "http://127.0.0.1:1", accessToken: "t" });
    expect(() => bulk.work("task" as never, { client })).toThrow(/task must be a function/);
    expect(() => bulk.work(async () => undefined, { client: {} as never })).toThrow(
      /client must be a client made by createStoreAdminClient/,
    );
    expect(() => bulk.work(async () => undefined, { client, concurrency: 0 })).toThrow(
      /concurrency must be a whole number ≥ 1, got 0/,
    );
    expect(() => bulk.work(async () => undefined, { client, lockDurationMs: 10 })).toThrow(
      /lockDurationMs must be at least 1000 ms/,
    );
    await bulk.close();
  });

  it("add() refuses a key function that returns no string, naming the item; the items before it are queued", async () => {
    const bulk = env.queue("bad-keys");
    await expect(bulk.add([{ id: 1, method: "GET" }], { key: undefined as never })).rejects.toThrow(
      /key must be a function/,
    );
    const items: TestItem[] = [
      { id: 1, method: "GET" },
      { id: 2, method: "GET" },
      { id: 0, method: "GET" },
    ];
    await expect(bulk.add(items, { key: (item) => (item.id ? String(item.id) : (item.id as never)) })).rejects.toThrow(
      /key\(\) returned 0 for item 2/,
    );
    expect((await bulk.status()).waiting).toBe(2);
  });
});
