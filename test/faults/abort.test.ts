/**
 * The caller's AbortSignal: it stops an attempt, a body read or the wait before a retry at
 * once, is never retried, and its reason comes back unchanged (not wrapped).
 */
import { describe, expect, it } from "vitest";
import { withRetry } from "../../src/retry.js";
import { withTimeout } from "../../src/timeout.js";
import { sleep } from "../../src/internal/sleep.js";
import { apiRequest, useFaultServer } from "../helpers/fault-server.js";
import { scriptedFetch } from "../helpers/scripted-fetch.js";

const server = useFaultServer();

const transport = () => withRetry(withTimeout(globalThis.fetch, 10_000), { maxRetries: 2 });

describe("abort", () => {
  it("an already aborted signal sends nothing", async () => {
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    controller.abort(reason);
    const error = await transport()(apiRequest(server().url, "GET", "/users/", { signal: controller.signal })).catch((e: unknown) => e);
    expect(error).toBe(reason);
    expect(server().requests).toHaveLength(0);
  });

  it("stops an attempt in flight and does not retry it", async () => {
    server().enqueue({ hang: true });
    const controller = new AbortController();
    const reason = new Error("shutdown");
    const pending = transport()(apiRequest(server().url, "GET", "/users/", { signal: controller.signal }));
    await waitFor(() => server().requests.length === 1);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(server().requests).toHaveLength(1);
  });

  it("stops a body read in flight", async () => {
    server().enqueue({ status: 200, body: { id: 1, email: "someone@example.com" }, stallAfterHeaders: true });
    const controller = new AbortController();
    const pending = transport()(apiRequest(server().url, "GET", "/users/1/", { signal: controller.signal }));
    await waitFor(() => server().requests.length === 1);
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe("AbortError");
    expect(server().requests).toHaveLength(1);
  });

  it("stops the wait before a retry at once, even a long Retry-After", async () => {
    server().enqueue({ status: 429, headers: { "retry-after": "50" } });
    const controller = new AbortController();
    const reason = new Error("stop waiting");
    const fetch = withRetry(withTimeout(globalThis.fetch, 10_000), {
      maxRetries: 2,
      onAttempt: (event) => {
        if (event.willRetry) controller.abort(reason);
      },
    });
    await expect(fetch(apiRequest(server().url, "POST", "/subscriptions/7/renew/", { signal: controller.signal }))).rejects.toBe(reason);
    expect(server().requests).toHaveLength(1);
  });

  it("is not mistaken for a network error by a scripted fetch either", async () => {
    const scripted = scriptedFetch([{ hang: true }]);
    const controller = new AbortController();
    const reason = new Error("bye");
    const pending = withRetry(scripted.fetch)(apiRequest("http://127.0.0.1:9", "GET", "/users/", { signal: controller.signal }));
    await waitFor(() => scripted.log.length === 1);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(scripted.log).toEqual(["GET /users/ → hangs"]);
  });
});

describe("sleep", () => {
  it("resolves after the delay, rejects with the reason on abort, and clears its timer", async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
    const controller = new AbortController();
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
    const before = timers();
    const pending = sleep(60_000, controller.signal);
    controller.abort(new Error("now"));
    await expect(pending).rejects.toThrow("now");
    expect(timers()).toBe(before);
    await expect(sleep(5, controller.signal)).rejects.toThrow("now");
  });
});

/** Polls a condition on the event loop (no timed assertion: it only waits for an event). */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
