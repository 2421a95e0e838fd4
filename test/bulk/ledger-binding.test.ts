/**
 * A run is bound to what it sends (`fingerprint`): a key the ledger holds as done or in doubt
 * under another call is refused, naming the ledger, the run and the key, with nothing sent for
 * it; the report carries the recorded calls of the keys in doubt; a ledger written by 0.3.0
 * (test/bulk/fixtures/renewals-0.3.0.ledger, written by 0.3.0's fileLedger) still resumes.
 * Requests are counted at a loopback server.
 */
import { copyFileSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createStoreAdminClient } from "../../src/index.js";
import { CallChangedError, fileLedger, memoryLedger, runBulk, type Ledger } from "../../src/bulk/index.js";
import { bulkTestBed } from "./server.js";

const FIXTURE_030 = fileURLToPath(new URL("./fixtures/renewals-0.3.0.ledger", import.meta.url));
const { server, file } = bulkTestBed("bulk-binding-");
let last = "";
const fresh = () => (last = file("binding.ledger"));

const client = () => createStoreAdminClient({ apiUrl: server.url, accessToken: "sk_binding_token", maxRetries: 0 });
interface Card {
  id: number;
  expiredAt: string;
}
const cards = (day: string, ...ids: number[]): Card[] =>
  ids.map((id) => ({ id, expiredAt: `2026-11-${day}T00:00:00Z` }));
const options = (ledger: Ledger, items: Card[]) => ({
  client: client(),
  runId: "PATCH /gift-cards/{id}/",
  items,
  key: (card: Card) => String(card.id),
  fingerprint: (card: Card) => JSON.stringify(card),
  concurrency: 1,
  ledger,
  task: (card: Card, { client: c, signal }: { client: ReturnType<typeof client>; signal: AbortSignal }) =>
    c.PATCH("/gift-cards/{id}/", { params: { path: { id: card.id } }, body: { expired_at: card.expiredAt }, signal }),
});

describe("a run is bound to what it sends", () => {
  for (const [name, make, where] of [
    ["memoryLedger()", () => memoryLedger(), () => "The memory ledger"],
    ["fileLedger(path)", () => fileLedger(fresh()), () => `The ledger file ${last}`],
  ] as const) {
    it(`${name}: a done key with another call is refused (nothing sent for it); the same call is skipped`, async () => {
      const ledger = make();
      expect(await runBulk(options(ledger, cards("24", 1, 2, 3)))).toMatchObject({ done: 3 });
      expect(server.received.length).toBe(3);

      // The same items again: skipped.
      expect(await runBulk(options(ledger, cards("24", 1, 2, 3)))).toMatchObject({ done: 0, skipped: 3 });
      // Tomorrow's file: the same keys, new bodies.
      const refused = await runBulk(options(ledger, cards("25", 1, 2, 3))).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(CallChangedError);
      expect((refused as CallChangedError).message).toBe(
        `${where()} holds the key "1" of the run "PATCH /gift-cards/{id}/" as done with another call than this item's. ` +
          "The same key with a different call is a different run: give it its own runId (or ledger), or restore the item as it was.",
      );
      expect((refused as CallChangedError<Card>).item).toEqual(cards("25", 1)[0]);
      expect(server.received.length).toBe(3);
    });
  }

  it("a key in doubt with another call is refused; the report carries the calls recorded for the keys in doubt", async () => {
    const ledger = fileLedger(fresh());
    server.respond = (request) => (request.id === "2" ? { status: 500, body: {} } : undefined);
    const first = await runBulk(options(ledger, cards("24", 1, 2, 3)));
    expect(first).toMatchObject({ done: 2, inDoubt: 1, inDoubtKeys: ["2"] });
    server.reset();

    await expect(runBulk(options(ledger, cards("25", 2)))).rejects.toThrow(
      /holds the key "2" of the run "PATCH \/gift-cards\/\{id\}\/" as in doubt with another call/,
    );
    // Other keys: run; the key in doubt from the earlier items is reported with its recorded call.
    const second = await runBulk(options(ledger, cards("25", 4)));
    expect(second).toMatchObject({
      done: 1,
      inDoubtKeys: ["2"],
      inDoubtFingerprints: { "2": JSON.stringify(cards("24", 2)[0]) },
    });
    expect(server.received.map((r) => r.id)).toEqual(["4"]);
  });
});

describe("a ledger written by 0.3.0", () => {
  it("resumes: done keys skipped, the key in doubt not re-sent, the failed key re-run; new records read back", async () => {
    const path = fresh();
    copyFileSync(FIXTURE_030, path);
    const renew = (id: number, { client: c, signal }: { client: ReturnType<typeof client>; signal: AbortSignal }) =>
      c.POST("/subscriptions/{id}/renew/", { params: { path: { id } }, signal });
    const run = () =>
      runBulk({
        client: client(),
        runId: "POST /subscriptions/{id}/renew/",
        items: [1, 2, 3, 4, 5],
        key: String,
        fingerprint: (id) => `renew ${id}`,
        ledger: fileLedger(path),
        task: renew,
      });
    expect(await run()).toMatchObject({ done: 2, skipped: 2, inDoubt: 1, inDoubtKeys: ["3"], failed: 0 });
    expect(server.received.map((r) => Number(r.id)).sort()).toEqual([4, 5]);
    expect(readFileSync(path, "utf8")).toContain('b["5","renew 5"]');
    // Read back by this version: nothing more to do.
    expect(await run()).toMatchObject({ done: 0, skipped: 4, inDoubt: 1 });
    expect(server.received.length).toBe(2);
  });
});
