/**
 * Tokens never reach Redis: after a run whose server echoes the token back in error bodies (so
 * that failures carry it if anything does), every key of Redis is read with SCAN and DUMP and
 * searched for the token's bytes. The scan is checked too: a control item holding the token is
 * found by it.
 */
import { inspect } from "node:util";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import type { TestItem } from "./fixtures/worker.js";
import { useQueueEnvironment } from "./helpers/environment.js";
import { keysHolding } from "./helpers/redis-scan.js";

const TOKEN = "sk_live_scan_token_b2f1c9e8a7d6";
const env = useQueueEnvironment(TOKEN);

describe("the token in Redis", () => {
  it("is nowhere after a run with a 429 pause, failures and a server that echoes the token; a control item holding it is found", async () => {
    const { server } = env;
    server.reset();
    // Every third key is refused with the token in the body, raw and as a Bearer credential.
    server.answer(({ key, index }) => {
      if (index === 5) return { status: 429, headers: { "retry-after": "1" } };
      if (Number(key) % 3 === 0)
        return {
          status: 422,
          body: { detail: `token ${TOKEN} is not allowed`, echo: `Authorization: Bearer ${TOKEN}` },
        };
      return undefined;
    });
    const bulk = env.queue("token-scan", { rate: { perSecond: 50 } });
    const items: TestItem[] = Array.from({ length: 30 }, (_, i) => ({ id: i + 1, method: i % 2 ? "PATCH" : "GET" }));
    await bulk.add(items, { key: (item) => String(item.id) });
    const workers = await env.startWorkers("token-scan", 2, { RATE: 50 });
    await env.settled(bulk, 30);
    const for10 = (await bulk.progress().next()).value;
    expect(for10).toMatchObject({ done: 20, failed: 10 });
    const report = await bulk.report();
    expect(report.failures).toHaveLength(10);
    // The failure text went through redaction: the echo is there, the token is not.
    expect(report.failures[0]!.message).toContain("[REDACTED]");
    expect(JSON.stringify(report)).not.toContain(TOKEN);
    await Promise.all(workers.map((worker) => worker.kill("SIGTERM")));

    const redis = new Redis({ host: "127.0.0.1", port: env.redis.port });
    try {
      const clean = await keysHolding(redis, TOKEN);
      // BullMQ's keys (jobs, events stream, limiter, …) and the SDK's (ledger, budget).
      expect(clean.scanned).toBeGreaterThan(30);
      expect(clean.found).toEqual([]);
      const keys = await redis.keys("*");
      expect(keys).toEqual(
        expect.arrayContaining([
          "bull:token-scan:sdk:failures",
          "bull:token-scan:sdk:state",
          "bull:sdk-budget:token-scan:tat",
        ]),
      );

      // Control: the same scan finds the token when a job does carry it.
      const control = env.queue("token-control");
      await control.add([{ id: 1, method: "GET", note: TOKEN } as TestItem], { key: () => "control" });
      const dirty = await keysHolding(redis, TOKEN);
      expect(dirty.found).toEqual(["bull:token-control:key-control"]);
    } finally {
      redis.disconnect();
    }
  }, 60_000);

  it("a task that throws the token before any request: the report (JSON, inspect) and Redis hold none of it, the error keeps its name and status", async () => {
    const { server } = env;
    server.reset();
    const bulk = env.queue("token-throw");
    await bulk.add(
      [
        { id: 1, method: "THROW" },
        { id: 2, method: "GET" },
      ],
      { key: (item) => String(item.id) },
    );
    const workers = await env.startWorkers("token-throw", 1);
    await env.settled(bulk, 2);
    const report = await bulk.report();
    await Promise.all(workers.map((worker) => worker.kill("SIGTERM")));
    expect(report).toMatchObject({ done: 1, failed: 1, inDoubt: 0 });
    for (const text of [JSON.stringify(report), inspect(report, { depth: null, showHidden: true })])
      expect(text).not.toContain(TOKEN);
    const [failure] = report.failures;
    expect(failure).toMatchObject({ key: "1", status: 499, message: "before any request, with [REDACTED]" });
    expect(JSON.parse(JSON.stringify(failure!.error))).toEqual({
      name: "CarelessError",
      message: "before any request, with [REDACTED]",
      status: 499,
    });
    // Key 1 sent nothing; key 2 its GET.
    expect([...server.countByKey()]).toEqual([["2", 1]]);
    const redis = new Redis({ host: "127.0.0.1", port: env.redis.port });
    try {
      // Nothing but the control job the test above left on purpose.
      expect((await keysHolding(redis, TOKEN)).found.filter((key) => !key.startsWith("bull:token-control:"))).toEqual(
        [],
      );
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});
