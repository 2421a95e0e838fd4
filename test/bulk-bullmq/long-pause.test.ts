/**
 * A 429 asking the queue's workers to wait 35 days: no timer overflows (a wait clamped to 1 ms
 * and re-armed polls Redis thousands of times a second), every worker pauses for `maxPauseMs`
 * instead (the cap, reported to `onError`), and then goes on: every key ends, the refused one
 * failed until `retryFailed()` runs it again.
 */
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import type { TestItem } from "./fixtures/worker.js";
import { until, useQueueEnvironment } from "./helpers/environment.js";

const env = useQueueEnvironment("sk_live_long_pause_token_0123456789");

/** Commands Redis has run since it started (this call included). */
async function commands(redis: Redis): Promise<number> {
  return Number(/total_commands_processed:(\d+)/.exec(await redis.info("stats"))![1]);
}

describe("a Retry-After of 35 days on the queue", () => {
  it("workers pause for maxPauseMs without polling Redis or overflowing a timer, say so, then finish", async () => {
    const { server } = env;
    server.reset();
    const bulk = env.queue("long-pause", { rate: { perSecond: 20 } });
    const items: TestItem[] = Array.from({ length: 16 }, (_, i) => ({ id: i + 1, method: "GET" }));
    await bulk.add(items, { key: (item) => String(item.id) });
    let limited: number | undefined;
    server.answer(({ index }) => {
      if (index !== 4) return undefined;
      limited = Date.now();
      return { status: 429, headers: { "retry-after": "3000000" } };
    });
    const workers = await env.startWorkers("long-pause", 2, { RATE: 20, MAX_PAUSE_MS: 3000 });
    await until(() => limited !== undefined, 20_000, "the 429");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const redis = new Redis({ host: "127.0.0.1", port: env.redis.port });
    try {
      const before = await commands(redis);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const ran = (await commands(redis)) - before;
      console.info(`[35-day pause] Redis commands in 1 s of the pause: ${ran}`);
      // BullMQ's own housekeeping (stalled-job checks, its blocking wait) is a few a second.
      expect(ran, "Redis commands in one second of the pause").toBeLessThan(60);
    } finally {
      redis.disconnect();
    }
    expect(
      server.requests.filter((r) => r.at > limited! + 200 && r.at < limited! + 2900),
      "requests during the pause",
    ).toEqual([]);
    await env.settled(bulk, 16, 30_000);
    expect(await bulk.status()).toMatchObject({ done: 15, failed: 1 });
    const said = workers.flatMap((w) => w.messages.map((m) => m.error ?? "")).filter((m) => m.includes("Retry-After"));
    expect(said[0]).toMatch(
      /^The store asked for a pause of 35 days \(Retry-After\), longer than maxPauseMs \(3 s\): every worker pauses for 3 s, then goes on\. Nothing is lost/,
    );
    for (const worker of workers) expect(worker.stderr).not.toMatch(/TimeoutOverflowWarning/);
    server.answer(undefined);
    expect(await bulk.retryFailed()).toBe(1);
    await env.settled(bulk, 16, 30_000);
    expect(await bulk.status()).toMatchObject({ done: 16, failed: 0 });
    await Promise.all(workers.map((worker) => worker.kill("SIGTERM")));
  }, 60_000);
});
