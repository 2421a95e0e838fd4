/**
 * Checkpointable walks: pages expose `nextCursor`, a walk restarts from a saved cursor, and a
 * run over a `paginate()` walk keeps the cursor past the pages whose items are all done, so a
 * resume does not read them again.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createStoreAdminClient } from "../../src/index.js";
import { fileLedger, memoryLedger, runBulk } from "../../src/bulk/index.js";
import { startBulkServer, type BulkServer } from "./server.js";

let server: BulkServer;
let dir: string;
beforeAll(async () => {
  server = await startBulkServer();
  dir = mkdtempSync(join(tmpdir(), "bulk-walk-"));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  server.reset();
  server.cards = 120;
  server.pageSize = 50;
});

const store = () => createStoreAdminClient({ apiUrl: server.url, accessToken: "sk_walk_token" });
const pageReads = () =>
  server.received.filter((r) => r.method === "GET" && r.path === "/gift-cards/").map((r) => r.query.get("cursor"));
const expire = (card: { id: number }, { client, signal }: { client: ReturnType<typeof store>; signal: AbortSignal }) =>
  client.PATCH("/gift-cards/{id}/", { params: { path: { id: card.id } }, body: { expired_at: null }, signal });

describe("pages and cursors", () => {
  it("each page carries nextCursor (null on the last), and a walk given a saved cursor starts at the page after it", async () => {
    const cursors: Array<string | null> = [];
    for await (const page of store().paginate.pages("/gift-cards/")) cursors.push(page.nextCursor);
    expect(cursors).toEqual(["50", "100", null]);

    const ids: number[] = [];
    for await (const card of store().paginate("/gift-cards/", { params: { query: { cursor: cursors[0]! } } }))
      ids.push(card.id);
    expect(ids[0]).toBe(51);
    expect(ids).toHaveLength(70);
  });
});

describe("a run over a walk", () => {
  it("keeps the cursor past finished pages: a stopped run resumes at the first unfinished page, each card once", async () => {
    const path = join(dir, "stop.ledger");
    const stop = new AbortController();
    let started = 0;
    const task = (card: { id: number }, context: { client: ReturnType<typeof store>; signal: AbortSignal }) => {
      if (++started === 70) stop.abort();
      return expire(card, context);
    };
    const client = store();
    const first = await runBulk({
      client,
      runId: "walk",
      items: client.paginate("/gift-cards/"),
      key: (c) => String(c.id),
      ledger: fileLedger(path),
      signal: stop.signal,
      task,
    });
    expect(first.stopped).toBe(true);
    expect(pageReads()).toEqual([null, "50"]);
    const ledger = fileLedger(path);
    expect((await ledger.open("walk")).cursor).toBe("50");
    await ledger.close();

    const patched = server.received.filter((r) => r.method === "PATCH").map((r) => Number(r.id));
    server.reset();
    server.cards = 120;
    const second = await runBulk({
      client,
      runId: "walk",
      items: client.paginate("/gift-cards/"),
      key: (c) => String(c.id),
      ledger: fileLedger(path),
      task,
    });
    // Page 1 is not read again; page 2's done cards are skipped.
    expect(pageReads()).toEqual(["50", "100"]);
    expect(first.done + second.done).toBe(120);
    expect(second.skipped).toBe(first.done - 50);
    patched.push(...server.received.filter((r) => r.method === "PATCH").map((r) => Number(r.id)));
    expect(patched.sort((a, b) => a - b)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));

    server.reset();
    const third = await runBulk({
      client,
      runId: "walk",
      items: client.paginate("/gift-cards/"),
      key: (c) => String(c.id),
      ledger: fileLedger(path),
      task,
    });
    // Every page done: nothing is read or sent.
    expect(third).toMatchObject({ done: 0, skipped: 0, failed: 0 });
    expect(server.received).toHaveLength(0);
  });

  it("a failed item holds the cursor before its page, so a resume can retry it", async () => {
    const ledger = memoryLedger();
    server.respond = (request) =>
      request.method === "PATCH" && request.id === "60" ? { status: 422, body: { detail: "no" } } : undefined;
    const client = store();
    const first = await runBulk({
      client,
      runId: "walk-fail",
      items: client.paginate("/gift-cards/"),
      key: (c) => String(c.id),
      ledger,
      task: expire,
    });
    expect(first).toMatchObject({ done: 119, failed: 1 });

    server.reset();
    server.cards = 120;
    const second = await runBulk({
      client,
      runId: "walk-fail",
      items: client.paginate("/gift-cards/"),
      key: (c) => String(c.id),
      ledger,
      task: expire,
    });
    expect(pageReads()).toEqual(["50", "100"]);
    expect(second).toMatchObject({ done: 1, failed: 0, skipped: 69 });
    expect(server.count("PATCH", 60)).toBe(1);
  });
});
