/**
 * One budget across processes: three worker processes, each with its own client, share a rate
 * budget of 30 requests per second, counted at the server (every request, the GET before each
 * PUT included). And one 429 with Retry-After pauses every worker, not only the one that got it.
 */
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import type { TestItem } from "./fixtures/worker.js";
import { until, useQueueEnvironment } from "./helpers/environment.js";

const env = useQueueEnvironment("sk_live_budget_token_0123456789");

describe("one rate budget across worker processes", () => {
  it("3 workers, budget 30/s: no 1-second window above 33 requests at the server, every key done", async () => {
    const { server } = env;
    server.reset();
    const bulk = env.queue("budget-30", { rate: { perSecond: 30 } });
    // 60 keys, two requests each (a GET, then a PUT): the budget counts requests, not jobs.
    const items: TestItem[] = Array.from({ length: 60 }, (_, i) => ({ id: i + 1, method: "PUT", gets: 1 }));
    await bulk.add(items, { key: (item) => String(item.id) });
    const started = Date.now();
    const three = await env.startWorkers("budget-30", 3, { RATE: 30 });
    // Nothing but the server runs in this process meanwhile: its clock is the one measured.
    await until(() => server.requests.length >= 120, 30_000, "120 requests");
    await env.settled(bulk, 60);
    const elapsed = Date.now() - started;
    expect(await bulk.status()).toEqual({ waiting: 0, active: 0, done: 60, failed: 0, inDoubt: 0 });
    expect(server.requests).toHaveLength(120);
    console.info(`[budget 30/s] max requests in a 1-second window: ${server.maxInWindow(1000)}, ${elapsed} ms for 120 requests`);
    expect(server.maxInWindow(1000)).toBeLessThanOrEqual(33);
    expect(new Set(server.requests.map((r) => r.worker)).size, "all three workers sent requests").toBe(3);
    expect([...server.countByKey("PUT").values()].every((n) => n === 1)).toBe(true);
    // The budget was the limit: 120 requests at 30/s take about 4 s.
    expect(elapsed).toBeGreaterThan(3000);
    await Promise.all(three.map((worker) => worker.kill("SIGTERM")));
    expect(three.flatMap((worker) => worker.messages.filter((m) => m.error))).toEqual([]);
  }, 60_000);

  it("one 429 with Retry-After: 2 pauses all three workers until it has passed; then everything is done", async () => {
    const { server } = env;
    server.reset();
    const bulk = env.queue("pause-429", { rate: { perSecond: 40 } });
    const items: TestItem[] = Array.from({ length: 80 }, (_, i) => ({ id: i + 1, method: "GET" }));
    await bulk.add(items, { key: (item) => String(item.id) });
    let limited: number | undefined;
    server.answer(({ index }) => {
      if (index !== 20) return { delayMs: 30 };
      limited = Date.now();
      return { status: 429, headers: { "retry-after": "2" } };
    });
    const three = await env.startWorkers("pause-429", 3, { RATE: 40 });
    await until(() => limited !== undefined, 20_000, "the 429");
    // The pause lives in Redis, where every worker sees it: BullMQ's rate-limit key (no worker
    // takes a job) and the budget's pause (no request starts), each expiring with Retry-After.
    const redis = new Redis({ host: "127.0.0.1", port: env.redis.port });
    try {
      await until(() => Date.now() - limited! > 100, 1000, "the 429 to reach its worker");
      const [limiterTtl, limiterValue, budgetPause] = await Promise.all([
        redis.pttl("bull:pause-429:limiter"),
        redis.get("bull:pause-429:limiter"),
        redis.pttl("bull:sdk-budget:pause-429:pause"),
      ]);
      expect(limiterValue, "BullMQ's rateLimit() marks the limiter as full").toBe(String(Number.MAX_SAFE_INTEGER));
      for (const ttl of [limiterTtl, budgetPause]) {
        expect(ttl).toBeGreaterThan(1500);
        expect(ttl).toBeLessThanOrEqual(2000);
      }
    } finally {
      redis.disconnect();
    }
    await env.settled(bulk, 80);
    expect(await bulk.status()).toEqual({ waiting: 0, active: 0, done: 80, failed: 0, inDoubt: 0 });
    // Requests sent before the 429 reached its worker arrive within a few ms of it; after that,
    // nothing from any worker until Retry-After has passed.
    const during = server.requests.filter((r) => r.at > limited! + 100 && r.at < limited! + 1950);
    expect(during, "requests during the pause").toEqual([]);
    const after = server.requests.filter((r) => r.at >= limited! + 1950);
    expect(new Set(after.map((r) => r.worker)).size, "every worker went on after the pause").toBe(3);
    // The refused request was sent again (the client's own retry, after the pause): its key is done.
    const refusedKey = server.requests[20]!.key;
    expect(server.countByKey().get(refusedKey)).toBe(2);
    await Promise.all(three.map((worker) => worker.kill("SIGTERM")));
  }, 60_000);
});
