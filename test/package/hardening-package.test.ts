/**
 * The packed package, used as an application would (the user's code is
 * test/package/fixtures/hardening/), against loopback servers that count what they receive:
 * - a bulk run whose duplicate keys arrive together sends each key once (memory and file ledger);
 * - a logged ContractDriftError holds no customer data (its 2xx body), an ApiError its scrubbed body;
 * - drift reaches the logger on the attempt's one event, deduplicated by operation, pointer and
 *   type received, in words for a reader;
 * - validation is linear in the failing items (the client's and the schemas entry's), and bounded;
 * - a one-letter token leaves a 422's fields readable;
 * - the schemas entry's messages name what would be accepted.
 * Speed is a ratio of two runs in one process (a failing body against a valid one of the same
 * size), generous enough for a loaded machine: quadratic behaviour misses it by orders of magnitude.
 */
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFaultServer, type FaultServer, type ReceivedRequest, type Fault } from "../helpers/fault-server.js";
import { createConsumerProject, describeRun, ROOT, run, type ConsumerProject } from "./tarball.js";

const TOKEN = "sk_live_hardening_4eC39HqLyjWDarjtT1zdp7dc";
/** Items of the large page (2.2 MB): 40,000 failing items took tens of seconds (quadratic) before; tens of ms linear. */
const ITEMS = 40_000;

let project: ConsumerProject | undefined;
let server: FaultServer;
let pages: { bad: string; good: string };

/** The customers `GET /users/{id}/` answers with. */
const CUSTOMERS: Record<string, unknown> = {
  1: { id: "1", email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" }, // drifts: id a string
  2: { id: null, email: "kim@example.org" }, // /id null
  3: { email: "kim@example.org" }, // /id missing
  // Seventeen fields, most of a type the contract does not allow there: ten drifts kept, the rest counted.
  9: Object.fromEntries([
    ["id", 9],
    ["accepts_marketing", "yes"],
    ["is_blocked", "yes"],
    ...[
      "addresses",
      "date_joined",
      "email",
      "first_name",
      "last_name",
      "ip",
      "language",
      "metadata",
      "orders_count",
      "phone_number",
      "subscriptions_count",
      "tags",
      "total_spent",
      "user_agent",
      "user_type",
    ].map((field) => [field, true]),
  ]),
};

function answer(request: ReceivedRequest): Fault {
  if (request.method === "PATCH" && request.path.startsWith("/users/")) {
    const id = request.path.split("/").at(-2);
    if (id === "422") {
      return {
        status: 422,
        body: {
          type: "validation_error",
          title: "Invalid request",
          validation: [
            { location: ["body", "first_name"], message: "first_name must not be blank", code: "too_short" },
          ],
        },
      };
    }
    return { status: 422, body: { type: "validation_error", title: "Invalid request" } };
  }
  if (request.method === "PATCH")
    return { body: { id: Number(request.path.split("/").at(-2)), code: "GC", balance: "1.00", expired_at: null } };
  if (request.path === "/users/")
    return {
      body: request.query.get("page") === "bad" ? pages.bad : pages.good,
      headers: { "content-type": "application/json" },
    };
  const id = request.path.split("/").at(-2)!;
  if (id === "404") return { status: 404, body: { detail: "No such user", email: "ada@example.com" } };
  return { body: CUSTOMERS[id], headers: { "x-request-id": "req-hard" } };
}

beforeAll(async () => {
  const page = (item: string) =>
    `{"count":${ITEMS},"next":null,"previous":null,"results":[${Array(ITEMS).fill(item).join(",")}]}`;
  pages = {
    bad: page('{"id":"s12","email":"ada@example.com","language":"en"}'),
    good: page('{"id":12345,"email":"ada@example.com","language":"en"}'),
  };
  server = await startFaultServer(answer);
  project = await createConsumerProject();
  await cp(join(ROOT, "test", "package", "fixtures", "hardening"), project.dir, { recursive: true });
}, 300_000);

afterAll(async () => {
  await server?.close();
  await project?.remove();
});

async function consumer<T>(script: string, env: Record<string, string> = {}): Promise<T> {
  const result = await run(process.execPath, [script], {
    cwd: project!.dir,
    env: { ...process.env, SERVER_URL: server.url, TOKEN, ...env },
    timeoutMs: 240_000,
  });
  if (result.code !== 0) throw new Error(describeRun(script, result));
  return JSON.parse(result.stdout) as T;
}

describe("bulk: duplicate keys that arrive together", () => {
  it("[1, 2, 2, 3, 3, 3] on 3 workers sends each key once, every time, with the memory ledger and fileLedger", async () => {
    const reports = await consumer<Array<{ runId: string; done: number; skipped: number; failed: number }>>("bulk.mjs");
    expect(reports).toHaveLength(10);
    for (const report of reports) expect(report, report.runId).toMatchObject({ done: 3, skipped: 3, failed: 0 });
    for (const offset of [0, 1000]) {
      for (let round = 0; round < 5; round++) {
        for (const id of [1, 2, 3])
          expect(
            server.count("PATCH", `/gift-cards/${id + 100 * round + offset}/`),
            `key ${id}, round ${round}${offset ? ", file ledger" : ""}`,
          ).toBe(1);
      }
    }
  }, 300_000);
});

type Errors = {
  drift: { json: string; body: Record<string, unknown>; name: string };
  api: { json: string; body: Record<string, unknown>; name: string };
  422: { name: string; message: string; validation: unknown[]; body: Record<string, unknown> };
  423: { name: string; message: string; validation: unknown[]; body: Record<string, unknown> };
};

describe("errors as they are logged", () => {
  let errors: Errors;
  beforeAll(async () => {
    errors = await consumer<Errors>("errors.mjs");
  }, 120_000);

  it("ContractDriftError.toJSON() leaves the 2xx body out; the body stays a property", () => {
    expect(errors.drift.name).toBe("ContractDriftError");
    expect(errors.drift.json).not.toMatch(/ada@example\.com|Lovelace|"body"/);
    expect(JSON.parse(errors.drift.json)).toMatchObject({
      name: "ContractDriftError",
      pointer: "/id",
      expected: "integer",
      received: "string",
      status: 200,
      requestId: "req-hard",
      moreDrifts: 0,
    });
    expect(errors.drift.body).toMatchObject({ email: "ada@example.com", first_name: "Ada" });
  });

  it("ApiError.toJSON() keeps its error body, scrubbed", () => {
    expect(errors.api.name).toBe("NotFoundError");
    expect(JSON.parse(errors.api.json).body).toEqual({ detail: "No such user", email: "ada@example.com" });
  });

  it('a one-letter token ("t") leaves a 422\'s fields readable; "Fix the fields named above" only when the store named some', () => {
    expect(errors[422].name).toBe("UnprocessableEntityError");
    expect(errors[422].validation).toEqual([
      { location: ["body", "first_name"], message: "first_name must not be blank", code: "too_short" },
    ]);
    expect(errors[422].body).toMatchObject({ type: "validation_error", title: "Invalid request" });
    expect(errors[422].message).toBe(
      "[PATCH /users/{id}/] 422 Unprocessable Content: body.first_name: first_name must not be blank. Fix the fields named above.",
    );
    expect(errors[423].validation).toEqual([]);
    expect(errors[423].message).not.toContain("Fix the fields named above");
    expect(errors[423].message).toBe(
      "[PATCH /users/{id}/] 422 Unprocessable Content: Invalid request. The store named no field: check the body against the operation's request schema.",
    );
  });
});

type DriftLog = {
  perCall: number[];
  events: Array<{
    status?: number;
    drifts?: Array<{ pointer: string; expected: string; received: string }>;
    moreDrifts?: number;
    error?: { name: string; message: string };
  }>;
  lines: string[];
  thrown: { name: string; message: string; drifts: number; moreDrifts: number };
};

describe("drift in the log", () => {
  let log: DriftLog;
  beforeAll(async () => {
    log = await consumer<DriftLog>("drift-log.mjs");
  }, 120_000);

  it("one log event per attempt, carrying the attempt's drifts", () => {
    expect(log.perCall).toEqual([1, 1, 1, 1]);
    expect(log.events[0]!.drifts).toEqual([{ pointer: "/id", expected: "integer", received: "null" }]);
  });

  it("deduplicated by operation, pointer and what was received: /id null, then /id missing, both logged; /id null again not", () => {
    expect(log.events[1]!.drifts).toEqual([{ pointer: "/id", expected: "required", received: "missing" }]);
    expect(log.events[2]!.drifts).toBeUndefined();
  });

  it('worded for a reader: no ContractDriftError in report mode, no "expected required, received missing"', () => {
    expect(log.lines.slice(0, 2)).toEqual([
      expect.stringMatching(
        /^GET \/users\/\{id\}\/ 200 attempt 1 \d+ ms request-id req-hard contract drift: \/id is null, where the contract expects integer$/,
      ),
      expect.stringMatching(
        /^GET \/users\/\{id\}\/ 200 attempt 1 \d+ ms request-id req-hard contract drift: \/id is missing, though the contract requires it$/,
      ),
    ]);
    for (const line of log.lines.slice(0, 4))
      expect(line).not.toMatch(/ContractDriftError|expected required|received missing/);
  });

  it("keeps 10 drifts and counts the rest, on the event and on the error", () => {
    const more = log.events[3]!.moreDrifts!;
    // The event carries those of the 10 not logged before (two at one place, of one type received, are one).
    expect(log.events[3]!.drifts!.length).toBeGreaterThan(5);
    expect(log.events[3]!.drifts!.length).toBeLessThanOrEqual(10);
    expect(more).toBeGreaterThan(0);
    expect(log.lines[3]).toMatch(new RegExp(` \\(and ${more} more\\)$`));
    expect(log.thrown).toMatchObject({ name: "ContractDriftError", drifts: 10, moreDrifts: more });
    expect(log.thrown.message).toContain(` (and ${9 + more} more). The store changed`);
  });
});

type Linear = {
  client: { good: number; bad: number };
  schemas: { good: number; bad: number };
  issues: { count: number; first: unknown; last: unknown };
  goodIssues: unknown;
  drifted: Array<{ drifts: unknown[]; moreDrifts?: number }>;
};

describe(`validation is linear: ${ITEMS.toLocaleString("en-US")} failing items against as many valid ones`, () => {
  let linear: Linear;
  beforeAll(async () => {
    linear = await consumer<Linear>("linear.mjs", { ITEMS: String(ITEMS) });
  }, 300_000);

  it('validateResponses "report": within 10× of the valid page, one drift for every item\'s id', () => {
    // Measured 3–5.2× on loaded machines: a failing item costs the validator an error object that a
    // valid one does not, and a loaded machine's collections grow that. Quadratic (before) took
    // seconds against the valid page's 50 ms: more than 20×.
    expect(linear.client.bad / linear.client.good, JSON.stringify(linear.client)).toBeLessThan(10);
    expect(linear.drifted).toEqual([
      { drifts: [{ pointer: "/results/*/id", expected: "integer", received: "string" }] },
    ]);
  });

  it("store-admin-sdk/schemas: within 25× of the valid body; 100 issues, the last saying how many more", () => {
    // Measured 8–15× on a loaded machine: a valid item costs the validator a few comparisons, a
    // failing one an error object, whatever is done after. Quadratic (before) was thousands of times.
    expect(linear.schemas.bad / linear.schemas.good, JSON.stringify(linear.schemas)).toBeLessThan(25);
    expect(linear.goodIssues).toBeNull();
    expect(linear.issues).toEqual({
      count: 100,
      first: { message: "must be integer", path: ["results", 0, "id"] },
      last: { message: `and ${(ITEMS - 99).toLocaleString("en-US")} more issues, not listed (the first 99 are above)` },
    });
  });
});

describe("store-admin-sdk/schemas' messages", () => {
  it("name what would be accepted: the enum's values, the type, the format, the limit, in words", async () => {
    const { user, update } = await consumer<{ user: unknown[]; update: unknown[] }>("messages.mjs");
    expect(user).toEqual([
      { message: "must be integer", path: ["id"] },
      {
        message: "must be a date and time with its offset (RFC 3339), such as 2024-04-01T10:00:00Z, or null",
        path: ["date_joined"],
      },
      { message: "must be an email address, such as name@example.com", path: ["email"] },
      {
        message: 'must be one of "en", "fr", "th", "de", "sv", "no", "it", "es", "nl", "pt", "da", "fi", "", null',
        path: ["language"],
      },
    ]);
    expect(update).toEqual([
      { message: "is not a property of this schema", path: ["nickname"] },
      { message: "must be at most 255 characters long", path: ["first_name"] },
    ]);
  }, 120_000);
});
