/**
 * A worker killed with SIGKILL mid-run loses nothing and duplicates nothing: its GET and PUT
 * keys are taken over by the other workers (BullMQ's stalled-job recovery), while a key whose
 * task had sent a POST or PATCH ends in doubt and is not sent again. Every key ends done, failed
 * or in doubt; the server receives each POST and PATCH key at most once.
 */
import { describe, expect, it } from "vitest";
import type { TestItem } from "./fixtures/worker.js";
import { until, useQueueEnvironment } from "./helpers/environment.js";
import type { WorkerProcess } from "./helpers/workers.js";

const env = useQueueEnvironment("sk_live_crash_token_0123456789");

const METHODS = ["GET", "PUT", "POST", "PATCH"] as const;

describe("a worker killed with SIGKILL mid-run", () => {
  it("its GET/PUT keys are done by the others, its POST/PATCH keys in flight end in doubt, no POST or PATCH key is received twice", async () => {
    const { server } = env;
    server.reset();
    const bulk = env.queue("crash");
    // 80 keys, the four methods in turn; every answer takes 600 ms, so a kill finds requests in flight.
    const items: TestItem[] = Array.from({ length: 80 }, (_, i) => ({ id: i + 1, method: METHODS[i % 4]! }));
    const methodOf = new Map(items.map((item) => [String(item.id), item.method]));
    await bulk.add(items, { key: (item) => String(item.id) });
    server.answer(() => ({ delayMs: 600 }));
    const [victim, ...others] = await env.startWorkers("crash", 3, { LOCK_MS: 2000 });

    // Kill the victim while it has a POST or PATCH received by the server and not yet answered,
    // and a GET or PUT of its own still in flight or waiting.
    const inFlight = (methods: string[]) =>
      server.requests.filter((r) => r.worker === String(victim!.pid) && !r.answered && methods.includes(r.method));
    await until(
      () => inFlight(["POST", "PATCH"]).length > 0 && inFlight(["GET", "PUT"]).length > 0,
      20_000,
      "the victim to have unsafe and safe requests in flight",
    );
    const unsafeInFlight = inFlight(["POST", "PATCH"]).map((r) => r.key);
    const safeInFlight = inFlight(["GET", "PUT"]).map((r) => r.key);
    await victim!.kill("SIGKILL");

    await env.settled(bulk, 80, 45_000);
    const status = await bulk.status();
    const report = await bulk.report();
    expect(status.waiting + status.active).toBe(0);
    expect(status.done + status.failed + status.inDoubt).toBe(80);
    expect(status.failed).toBe(0);

    // The victim's unanswered POST/PATCH keys are in doubt, and only POST/PATCH keys are.
    expect(report.inDoubtKeys).toEqual(expect.arrayContaining(unsafeInFlight));
    expect(report.inDoubtKeys.every((key) => ["POST", "PATCH"].includes(methodOf.get(key)!))).toBe(true);
    // Its GET/PUT keys in flight were taken over and done: sent again by another worker.
    for (const key of safeInFlight) {
      expect(report.inDoubtKeys).not.toContain(key);
      const survivors = server.requests.filter((r) => r.key === key && r.worker !== String(victim!.pid));
      expect(survivors.length, `key ${key} re-run by another worker`).toBe(1);
    }
    // No POST or PATCH key reached the server twice.
    for (const method of ["POST", "PATCH"]) {
      const twice = [...server.countByKey(method)].filter(([, count]) => count > 1);
      expect(twice, `${method} keys received more than once`).toEqual([]);
    }
    // Every GET/PUT key is done; every POST/PATCH key is done or in doubt.
    expect(status.done).toBe(80 - report.inDoubtKeys.length);
    expect(others.every((worker) => worker.messages.every((m) => !m.error))).toBe(true);
    await Promise.all(others.map((worker) => worker.kill("SIGTERM")));
  }, 90_000);

  it("a worker frozen past its lock (SIGSTOP) is refused its POST when it wakes (SIGCONT) while another worker runs its job", async () => {
    const { server } = env;
    server.reset();
    const bulk = env.queue("frozen");
    // One key: a GET, then the POST that renews. The first GET is answered after 1.5 s, the
    // second (the other worker's) after 5 s, so that the first worker wakes in the middle of it.
    server.answer(({ method, index }) => (method === "GET" ? { delayMs: index === 0 ? 1500 : 5000 } : undefined));
    const [sleeper] = await env.startWorkers("frozen", 1, { LOCK_MS: 2000 });
    await bulk.add([{ id: 7, method: "POST", gets: 1 }], { key: (item) => String(item.id) });
    await until(() => server.requests.length === 1, 20_000, "the first worker's GET");
    process.kill(sleeper!.pid, "SIGSTOP");
    let other: WorkerProcess | undefined;
    try {
      // Its lock runs out; another worker takes the job over and sends its GET.
      [other] = await env.startWorkers("frozen", 1, { LOCK_MS: 2000 });
      await until(() => server.requests.length === 2, 20_000, "the other worker's GET");
      expect(server.requests[1]!.worker).toBe(String(other!.pid));
    } finally {
      process.kill(sleeper!.pid, "SIGCONT");
    }
    // The first worker wakes, reads its GET's answer and goes for the POST: refused, the job is
    // the other worker's now, which sends the one POST once its GET is answered.
    await env.settled(bulk, 1, 30_000);
    expect(server.requests.filter((r) => r.method === "POST").map((r) => r.worker)).toEqual([String(other!.pid)]);
    expect(await bulk.status()).toEqual({ waiting: 0, active: 0, done: 1, failed: 0, inDoubt: 0 });
    expect(sleeper!.stderr).not.toMatch(/unhandled/i);
  }, 90_000);
});
