/**
 * `validateResponses` as the package ships it, with the real OpenTelemetry SDK (traces and
 * metrics) in a consumer project: a server whose customer drifts from the contract in each way
 * the contract's responses can (an enum value it does not list, a null where it allows none, a
 * missing required field, a wrong type, a broken format; the contract's responses declare no
 * pattern or length, src/plugins/drift-report.ts's unit test holds those), and once with an
 * extra field, which is no drift. "report" returns the data and reports each drift as a span
 * event and one count per response, by operation; the logger hears of each drift once per field
 * and type received, on the attempt's own event. A drifted
 * body carrying the token proves that no value and no token is reported, logged, thrown or
 * kept unscrubbed.
 */
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createConsumerProject,
  describeRun,
  pinnedVersion,
  ROOT,
  run,
  type ConsumerProject,
} from "../package/tarball.js";
import { startFaultServer, type FaultServer } from "../helpers/fault-server.js";

const TOKEN = "sk_live_drift_4eC39HqLyjWDarjtT1zdp7dc";

/** The customer each id answers with. */
const CUSTOMERS: Record<string, unknown> = {
  1: { id: 1, language: "tlh" }, // an enum value the contract does not list
  2: { id: null }, // null where the contract allows none
  3: { email: "kim@example.org" }, // the required id missing
  4: { id: 4, accepts_marketing: "yes" }, // a wrong type
  5: { id: 5, email: "not an address" }, // a broken format
  6: { id: 6, date_joined: 1_700_000_000 }, // a nullable reference of the wrong type
  7: { id: 7, favourite_colour: "blue" }, // an extra field: no drift
  8: { id: 8, language: TOKEN, accepts_marketing: TOKEN, email: `${TOKEN}@`, note: `Bearer ${TOKEN}` }, // the token in drifted fields
};

type Seen = {
  data: Record<string, unknown>;
  spans: Array<{ name: string; events: Array<Record<string, string>> }>;
  counter: Array<{ attributes: Record<string, string>; value: number }>;
  events: Array<{ drifts?: unknown; error?: { name: string; message: string } }>;
  lines: string[];
  errors: Array<{
    name: string;
    message: string;
    pointer: string;
    expected: string;
    received: string;
    requestId: string;
    body: Record<string, unknown>;
    status: number;
    json: string;
  }>;
};

let project: ConsumerProject | undefined;
let server: FaultServer;
let seen: Seen;

beforeAll(async () => {
  server = await startFaultServer((request) => ({
    body: CUSTOMERS[request.path.split("/").at(-2)!],
    headers: { "x-request-id": "req-drift" },
  }));
  const packages = await Promise.all(
    ["@opentelemetry/api", "@opentelemetry/sdk-trace-base", "@opentelemetry/sdk-metrics"].map(
      async (name) => `${name}@${await pinnedVersion(name)}`,
    ),
  );
  project = await createConsumerProject(packages);
  await cp(join(ROOT, "test", "production", "fixtures", "drift-consumer.mjs"), join(project.dir, "consumer.mjs"));
  const result = await run(process.execPath, ["consumer.mjs"], {
    cwd: project.dir,
    env: { ...process.env, SERVER_URL: server.url, TOKEN },
    timeoutMs: 60_000,
  });
  if (result.code !== 0) throw new Error(describeRun("consumer.mjs", result));
  seen = JSON.parse(result.stdout) as Seen;
}, 300_000);

afterAll(async () => {
  await server?.close();
  await project?.remove();
});

const drift = (pointer: string, expected: string | RegExp, received: string) => ({
  "store_admin.operation": "users.retrieve",
  "store_admin.contract.pointer": pointer,
  "store_admin.contract.expected": typeof expected === "string" ? expected : expect.stringMatching(expected),
  "store_admin.contract.received": received,
});

describe("validateResponses in the packed package, with the OpenTelemetry SDK", () => {
  it('"report" returns every body as the server sent it', () => {
    expect(seen.data).toEqual(CUSTOMERS);
  });

  it("reports each drift as an event on the call's span, types only, and an extra field as none", () => {
    const calls = seen.spans.filter((span) => span.name === "users.retrieve").slice(0, 8);
    expect(calls.map((span) => span.events)).toEqual([
      [drift("/language", /^one of "en", "fr", .*"", null$/, "string")],
      [drift("/id", "integer", "null")],
      [drift("/id", "required", "missing")],
      [drift("/accepts_marketing", "boolean or null", "string")],
      [drift("/email", 'format "email"', "string")],
      [drift("/date_joined", "string or null", "integer")],
      [],
      [
        drift("/accepts_marketing", "boolean or null", "string"),
        drift("/email", 'format "email"', "string"),
        drift("/language", /^one of "en"/, "string"),
      ],
    ]);
  });

  it("counts one per drifting response, by operation only", () => {
    // Two rounds of seven drifting customers, then the strict client's two calls.
    expect(seen.counter).toEqual([{ attributes: { "store_admin.operation": "users.retrieve" }, value: 16 }]);
  });

  it("logs each drift once per operation, field and type received in the process, on the attempt's own event", () => {
    // `/id` null (id 2), then `/id` missing (id 3): two drifts, both logged. Id 8's drifts were all logged before.
    const warned = seen.lines.filter((line) => line.includes("contract drift"));
    expect(warned).toEqual([
      expect.stringMatching(
        /^GET \/users\/\{id\}\/ 200 attempt 1 \d+ ms request-id req-drift contract drift: \/language is a string, where the contract expects one of "en", .*""[^;]*$/,
      ),
      expect.stringContaining("contract drift: /id is null, where the contract expects integer"),
      expect.stringContaining("contract drift: /id is missing, though the contract requires it"),
      expect.stringContaining(
        "contract drift: /accepts_marketing is a string, where the contract expects boolean or null",
      ),
      expect.stringContaining('contract drift: /email is a string, where the contract expects format "email"'),
      expect.stringContaining("contract drift: /date_joined is an integer, where the contract expects string or null"),
    ]);
    // One event per attempt: the report client's 16 calls and the strict one's 2.
    expect(seen.events).toHaveLength(18);
    for (const line of warned) expect(line).not.toMatch(/ContractDriftError|expected required|received missing/);
  });

  it('"strict" throws ContractDriftError in both call styles, with the request id and the body scrubbed', () => {
    expect(seen.errors).toHaveLength(2);
    for (const error of seen.errors) {
      expect(error).toMatchObject({
        name: "ContractDriftError",
        pointer: "/accepts_marketing",
        expected: "boolean or null",
        received: "string",
        requestId: "req-drift",
        status: 200,
      });
      expect(error.message).toBe(
        '[GET /users/{id}/] 200 OK body does not match the contract: /accepts_marketing is a string, where the contract expects boolean or null (and 2 more). The store changed, or the contract is behind it: validateResponses "report" logs this and returns the data.',
      );
      expect(error.body).toEqual({
        id: 8,
        language: "[REDACTED]",
        accepts_marketing: "[REDACTED]",
        email: "[REDACTED]@",
        note: "Bearer [REDACTED]",
      });
    }
    expect(server.count("GET", "/users/8/"), "two rounds of report, one call per strict style: never retried").toBe(4);
  });

  it("reports, logs and throws no value and no token", () => {
    const { data: _returned, ...reported } = seen;
    const text = JSON.stringify(reported);
    expect(text).not.toContain("sk_live_drift");
    for (const value of ["tlh", "not an address", "yes", "1700000000", "kim@example.org"])
      expect(text, value).not.toContain(value);
  });
});
