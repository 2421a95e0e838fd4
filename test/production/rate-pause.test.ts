/**
 * The client-wide pause after a 429 (src/client/rate-pause.ts), with the packed package in a
 * child process and a server in this one that acts as a rate limiter: after it answers 429 with
 * `Retry-After: 1`, any request arriving within that second is answered 429 again. Arrivals are
 * counted and timed at the server.
 */
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConsumerProject, describeRun, ROOT, run, type ConsumerProject } from "../package/tarball.js";
import { startFaultServer, type Fault, type FaultServer } from "../helpers/fault-server.js";

let project: ConsumerProject | undefined;
let server: FaultServer;
/** Each arrival: the user id asked for, the server's clock, and whether it was answered 429. */
let arrivals: { id: number; at: number; limited: boolean }[] = [];
let limitedUntil = -Infinity;

beforeAll(async () => {
  server = await startFaultServer((request): Fault => {
    const at = performance.now();
    const id = Number(/\/users\/(\d+)\//.exec(request.path)?.[1]);
    // The first request of a scenario, and any request within the second after a 429, is refused.
    const limited = arrivals.length === 0 || at < limitedUntil;
    arrivals.push({ id, at, limited });
    if (!limited) return { body: { id, email: `u${id}@example.com` } };
    limitedUntil = Math.max(limitedUntil, at + 1000);
    return { status: 429, headers: { "retry-after": "1" }, body: { detail: "Slow down." } };
  });
  project = await createConsumerProject();
  await cp(join(ROOT, "test", "production", "fixtures", "rate-pause.mjs"), join(project.dir, "rate-pause.mjs"));
}, 300_000);

afterAll(async () => {
  await server?.close();
  await project?.remove();
});

async function scenario(name: string): Promise<Record<string, unknown>> {
  arrivals = [];
  limitedUntil = -Infinity;
  const result = await run(process.execPath, ["rate-pause.mjs", name], {
    cwd: project!.dir,
    env: { ...process.env, SERVER_URL: server.url },
    timeoutMs: 60_000,
  });
  expect(result.code, describeRun(`rate-pause.mjs ${name}`, result)).toBe(0);
  return JSON.parse(result.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
}

describe("one pause for the whole client on a 429", () => {
  it("the 19 calls made after a 429 (Retry-After: 1) wait for it, then go in call order: one 429 in all", async () => {
    const output = await scenario("order");
    expect(output["ids"]).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(
      arrivals.filter((arrival) => arrival.limited),
      JSON.stringify(arrivals),
    ).toHaveLength(1);
    expect(arrivals).toHaveLength(21);
    const [refused, ...after] = arrivals;
    expect(refused!.id).toBe(1);
    // Nothing arrives before the second is up; then the first call's retry, then the others in the order they were made.
    for (const arrival of after) expect(arrival.at - refused!.at).toBeGreaterThanOrEqual(1000);
    expect(after.map((arrival) => arrival.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // Each held call says so in its log event (the 19, and the first call's retry, which waited in the same pause).
    expect(output["paused"]).toBe(20);
  }, 60_000);

  it("a call whose signal aborts while it waits leaves at once, with the abort's reason, and sends nothing; its timeoutMs does not run meanwhile", async () => {
    const output = await scenario("abort");
    expect(output["limited"]).toBe("RateLimitError");
    // The abort's own reason, not a TimeoutError (timeoutMs: 10 would have run out first).
    expect(output["sameReason"]).toBe(true);
    // It left while the pause (1 s from the 429) was still on: at the abort, not at the pause's end.
    expect(output["leftAfterMs"]).toBeLessThan(1000);
    expect(arrivals.map((arrival) => arrival.id)).toEqual([1]);
  }, 60_000);

  it("in a bulk run, a 429 makes the run and the client wait once, not twice", async () => {
    const output = await scenario("bulk");
    expect(output).toEqual({ done: 8, failed: 0 });
    // The run's first 4 requests (its concurrency) leave together and meet the limit; none after them does.
    expect(
      arrivals.map((arrival) => arrival.limited),
      JSON.stringify(arrivals),
    ).toEqual([...Array(4).fill(true), ...Array(8).fill(false)]);
    const refused = arrivals[3]!;
    const waits = arrivals.slice(4).map((arrival) => arrival.at - refused.at);
    // One Retry-After (1 s) after the 429, not two (the run's pause, then the client's on top).
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(1000);
    expect(Math.min(...waits), JSON.stringify(waits)).toBeLessThan(2000);
  }, 60_000);
});
