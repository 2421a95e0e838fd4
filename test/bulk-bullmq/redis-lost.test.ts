/**
 * Redis lost mid-run and back, or not there at first: the workers report one clear error naming
 * Redis's address, stay alive (no unhandled rejection), do not spin while it is away, and work
 * once it is there; calls such as status() fail within connectTimeoutMs with an error naming the
 * address. No POST key is sent twice. Redis here keeps an append-only file, so its data survive
 * the kill.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BulkQueueConnectionError, createBulkQueue } from "../../src/bulk/bullmq/index.js";
import { freePort, startRedis } from "../../scripts/redis-server.js";
import type { TestItem } from "./fixtures/worker.js";
import { until, useQueueEnvironment } from "./helpers/environment.js";
import { startWorker } from "./helpers/workers.js";

const env = useQueueEnvironment("sk_live_lost_token_0123456789", { persistent: true });

/** CPU time (user + system) a process has used, in ms (Linux /proc). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // After "pid (comm) ": state is field 0; utime and stime are fields 11 and 12, in clock ticks (100/s).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

describe("Redis lost mid-run and back", () => {
  it("workers report the address once, stay alive without spinning, and finish after Redis is back; status() fails clearly meanwhile", async () => {
    const { server, redis } = env;
    server.reset();
    server.answer(() => ({ delayMs: 100 }));
    const producerErrors: Error[] = [];
    const bulk = env.queue("lost", { connectTimeoutMs: 2500, onError: (error) => producerErrors.push(error) });
    const items: TestItem[] = Array.from({ length: 60 }, (_, i) => ({ id: i + 1, method: i % 2 ? "POST" : "GET" }));
    await bulk.add(items, { key: (item) => String(item.id) });
    const workers = await env.startWorkers("lost", 2);
    await until(() => server.requests.length >= 15, 20_000, "15 requests");

    await redis.stop();
    const address = `127.0.0.1:${redis.port}`;
    await until(
      () => workers.every((w) => w.messages.some((m) => m.error?.includes(address))),
      10_000,
      "each worker to report the lost Redis",
    );
    const before = workers.map((w) => cpuMs(w.pid));
    const requestsBefore = server.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const usedMs = workers.map((w, i) => cpuMs(w.pid) - before[i]!);
    console.info(`[redis lost] worker CPU over 3 s without Redis: ${usedMs.join(" ms, ")} ms`);
    // Waiting, not spinning: well under a tenth of a core each (a busy loop would use ~3000 ms).
    for (const used of usedMs) expect(used).toBeLessThan(300);
    const error = await bulk.status().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BulkQueueConnectionError);
    expect((error as Error).message).toContain(`Redis at ${address} is unreachable`);
    // In-flight tasks could end, nothing new started without Redis.
    expect(server.requests.length - requestsBefore).toBeLessThanOrEqual(8);

    expect(producerErrors.length, "the producer reported the outage once").toBe(1);
    expect(producerErrors[0]).toBeInstanceOf(BulkQueueConnectionError);
    expect((producerErrors[0] as BulkQueueConnectionError).address).toBe(address);

    await redis.start();
    await env.settled(bulk, 60, 60_000);
    const status = await bulk.status();
    expect(status.failed).toBe(0);
    expect(status.done + status.inDoubt).toBe(60);
    const twice = [...server.countByKey("POST")].filter(([, count]) => count > 1);
    expect(twice, "POST keys received more than once").toEqual([]);
    for (const worker of workers) {
      // At most 3 reports on a quiet machine; a loaded fresh-clone run saw 5. A flood is a report per
      // reconnect attempt: hundreds over the outage.
      expect(
        worker.messages.filter((m) => m.error).length,
        `worker ${worker.pid}: one report per outage, not a flood`,
      ).toBeLessThanOrEqual(6);
      expect(worker.stderr).not.toMatch(/Unhandled|unhandled/);
    }
    await Promise.all(workers.map((worker) => worker.kill("SIGTERM")));
    for (const worker of workers) expect((await worker.exited).code).toBe(0);
  }, 120_000);

  it("Redis not there at all: calls fail within connectTimeoutMs naming the address, a worker waits without spinning and starts when Redis comes up", async () => {
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    const errors: Error[] = [];
    const bulk = createBulkQueue<TestItem>({
      name: "late-redis",
      connection: { host: "127.0.0.1", port },
      connectTimeoutMs: 1000,
      onError: (e) => errors.push(e),
    });
    try {
      for (const call of [
        () => bulk.status(),
        () => bulk.add([{ id: 1, method: "GET" }], { key: (item) => String(item.id) }),
        () => bulk.report(),
      ]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(BulkQueueConnectionError);
        expect((error as Error).message).toMatch(new RegExp(`^Redis at ${address} is unreachable \\(.*ECONNREFUSED`));
      }
      expect(errors.length, "one report for the outage").toBe(1);

      const worker = startWorker({
        QUEUE: "late-redis",
        REDIS_PORT: port,
        API_URL: env.server.url,
        STORE_TOKEN: env.token,
      });
      try {
        await until(
          () => worker.messages.some((m) => m.error?.includes(`Redis at ${address} is unreachable`)),
          15_000,
          "the worker's report",
        );
        await new Promise((resolve) => setTimeout(resolve, 500));
        const before = cpuMs(worker.pid);
        await new Promise((resolve) => setTimeout(resolve, 3000));
        expect(cpuMs(worker.pid) - before, "CPU ms over 3 s without Redis").toBeLessThan(300);
        expect(worker.messages.filter((m) => m.error).length).toBeLessThanOrEqual(3);

        const late = await startRedis({ port });
        try {
          await worker.ready;
          env.server.reset();
          await bulk.add(
            Array.from({ length: 10 }, (_, i): TestItem => ({ id: i + 1, method: "GET" })),
            { key: (item) => String(item.id) },
          );
          await env.settled(bulk, 10, 30_000);
          expect(await bulk.status()).toEqual({ waiting: 0, active: 0, done: 10, failed: 0, inDoubt: 0 });
          expect(env.server.requests).toHaveLength(10);
        } finally {
          await worker.kill("SIGTERM");
          await bulk.close();
          await late.dispose();
        }
      } finally {
        await worker.kill("SIGKILL");
      }
    } finally {
      await bulk.close();
    }
  }, 120_000);
});
