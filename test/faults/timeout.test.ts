/**
 * `withTimeout`: the limit covers the whole exchange, headers and body, per attempt, and
 * produces a `TimeoutError` that says so. Counts and messages are asserted, never durations.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TimeoutError } from "../../src/errors.js";
import { withRetry } from "../../src/retry.js";
import { DEFAULT_TIMEOUT_MS, withTimeout } from "../../src/timeout.js";
import { apiRequest, startFaultServer, type FaultServer } from "../helpers/fault-server.js";
import { recordingSleep } from "../helpers/scripted-fetch.js";

let server: FaultServer;
beforeEach(async () => {
  server = await startFaultServer();
});
afterEach(async () => {
  await server.close();
});

describe("withTimeout", () => {
  it("times out a server that never answers", async () => {
    server.enqueue({ hang: true });
    const fetch = withTimeout(globalThis.fetch, 50);
    const error = await fetch(apiRequest(server.url, "GET", "/users/")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(50);
    expect((error as TimeoutError).message).toBe(
      "[GET /users/] timed out after 50 ms (timeoutMs, per attempt, includes reading the body). " +
        "Raise timeoutMs if the server is just slow.",
    );
  });

  it("times out a server that sends the headers and then stalls in the body", async () => {
    server.enqueue({ status: 200, body: { id: 1, email: "someone@example.com" }, stallAfterHeaders: true });
    const fetch = withTimeout(globalThis.fetch, 100);
    const error = await fetch(apiRequest(server.url, "GET", "/users/1/")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(server.requests).toHaveLength(1);
  });

  it("says that a timed-out POST may have reached the server", async () => {
    server.enqueue({ delayMs: 2_000, status: 200, body: {} });
    const fetch = withTimeout(globalThis.fetch, 50);
    const error = await fetch(apiRequest(server.url, "POST", "/subscriptions/7/renew/")).catch((e: unknown) => e);
    expect((error as TimeoutError).message).toBe(
      "[POST /subscriptions/7/renew/] timed out after 50 ms (timeoutMs, per attempt, includes reading the body). " +
        "The request may have reached the server: check whether it took effect before calling again.",
    );
  });

  it("applies per attempt: each retry of a GET gets a fresh timer", async () => {
    const stall = { status: 200, body: { id: 1, email: "x@example.com" }, stallAfterHeaders: true };
    server.enqueue(stall, stall, { status: 200, body: { id: 1 } });
    const fetch = withRetry(withTimeout(globalThis.fetch, 100), { sleep: recordingSleep().sleep });
    expect(await (await fetch(apiRequest(server.url, "GET", "/users/1/"))).json()).toEqual({ id: 1 });
    expect(server.requests).toHaveLength(3);
  });

  it("ends in the last TimeoutError after maxRetries + 1 attempts", async () => {
    server.enqueue({ hang: true }, { hang: true }, { hang: true });
    const fetch = withRetry(withTimeout(globalThis.fetch, 50), { maxRetries: 2, sleep: recordingSleep().sleep });
    await expect(fetch(apiRequest(server.url, "DELETE", "/users/1/"))).rejects.toBeInstanceOf(TimeoutError);
    expect(server.count("DELETE", "/users/1/")).toBe(3);
  });

  it("returns the response whole, with status, status text and headers, once read in time", async () => {
    server.enqueue({ status: 201, headers: { "x-request-id": "req_9" }, body: { id: 5 } });
    const response = await withTimeout(globalThis.fetch)(apiRequest(server.url, "POST", "/products/", { body: { title: "a" } }));
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Created");
    expect(response.headers.get("x-request-id")).toBe("req_9");
    expect(await response.json()).toEqual({ id: 5 });
  });

  it("gives a 204 a null body", async () => {
    server.enqueue({ status: 204 });
    const response = await withTimeout(globalThis.fetch)(apiRequest(server.url, "DELETE", "/users/1/"));
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it("leaves no timer behind once the attempt ends", async () => {
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
    const before = timers();
    const fetch = withTimeout(globalThis.fetch, 60_000);
    for (let i = 0; i < 5; i++) await (await fetch(apiRequest(server.url, "GET", "/users/"))).json();
    expect(timers()).toBe(before);
  });

  it("rejects a timeoutMs that is not positive; Infinity means no timer", () => {
    expect(() => withTimeout(globalThis.fetch, 0)).toThrow(RangeError);
    expect(() => withTimeout(globalThis.fetch, Number.NaN)).toThrow(RangeError);
    expect(() => withTimeout(globalThis.fetch, Number.POSITIVE_INFINITY)).not.toThrow();
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
  });
});

describe("after a garbage collection", () => {
  // undici links a Request's signal to its parent through a WeakRef; once optimized code has
  // dropped the attempt's Request, a GC cut the link and a stalled body hung forever. The
  // soak test found it (src/internal/hold.ts). Reproducing it needs optimized code, hence the
  // warm-up, and an explicit GC.
  it("a stalled body still times out, and the caller's abort still stops it", { timeout: 60_000 }, async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const nodeFetch = (request: Request): Promise<Response> => globalThis.fetch(request);
    const timingOut = withRetry(withTimeout(nodeFetch, 300), { maxRetries: 0 });
    const aborting = withRetry(withTimeout(nodeFetch, 30_000), { maxRetries: 0 });
    for (let i = 0; i < 1_000; i++) await (await timingOut(apiRequest(server.url, "GET", "/users/"))).arrayBuffer();

    const stall = { status: 200, body: { id: 1, padding: "x".repeat(100) }, stallAfterHeaders: true };
    const reason = new Error("caller gave up");
    const controllers = Array.from({ length: 5 }, () => new AbortController());
    const before = server.requests.length;
    server.enqueue(...Array.from({ length: 10 }, () => stall));
    const outcomes = [
      ...Array.from({ length: 5 }, () => timingOut(apiRequest(server.url, "GET", "/users/1/"))),
      ...controllers.map((c) => aborting(apiRequest(server.url, "GET", "/users/1/", { signal: c.signal }))),
    ].map((pending) => pending.then(() => "ok", (e: unknown) => (e === reason ? "aborted" : (e as Error).name)));
    while (server.requests.length < before + 10) await new Promise((resolve) => setTimeout(resolve, 5));
    gc();
    gc();
    for (const controller of controllers) controller.abort(reason);
    // A bound on waiting, so that a regression reads "hung" instead of a test timeout.
    let giveUp: ReturnType<typeof setTimeout> | undefined;
    const hung = new Promise<string>((resolve) => (giveUp = setTimeout(() => resolve("hung"), 15_000)));
    const settled = await Promise.race([Promise.all(outcomes), hung]);
    clearTimeout(giveUp);
    expect(settled).toEqual([...Array(5).fill("TimeoutError"), ...Array(5).fill("aborted")]);
  });
});
