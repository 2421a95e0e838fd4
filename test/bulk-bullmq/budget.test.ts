/**
 * One budget across processes: three worker processes, each with its own client, share a rate
 * budget of 30 requests per second (every request, the GET before each PUT included). It is a
 * promise about where requests arrive, checked over two runs: in the budget's log of starts (on
 * Redis's clock, as its script writes them, read off Redis's MONITOR) no window of 1,000 ms holds
 * more than 30, the first second included; at the server none does either, once the margin is
 * allowed for (the window shortened by however much the arrival jitter exceeded the margin the
 * send times kept: each worker's `fetch` stamps its request). The stamps are not held to the
 * second themselves: a worker descheduled between the budget's go and its `fetch` (a loaded
 * machine) stamps late, which the server's window allows for and the budget cannot prevent.
 * And one 429 with Retry-After pauses every worker, not only the one that got it.
 */
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { busiestWindow, windowAtServer } from "../helpers/windows.js";
import type { TestItem } from "./fixtures/worker.js";
import { until, useQueueEnvironment } from "./helpers/environment.js";

const env = useQueueEnvironment("sk_live_budget_token_0123456789");

/**
 * The budget's log of starts as Redis keeps it: each `ZADD` its commit script makes to the run's
 * `starts` key, on Redis's clock, a start taken back (`ZREM` of the same member, when the answer
 * came too late to be sent as logged) replaced by the one logged after it.
 */
async function budgetStarts(port: number, queue: string): Promise<{ stop(): number[] }> {
  const key = `bull:sdk-budget:${queue}:starts`;
  const byMember = new Map<string, number>();
  const monitor = await new Redis({ host: "127.0.0.1", port }).monitor();
  monitor.on("monitor", (_time: string, args: string[]) => {
    if (args[1] !== key) return;
    if (args[0]!.toLowerCase() === "zadd") byMember.set(args[3]!, Number(args[2]));
    if (args[0]!.toLowerCase() === "zrem") byMember.delete(args[2]!);
  });
  return {
    stop() {
      monitor.disconnect();
      return [...byMember.values()];
    },
  };
}

describe("one rate budget across worker processes", () => {
  for (const run of [1, 2]) {
    it(`run ${run}: 3 workers, budget 30/s: no window over 30 in the send log nor, margin allowed for, at the server; every key done`, async () => {
      const { server } = env;
      server.reset();
      const name = `budget-30-${run}`;
      const bulk = env.queue(name, { rate: { perSecond: 30 } });
      // 45 keys, two requests each (a GET, then a PUT): the budget counts requests, not jobs.
      const items: TestItem[] = Array.from({ length: 45 }, (_, i) => ({ id: i + 1, method: "PUT", gets: 1 }));
      await bulk.add(items, { key: (item) => String(item.id) });
      const starts = await budgetStarts(env.redis.port, name);
      const three = await env.startWorkers(name, 3, { RATE: 30 });
      await env.settled(bulk, 45);
      const logged = starts.stop();
      expect(await bulk.status()).toEqual({ waiting: 0, active: 0, done: 45, failed: 0, inDoubt: 0 });
      expect(server.requests).toHaveLength(90);
      const arrivals = server.requests.map((r) => ({ sent: r.sentAt!, arrived: r.arrivedAt }));
      const sent = arrivals.map((a) => a.sent);
      const arrived = arrivals.map((a) => a.arrived);
      const { jitter, tightest, windowMs } = windowAtServer(arrivals, 30);
      console.info(
        `[budget 30/s, run ${run}] budget's log: busiest 1000 ms window ${busiestWindow(logged, 1000)}; send stamps: busiest 1000 ms window ${busiestWindow(sent, 1000)}; server: busiest 1000 ms window ${busiestWindow(arrived, 1000)}, ` +
          `arrival jitter ${jitter.toFixed(1)} ms, tightest span of the send log ${tightest.toFixed(1)} ms, busiest ${Math.round(windowMs)} ms window ${busiestWindow(arrived, windowMs)}`,
      );
      expect(logged, "a start logged for every request").toHaveLength(90);
      expect(busiestWindow(logged, 1000), "the budget's log's busiest window").toBeLessThanOrEqual(30);
      expect(busiestWindow(arrived, windowMs), "the server's busiest window, margin allowed for").toBeLessThanOrEqual(
        30,
      );
      expect(new Set(server.requests.map((r) => r.worker)).size, "all three workers sent requests").toBe(3);
      expect([...server.countByKey("PUT").values()].every((n) => n === 1)).toBe(true);
      await Promise.all(three.map((worker) => worker.kill("SIGTERM")));
      expect(three.flatMap((worker) => worker.messages.filter((m) => m.error))).toEqual([]);
    }, 60_000);
  }

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
    // When the worker that met the 429 has paused everyone, read from Redis rather than assumed
    // to be a fixed time after the answer (a loaded machine takes longer than a quiet one).
    let pausedAt: number | undefined;
    try {
      let seen: [number, string | null, number] = [0, null, 0];
      const full = String(Number.MAX_SAFE_INTEGER);
      await until(
        async () => {
          seen = await Promise.all([
            redis.pttl("bull:pause-429:limiter"),
            redis.get("bull:pause-429:limiter"),
            redis.pttl("bull:sdk-budget:pause-429:pause"),
          ]);
          return seen[1] === full && seen[2] > 0;
        },
        1_900,
        "BullMQ's limiter marked full by rateLimit() and the budget's pause, both in Redis",
      );
      pausedAt = Date.now();
      const [limiterTtl, , budgetPause] = seen;
      // Each expires with Retry-After (2 s) from when the worker set it, after the 429 came.
      for (const ttl of [limiterTtl, budgetPause]) {
        expect(ttl).toBeGreaterThan(2000 - (pausedAt - limited!) - 100);
        expect(ttl).toBeLessThanOrEqual(2000);
      }
    } finally {
      redis.disconnect();
    }
    await env.settled(bulk, 80);
    expect(await bulk.status()).toEqual({ waiting: 0, active: 0, done: 80, failed: 0, inDoubt: 0 });
    // Requests sent before the pause reached Redis arrive within a few ms of it; after that,
    // nothing from any worker until Retry-After has passed.
    const during = server.requests.filter((r) => r.at > pausedAt! + 50 && r.at < limited! + 1950);
    expect(during, "requests during the pause").toEqual([]);
    const after = server.requests.filter((r) => r.at >= limited! + 1950);
    expect(new Set(after.map((r) => r.worker)).size, "every worker went on after the pause").toBe(3);
    // The refused request was sent again (the client's own retry, after the pause): its key is done.
    const refusedKey = server.requests[20]!.key;
    expect(server.countByKey().get(refusedKey)).toBe(2);
    await Promise.all(three.map((worker) => worker.kill("SIGTERM")));
  }, 60_000);
});
