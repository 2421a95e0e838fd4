/**
 * `idempotencyKey()` on the queue's workers: a key's POST and PATCH carry `queue:key:n`, the
 * same on every attempt of the call, and the same again when `retryFailed()` runs the key once
 * more (on whichever worker takes it), so a store that honours the header applies it once.
 * Without the plugin, nothing changes: no header, and a POST answered 503 is not resent.
 */
import { describe, expect, it } from "vitest";
import { useQueueEnvironment } from "./helpers/environment.js";

const env = useQueueEnvironment("sk_live_idempotency_token_0123456789");

/** How many requests of `key` arrived before this one (the server decides before it records a request). */
const earlier = (key: string) => env.server.requests.filter((request) => request.key === key).length;

describe("idempotencyKey() on the queue's clients", () => {
  it("one key per call on every attempt, queue:key:n, and the same key again after retryFailed()", async () => {
    const { server } = env;
    server.reset();
    // Key 5: a POST answered 503, 503, then 201. Key 6: a POST refused with 409 (failed), then 201
    // once retryFailed() runs it again. Key 7: a PATCH answered at once.
    server.answer(({ key }) => {
      const before = earlier(key);
      if (key === "5" && before < 2) return { status: 503 };
      if (key === "6" && before === 0) return { status: 409 };
      return undefined;
    });
    const bulk = env.queue("idem");
    await bulk.add(
      [
        { id: 5, method: "POST" },
        { id: 6, method: "POST" },
        { id: 7, method: "PATCH" },
      ],
      { key: (item) => String(item.id) },
    );
    await env.startWorkers("idem", 2, { IDEMPOTENCY: "1" });
    await env.settled(bulk, 3);
    expect(await bulk.status()).toMatchObject({ done: 2, failed: 1, inDoubt: 0 });
    expect(await bulk.retryFailed()).toBe(1);
    await env.settled(bulk, 3);
    expect(await bulk.status()).toMatchObject({ done: 3, failed: 0, inDoubt: 0 });

    const sent = (key: string) =>
      server.requests.filter((request) => request.key === key).map((r) => [r.status, r.idempotencyKey]);
    expect(sent("5")).toEqual([
      [503, "idem:5:1"],
      [503, "idem:5:1"],
      [201, "idem:5:1"],
    ]);
    expect(sent("6")).toEqual([
      [409, "idem:6:1"],
      [201, "idem:6:1"],
    ]);
    expect(sent("7")).toEqual([[200, "idem:7:1"]]);
  });

  it("without the plugin: no key, and a POST answered 503 is sent once (the key fails, in doubt)", async () => {
    const { server } = env;
    server.reset();
    server.answer(({ key }) => (key === "8" ? { status: 503 } : undefined));
    const bulk = env.queue("plain");
    await bulk.add([{ id: 8, method: "POST" }], { key: (item) => String(item.id) });
    await env.startWorkers("plain", 1);
    await env.settled(bulk, 1);
    expect(server.requests.map((r) => [r.key, r.status, r.idempotencyKey])).toEqual([["8", 503, undefined]]);
    expect(await bulk.status()).toMatchObject({ inDoubt: 1 });
  });
});
