/**
 * One budget across processes: three worker processes, each with its own client, share a rate
 * budget of 30 requests per second, counted at the server (every request, the GET before each
 * PUT included). And one 429 with Retry-After pauses every worker, not only the one that got it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBulkQueue } from "../../src/bulk/bullmq/index.js";
import { startCountingServer, type CountingServer } from "./helpers/counting-server.js";
import { startRedis, type RedisServer } from "./helpers/redis.js";
import { startWorker, type WorkerProcess } from "./helpers/workers.js";
import type { TestItem } from "./fixtures/worker.js";

const TOKEN = "sk_live_budget_token_0123456789";
let redis: RedisServer;
let server: CountingServer;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  [redis, server] = await Promise.all([startRedis(), startCountingServer(TOKEN)]);
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.kill("SIGKILL")));
  await server?.close();
  await redis?.dispose();
});

async function startWorkers(queue: string, count: number, rate?: number): Promise<WorkerProcess[]> {
  const started = Array.from({ length: count }, () =>
    startWorker({ QUEUE: queue, REDIS_PORT: redis.port, API_URL: server.url, STORE_TOKEN: TOKEN, CONCURRENCY: 4, ...(rate ? { RATE: rate } : {}) }),
  );
  workers.push(...started);
  await Promise.all(started.map((worker) => worker.ready));
  return started;
}

async function waitUntilSettled(bulk: ReturnType<typeof createBulkQueue<TestItem>>, total: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await bulk.status();
    if (status.done + status.failed + status.inDoubt >= total && status.active === 0 && status.waiting === 0) return;
    if (Date.now() > deadline) throw new Error(`not settled after ${timeoutMs} ms: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("one rate budget across worker processes", () => {
  it("3 workers, budget 30/s: no 1-second window above 33 requests at the server, every key done", async () => {
    server.reset();
    const bulk = createBulkQueue<TestItem>({ name: "budget-30", connection: { host: "127.0.0.1", port: redis.port }, rate: { perSecond: 30 } });
    try {
      // 60 keys, two requests each (a GET, then a PUT): the budget counts requests, not jobs.
      const items: TestItem[] = Array.from({ length: 60 }, (_, i) => ({ id: i + 1, method: "PUT", gets: 1 }));
      await bulk.add(items, { key: (item) => String(item.id) });
      const started = Date.now();
      const three = await startWorkers("budget-30", 3, 30);
      await waitUntilSettled(bulk, 60, 30_000);
      const elapsed = Date.now() - started;
      expect(await bulk.status()).toEqual({ waiting: 0, active: 0, done: 60, failed: 0, inDoubt: 0 });
      expect(server.requests).toHaveLength(120);
      expect(server.maxInWindow(1000)).toBeLessThanOrEqual(33);
      expect([...server.countByKey("PUT").values()].every((n) => n === 1)).toBe(true);
      // The budget was the limit, not something else: 120 requests at 30/s take about 4 s.
      expect(elapsed).toBeGreaterThan(3000);
      await Promise.all(three.map((worker) => worker.kill("SIGTERM")));
      expect(three.flatMap((worker) => worker.messages.filter((m) => m.error))).toEqual([]);
    } finally {
      await bulk.close();
    }
  }, 60_000);
});
