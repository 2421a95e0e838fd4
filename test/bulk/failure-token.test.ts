/**
 * No token anywhere in a report's failures (message, error, error.message, cause, at any depth),
 * JSON.stringify and util.inspect(depth: null) of the whole report searched: a task that throws
 * with the token after a request, before any request (fixed token and token function), with
 * the token in a cause and in an own property, or throws a non-Error holding it.
 */
import { inspect } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createStoreAdminClient, StoreAdminError, UnprocessableEntityError } from "../../src/index.js";
import { runBulk, type BulkReport } from "../../src/bulk/index.js";
import { startBulkServer, type BulkServer } from "./server.js";

const TOKEN = "sk_live_failure_scrub_7f3a9c2e1d";
let server: BulkServer;

beforeAll(async () => {
  server = await startBulkServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** Every rendering of the report a caller might log. */
function renderings(report: BulkReport): string[] {
  return [
    JSON.stringify(report),
    inspect(report, { depth: null, showHidden: true }),
    ...report.failures.map((f) => `${String(f.error)} ${(f.error as Error).stack ?? ""}`),
  ];
}

class LeakyError extends Error {
  constructor(readonly config: { headers: Record<string, string> }) {
    super(`request with ${TOKEN} failed`, { cause: new Error(`inner ${TOKEN}`, { cause: { token: TOKEN } }) });
    this.name = "LeakyError";
  }
}

const throwers: Array<
  [string, (id: number, client: ReturnType<typeof createStoreAdminClient>, signal: AbortSignal) => Promise<unknown>]
> = [
  [
    "after a request",
    async (_id, c, signal) => {
      await c.GET("/gift-cards/", { signal });
      throw new Error(`after request: ${TOKEN}`);
    },
  ],
  [
    "before any request",
    async () => {
      throw new Error(`before any request: ${TOKEN}`);
    },
  ],
  [
    "with the token in a cause chain and an own property",
    async () => {
      throw new LeakyError({ headers: { authorization: `Bearer ${TOKEN}` } });
    },
  ],
  [
    "a non-Error value",
    async () => {
      throw { message: `plain object ${TOKEN}`, token: TOKEN };
    },
  ],
  [
    "an SDK error class built around the token",
    async () => {
      throw new StoreAdminError(`task's own words: ${TOKEN}`);
    },
  ],
  [
    "a string",
    async () => {
      throw `just the token ${TOKEN}`;
    },
  ],
];

describe("report.failures hold no token", () => {
  for (const accessToken of [TOKEN, () => TOKEN] as const) {
    const kind = typeof accessToken === "string" ? "a fixed token" : "a token function";
    for (const [name, task] of throwers) {
      it(`${kind}, a task that throws ${name}`, async () => {
        const client = createStoreAdminClient({ apiUrl: server.url, accessToken, maxRetries: 0 });
        const report = await runBulk({
          client,
          runId: "scrub",
          items: [1, 2],
          key: String,
          task: (id, { client: c, signal }) => task(id, c, signal),
        });
        expect(report).toMatchObject({ failed: 2, inDoubt: 0 });
        for (const text of renderings(report)) expect(text).not.toContain(TOKEN);
        // Scrubbed, not emptied: the message and the error's name are kept.
        expect(report.failures[0]!.message).toContain("[REDACTED]");
        expect(report.failures[0]!.error).toBeInstanceOf(Error);
        if (name.startsWith("with the token")) {
          expect((report.failures[0]!.error as Error).name).toBe("LeakyError");
          expect(String(((report.failures[0]!.error as Error).cause as Error).message)).toBe("inner [REDACTED]");
        }
      });
    }
  }

  it("keeps the SDK's own error (its class, status and body) when the store refuses, with the echoed token scrubbed", async () => {
    server.respond = () => ({ status: 422, body: { detail: `bad card; token was ${TOKEN}` } });
    const client = createStoreAdminClient({ apiUrl: server.url, accessToken: TOKEN, maxRetries: 0 });
    const report = await runBulk({
      client,
      runId: "scrub-sdk",
      items: [1],
      key: String,
      task: (id, { client: c, signal }) =>
        c.PATCH("/gift-cards/{id}/", { params: { path: { id } }, body: { expired_at: null }, signal }),
    });
    expect(report.failures[0]!.error).toBeInstanceOf(UnprocessableEntityError);
    expect(report.failures[0]!.status).toBe(422);
    for (const text of renderings(report)) expect(text).not.toContain(TOKEN);
  });

  it("the check finds a token when one is there (control)", () => {
    const leaky: BulkReport = {
      runId: "x",
      done: 0,
      failed: 1,
      skipped: 0,
      inDoubt: 0,
      durationMs: 0,
      inDoubtKeys: [],
      stopped: false,
      failures: [{ key: "1", error: new Error("e", { cause: new Error(TOKEN) }), message: "m" }],
    };
    expect(renderings(leaky).some((text) => text.includes(TOKEN))).toBe(true);
  });
});
