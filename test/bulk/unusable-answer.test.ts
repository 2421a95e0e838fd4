/**
 * A POST or PATCH the store answered with a 2xx whose body cannot be used (not JSON, too large,
 * cut short by the timeout): the store may have acted, so the key ends in doubt, not failed, and
 * a resume sends nothing for it (counted at the server). A refusal (a 4xx) still ends failed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createStoreAdminClient } from "../../src/index.js";
import { memoryLedger, runBulk } from "../../src/bulk/index.js";
import { startBulkServer, type Answer, type BulkServer } from "./server.js";

const TOKEN = "sk_live_unusable_answer_token";
let server: BulkServer;

beforeAll(async () => {
  server = await startBulkServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const client = () =>
  createStoreAdminClient({
    apiUrl: server.url,
    accessToken: TOKEN,
    maxRetries: 0,
    timeoutMs: 500,
    maxResponseBytes: 1_000,
  });

const cases: Array<[string, Answer]> = [
  ["200 text/html", { rawBody: "<html><body>ok</body></html>", headers: { "content-type": "text/html" } }],
  ["200 over maxResponseBytes", { body: { id: 1, code: "x".repeat(5_000) } }],
  ["200 invalid JSON", { rawBody: '{"id": 1, "code": ', headers: { "content-type": "application/json" } }],
  ["200 whose body stalls past timeoutMs", { body: { id: 1, code: "CARD-1" }, stallMs: 2_000 }],
];

describe("a 2xx answer to a PATCH whose body cannot be used", () => {
  for (const [name, answer] of cases) {
    it(`${name}: in doubt, not failed, and a resume does not send it again`, async () => {
      server.respond = () => answer;
      const ledger = memoryLedger();
      const run = () =>
        runBulk({
          client: client(),
          runId: "unusable",
          ledger,
          items: [1],
          key: String,
          task: (id, { client: c, signal }) =>
            c.PATCH("/gift-cards/{id}/", { params: { path: { id } }, body: { expired_at: null }, signal }),
        });
      const first = await run();
      expect(first).toMatchObject({ done: 0, failed: 0, inDoubt: 1, inDoubtKeys: ["1"] });
      expect(first.failures).toEqual([]);
      expect(server.count("PATCH", 1)).toBe(1);
      server.respond = undefined;
      const again = await run();
      expect(again).toMatchObject({ done: 0, failed: 0, inDoubt: 1, inDoubtKeys: ["1"] });
      expect(server.count("PATCH", 1)).toBe(1);
    });
  }

  it("a 2xx to a GET whose body cannot be used is a failure (a resume re-does it)", async () => {
    server.respond = () => cases[0]![1];
    const report = await runBulk({
      client: client(),
      runId: "unusable-get",
      items: [1],
      key: String,
      task: (_id, { client: c, signal }) => c.GET("/gift-cards/", { signal }),
    });
    expect(report).toMatchObject({ done: 0, failed: 1, inDoubt: 0 });
    expect(server.received.filter((r) => r.method === "GET")).toHaveLength(1);
  });

  it("a 422 refusal of a PATCH is a failure, not in doubt", async () => {
    server.respond = () => ({ status: 422, body: { expired_at: ["bad"] } });
    const report = await runBulk({
      client: client(),
      runId: "refused",
      items: [1],
      key: String,
      task: (id, { client: c, signal }) =>
        c.PATCH("/gift-cards/{id}/", { params: { path: { id } }, body: { expired_at: null }, signal }),
    });
    expect(report).toMatchObject({ done: 0, failed: 1, inDoubt: 0 });
    expect(report.failures[0]?.status).toBe(422);
  });
});
