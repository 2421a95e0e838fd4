/**
 * Stopping a run during a long 429 pause: the waits for the budget and the client's own
 * `Retry-After` sleep end at once, runBulk returns, the keys that only waited are left for a
 * resume (no end recorded), and the resume sends each PATCH that was not refused exactly once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createStoreAdminClient } from "../../src/index.js";
import { memoryLedger, runBulk } from "../../src/bulk/index.js";
import { startBulkServer, type BulkServer } from "./server.js";

let server: BulkServer;

beforeAll(async () => {
  server = await startBulkServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const ids = Array.from({ length: 10 }, (_, i) => i + 1);

describe("a stop during a 429 pause", () => {
  // 90 s: more than the client waits out itself (it returns the 429; the budget's pause holds the
  // next tasks). 30 s: the client's own retry sleeps it, inside the task.
  for (const retryAfter of [90, 30]) {
    it(`Retry-After ${retryAfter}: runBulk returns soon after the signal aborts; a resume does the rest, nothing sent twice`, async () => {
      server.respond = () => ({
        status: 429,
        headers: { "retry-after": String(retryAfter) },
        body: { detail: "slow down" },
      });
      const ledger = memoryLedger();
      const stop = new AbortController();
      const client = createStoreAdminClient({ apiUrl: server.url, accessToken: "sk_test_pause_stop", maxRetries: 2 });
      const task = (id: number, { client: c, signal }: { client: typeof client; signal: AbortSignal }) =>
        c.PATCH("/gift-cards/{id}/", { params: { path: { id } }, body: { expired_at: null }, signal });
      const started = performance.now();
      setTimeout(() => stop.abort(), 300);
      const first = await runBulk({
        client,
        runId: "pause-stop",
        ledger,
        items: ids,
        key: String,
        concurrency: 2,
        signal: stop.signal,
        task,
      });
      const tookMs = performance.now() - started;
      console.log(
        `[stop during a ${retryAfter} s pause] runBulk returned ${Math.round(tookMs)} ms after it started (stop at 300 ms)`,
      );
      expect(tookMs).toBeLessThan(5_000);
      expect(first.stopped).toBe(true);
      // The two PATCHes the store refused with a 429 are failures (refused: not in doubt); the
      // rest never left.
      expect(first).toMatchObject({ done: 0, failed: 2, inDoubt: 0 });
      expect(server.received).toHaveLength(2);
      const refused = server.received.map((r) => Number(r.id));

      server.respond = undefined;
      // The client that met a 429 of 30 s is paused for it (one pause for the whole client): the
      // resume, as a later process would, comes with a client of its own.
      const resumed = createStoreAdminClient({ apiUrl: server.url, accessToken: "sk_test_pause_stop", maxRetries: 2 });
      const second = await runBulk({
        client: resumed,
        runId: "pause-stop",
        ledger,
        items: ids,
        key: String,
        concurrency: 2,
        task,
      });
      expect(second).toMatchObject({ done: 10, failed: 0, inDoubt: 0, stopped: false });
      for (const id of ids) expect(server.count("PATCH", id), `PATCH ${id}`).toBe(refused.includes(id) ? 2 : 1);
    });
  }
});
