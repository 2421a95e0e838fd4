/**
 * `progress()` across a Redis outage, against a real redis-server that the test stops and starts:
 * - frozen (SIGSTOP: connections stay open, nothing answers), then thawed: progress() neither
 *   hangs nor spins; it throws a clear error naming Redis while it is away, or goes on, and a
 *   progress() after it ends once the queue is done;
 * - `intervalMs` is honoured: snapshots come no closer together than it, jobs ending or not;
 * - killed and restarted empty (no persistence): progress() and status() say the queue's state
 *   was lost, and the workers tell `onError` so;
 * - BullMQ's "could not renew lock for job …" reaches `onError` saying whether anything was lost.
 */
import { describe, expect, it } from "vitest";
import { BulkQueueConnectionError, BulkQueueStateLostError, type BulkProgress } from "../../src/bulk/bullmq/index.js";
import type { TestItem } from "./fixtures/worker.js";
import { until, useQueueEnvironment } from "./helpers/environment.js";

const env = useQueueEnvironment("sk_live_progress_token_0123456789");

type Seen = { at: number; snapshot?: BulkProgress; error?: unknown; ended?: boolean };

/** Reads `progress()` in the background, noting each snapshot, the end or the error. */
function watch(iterator: AsyncIterable<BulkProgress>): { seen: Seen[]; finished: Promise<void> } {
  const seen: Seen[] = [];
  const finished = (async () => {
    try {
      for await (const snapshot of iterator) seen.push({ at: Date.now(), snapshot });
      seen.push({ at: Date.now(), ended: true });
    } catch (error) {
      seen.push({ at: Date.now(), error });
    }
  })();
  return { seen, finished };
}

describe("progress() and a Redis outage", () => {
  it("honours intervalMs while jobs end several times a second", async () => {
    const { server } = env;
    server.reset();
    server.answer(() => ({ delayMs: 20 }));
    const bulk = env.queue("progress-interval");
    await bulk.add(
      Array.from({ length: 40 }, (_, i): TestItem => ({ id: i + 1, method: "GET" })),
      { key: (item) => String(item.id) },
    );
    const { seen, finished } = watch(bulk.progress({ intervalMs: 1000 }));
    const workers = await env.startWorkers("progress-interval", 1, { CONCURRENCY: 1 });
    await finished;
    const gaps = seen.slice(1, -2).map((s, i) => s.at - seen[i]!.at);
    console.info(`[progress intervalMs 1000] ${seen.length} events, gaps ${gaps.join(", ")} ms`);
    expect(seen.at(-1)!.ended).toBe(true);
    expect(seen.at(-2)!.snapshot).toMatchObject({ done: 40, inFlight: 0 });
    // Snapshots are intervalMs apart, however often jobs end.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(950);
    await Promise.all(workers.map((w) => w.kill("SIGTERM")));
  }, 60_000);

  it("Redis frozen for a while, then back: progress() throws a clear error or goes on, never hangs; after it, progress() ends with the queue done", async () => {
    const { server, redis } = env;
    server.reset();
    server.answer(() => ({ delayMs: 50 }));
    const bulk = env.queue("progress-frozen", { connectTimeoutMs: 1000, onError: () => undefined });
    await bulk.add(
      Array.from({ length: 30 }, (_, i): TestItem => ({ id: i + 1, method: "GET" })),
      { key: (item) => String(item.id) },
    );
    const workers = await env.startWorkers("progress-frozen", 1, { CONCURRENCY: 2 });
    const { seen, finished } = watch(bulk.progress({ intervalMs: 200 }));
    await until(() => server.requests.length >= 5, 20_000, "5 requests");
    process.kill(redis.pid!, "SIGSTOP");
    try {
      // While Redis is frozen: an error that names it within a few seconds (no snapshot hangs).
      await until(
        () => seen.some((s) => s.error !== undefined || s.ended),
        8_000,
        "progress() to throw while Redis is frozen",
      );
    } finally {
      process.kill(redis.pid!, "SIGCONT");
    }
    const error = seen.find((s) => s.error !== undefined)?.error;
    expect(error).toBeInstanceOf(BulkQueueConnectionError);
    expect((error as Error).message).toMatch(
      new RegExp(`^Redis at 127\\.0\\.0\\.1:${redis.port} (is unreachable|did not answer)`),
    );
    await finished;
    // Back: a new progress() follows the rest of the work to its end.
    const again = watch(bulk.progress({ intervalMs: 200 }));
    await Promise.race([
      again.finished,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`progress() did not end: ${JSON.stringify(again.seen.slice(-2))}`)), 30_000),
      ),
    ]);
    expect(again.seen.at(-1)!.ended).toBe(true);
    expect(again.seen.at(-2)!.snapshot).toMatchObject({ done: 30, failed: 0, inFlight: 0 });
    await Promise.all(workers.map((w) => w.kill("SIGTERM")));
  }, 60_000);

  it("Redis killed and back empty: progress() and status() say the queue's state was lost, and so do the workers", async () => {
    const { server, redis } = env;
    server.reset();
    server.answer(() => ({ delayMs: 50 }));
    const bulk = env.queue("progress-lost", { connectTimeoutMs: 1000, onError: () => undefined });
    await bulk.add(
      Array.from({ length: 30 }, (_, i): TestItem => ({ id: i + 1, method: "GET" })),
      { key: (item) => String(item.id) },
    );
    const workers = await env.startWorkers("progress-lost", 1, { CONCURRENCY: 1 });
    const { seen, finished } = watch(bulk.progress({ intervalMs: 200 }));
    await until(() => server.requests.length >= 5, 20_000, "5 requests");
    await redis.stop();
    await redis.start();
    await Promise.race([
      finished,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`progress() did not end: ${JSON.stringify(seen.slice(-2))}`)), 15_000),
      ),
    ]);
    // Asked while Redis was away, progress() says so; asked after, it says the state is lost.
    const error = seen.at(-1)!.error;
    expect(
      error instanceof BulkQueueStateLostError || error instanceof BulkQueueConnectionError,
      `progress() ends with ${String(error)}`,
    ).toBe(true);
    const lost = await bulk.status().catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(BulkQueueStateLostError);
    expect((lost as Error).message).toMatch(
      new RegExp(
        `^Redis at 127\\.0\\.0\\.1:${redis.port} no longer holds the state of the bulk queue "progress-lost" \\(it came back empty, or was flushed\\): the jobs not yet done and the ledger are lost\\.`,
      ),
    );
    await until(
      () => workers[0]!.messages.some((m) => m.error?.includes("no longer holds the state")),
      15_000,
      "the worker to say the state was lost",
    );
    // Added again, the queue follows the new work.
    await bulk.add([{ id: 1, method: "GET" }], { key: (item) => String(item.id) });
    await env.settled(bulk, 1, 20_000);
    await Promise.all(workers.map((w) => w.kill("SIGTERM")));
  }, 60_000);
});

describe("BullMQ's own messages", () => {
  it("a lock not renewed (the worker frozen past lockDurationMs) reaches onError saying nothing is lost; the POST is sent once", async () => {
    const { server } = env;
    server.reset();
    server.answer(() => ({ delayMs: 3000 }));
    const bulk = env.queue("lock-lost");
    await bulk.add([{ id: 7, method: "POST" }], { key: (item) => String(item.id) });
    const [worker] = await env.startWorkers("lock-lost", 1, { LOCK_MS: 1000 });
    await until(() => server.requests.length === 1, 20_000, "the POST");
    process.kill(worker!.pid, "SIGSTOP");
    await new Promise((resolve) => setTimeout(resolve, 2500));
    process.kill(worker!.pid, "SIGCONT");
    await until(
      () => worker!.messages.some((m) => m.error?.includes("could not renew lock")),
      15_000,
      "the lock message",
    );
    const said = worker!.messages.find((m) => m.error?.includes("could not renew lock"))!.error!;
    expect(said).toMatch(
      /^could not renew lock for job key-7\. Nothing is lost or sent twice: another worker may take the job over, but the ledger runs a key's task only once/,
    );
    await env.settled(bulk, 1, 20_000);
    const status = await bulk.status();
    expect(status.done + status.inDoubt).toBe(1);
    expect(server.countByKey("POST").get("7")).toBe(1);
    await worker!.kill("SIGTERM");
  }, 60_000);
});
