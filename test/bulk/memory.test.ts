/**
 * A million items stream through the runner: it pulls an item only when a worker is free (at
 * most `concurrency` + 1 pulled and not ended, at every step), and the heap does not grow with
 * the items (loosely: a ledger that keeps nothing, so only the runner is measured; the figures
 * are in the benchmark, docs/performance.md).
 */
import { expect, it } from "vitest";
import { createStoreAdminClient } from "../../src/index.js";
import { runBulk, type Ledger } from "../../src/bulk/index.js";

const ITEMS = 1_000_000;
const CONCURRENCY = 8;

/** A ledger that records nothing: what grows is the runner's own. */
const nothingKept = (): Ledger => ({
  open: async () => ({ inDoubt: [] }),
  get: () => undefined,
  start: () => undefined,
  sending: () => undefined,
  end: () => undefined,
  checkpoint: () => undefined,
  close: async () => undefined,
});

it("runs 1,000,000 generated items with the pulled-but-not-ended count bounded and a flat heap", {
  timeout: 300_000,
}, async () => {
  let pulled = 0;
  let ended = 0;
  let mostAhead = 0;
  const heap: number[] = [];
  function* items() {
    for (let id = 1; id <= ITEMS; id++) {
      pulled++;
      mostAhead = Math.max(mostAhead, pulled - ended);
      if (id % 100_000 === 0) heap.push(process.memoryUsage().heapUsed);
      yield { id, note: `item ${id}` };
    }
  }
  const report = await runBulk({
    client: createStoreAdminClient({ apiUrl: "http://127.0.0.1:9", accessToken: "unused" }),
    runId: "million",
    items: items(),
    key: (item) => String(item.id),
    concurrency: CONCURRENCY,
    ledger: nothingKept(),
    task: async (item) => {
      ended++;
      return item.id;
    },
  });
  expect(report).toMatchObject({ done: ITEMS, failed: 0, skipped: 0 });
  expect(mostAhead).toBeLessThanOrEqual(CONCURRENCY + 1);
  // Collected into an array, a million items of this shape would add well over 100 MB.
  expect(Math.max(...heap.slice(1)) - heap[0]!).toBeLessThan(48 * 1024 * 1024);
});
