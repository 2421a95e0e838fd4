/**
 * What every queue test file needs, started once per file and stopped after it: a real
 * redis-server, the counting HTTP server, and a way to start worker processes and queues
 * against them. Everything started here is stopped in `afterAll`, by pid.
 */
import { afterAll, beforeAll } from "vitest";
import { createBulkQueue, type BulkQueue, type BulkQueueOptions } from "../../../src/bulk/bullmq/index.js";
import type { TestItem } from "../fixtures/worker.js";
import { startCountingServer, type CountingServer } from "./counting-server.js";
import { startRedis, type RedisServer } from "../../../scripts/redis-server.js";
import { startWorker, type WorkerEnv, type WorkerProcess } from "./workers.js";

export interface QueueEnvironment {
  readonly redis: RedisServer;
  readonly server: CountingServer;
  readonly token: string;
  /** Starts `count` worker processes on `queue`; resolves once all are ready. */
  startWorkers(queue: string, count: number, env?: Partial<WorkerEnv>): Promise<WorkerProcess[]>;
  /** A queue handle in the test process (a producer), closed after the file. */
  queue(name: string, options?: Partial<BulkQueueOptions>): BulkQueue<TestItem>;
  /** Resolves once `total` keys have ended and nothing waits or runs. */
  settled(bulk: BulkQueue<TestItem>, total: number, timeoutMs?: number): Promise<void>;
}

export function useQueueEnvironment(token: string, options: { persistent?: boolean } = {}): QueueEnvironment {
  let redis: RedisServer | undefined;
  let server: CountingServer | undefined;
  const workers: WorkerProcess[] = [];
  const queues: Array<BulkQueue<TestItem>> = [];

  beforeAll(async () => {
    [redis, server] = await Promise.all([startRedis(options), startCountingServer(token)]);
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill("SIGKILL")));
    await Promise.all(queues.map((queue) => queue.close().catch(() => undefined)));
    await server?.close();
    await redis?.dispose();
  });

  const env: QueueEnvironment = {
    get redis() {
      return redis!;
    },
    get server() {
      return server!;
    },
    token,
    async startWorkers(queue, count, extra = {}) {
      const started = Array.from({ length: count }, () =>
        startWorker({
          QUEUE: queue,
          REDIS_PORT: redis!.port,
          API_URL: server!.url,
          STORE_TOKEN: token,
          CONCURRENCY: 4,
          ...extra,
        }),
      );
      workers.push(...started);
      await Promise.all(started.map((worker) => worker.ready));
      return started;
    },
    queue(name, extra = {}) {
      const bulk = createBulkQueue<TestItem>({ name, connection: { host: "127.0.0.1", port: redis!.port }, ...extra });
      queues.push(bulk);
      return bulk;
    },
    async settled(bulk, total, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const status = await bulk.status();
        if (status.done + status.failed + status.inDoubt >= total && status.active === 0 && status.waiting === 0)
          return;
        if (Date.now() > deadline) throw new Error(`not settled after ${timeoutMs} ms: ${JSON.stringify(status)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
  };
  return env;
}

/** Waits until `check()` is true, looking every 20 ms. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
