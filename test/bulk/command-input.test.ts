/**
 * `store-admin-sdk bulk` from the packed tarball, fed hostile or careless input, counting what a
 * loopback store (and an attacker's server) receives: a CSV header or JSON key that reaches a
 * prototype, a line over the length limit or not UTF-8, credentials in STORE_ADMIN_URL,
 * terminal escapes in keys, two calls with one key, Ctrl-C then the same command again without
 * `--ledger`, and a dry run beside a real run's failures file.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createConsumerProject, type ConsumerProject } from "../package/tarball.js";
import { fileLedger } from "../../src/bulk/file-ledger.js";
import { jsonl, runCommand, type Ran } from "./run-command.js";
import { startBulkServer, type BulkServer } from "./server.js";

const TOKEN = "sk_input_secret_token_0123456789";
const SETUP_TIMEOUT_MS = 300_000;

let store: BulkServer;
let attacker: BulkServer;
let project: ConsumerProject;
let dir: string;
let files = 0;
beforeAll(async () => {
  [store, attacker, project] = await Promise.all([startBulkServer(), startBulkServer(), createConsumerProject()]);
  dir = mkdtempSync(join(tmpdir(), "bulk-input-"));
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await Promise.all([store?.close(), attacker?.close(), project?.remove()]);
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  store.reset();
  attacker.reset();
});

const file = (name: string, content?: string | Buffer): string => {
  const path = join(dir, `${++files}-${name}`);
  if (content !== undefined) writeFileSync(path, content);
  return path;
};

/** The installed `store-admin-sdk bulk …`; `whileRunning` may signal the child. */
const command = (
  args: string[],
  options: { env?: NodeJS.ProcessEnv; whileRunning?: (pid: number) => Promise<void> } = {},
): Promise<Ran> =>
  runCommand([join(project.dir, "node_modules", "store-admin-sdk", "dist", "src", "cli", "main.js"), "bulk", ...args], {
    cwd: project.dir,
    env: {
      ...process.env,
      STORE_ADMIN_API_URL: store.url,
      STORE_ADMIN_TOKEN: TOKEN,
      STORE_ADMIN_URL: "",
      ...options.env,
    },
    whileRunning: options.whileRunning,
  });

describe("input that reaches for a prototype (27.1)", () => {
  it("a CSV header query.__proto__.baseUrl is refused with its line and column: nothing reaches the attacker's host, nor the store", async () => {
    const input = file("cards.csv", `path.id,query.__proto__.baseUrl\n1,${attacker.url}\n2,${attacker.url}\n`);
    const ran = await command(["PATCH", "/gift-cards/{id}/", "--input", input]);
    expect(attacker.received).toHaveLength(0);
    expect(store.received).toHaveLength(0);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(
      `${input}:1: column 2 ("query.__proto__.baseUrl"): the field name "__proto__" is refused`,
    );
    for (const header of ["path.id,body.constructor.prototype.x", "path.id,query.prototype"]) {
      const refused = await command(["PATCH", "/gift-cards/{id}/", "--input", file("refused.csv", `${header}\n1,x\n`)]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/:1: column 2 .*is refused/);
    }
    expect(store.received).toHaveLength(0);
  });

  it("a JSON key __proto__ or constructor is a failed line naming its column; the other lines go to the store, none to the attacker", async () => {
    const input = file(
      "cards.jsonl",
      [
        JSON.stringify({ path: { id: 1 }, body: { expired_at: null } }),
        `{"path":{"id":2},"query":{"__proto__":{"baseUrl":"${attacker.url}"}}}`,
        `{"path":{"id":3},"body":{"constructor":{"prototype":{"baseUrl":"${attacker.url}"}}}}`,
        `{"path":{"id":4},"query":{"\\u005f_proto__":{"baseUrl":"${attacker.url}"}}}`,
        JSON.stringify({ path: { id: 5 }, body: { expired_at: null } }),
      ].join("\n") + "\n",
    );
    const ran = await command(["PATCH", "/gift-cards/{id}/", "--input", input]);
    expect(attacker.received).toHaveLength(0);
    expect(store.received.map((r) => r.id).sort()).toEqual(["1", "5"]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain("2 done, 3 failed");
    expect(ran.stdout).toContain(`${input}:2: column 27: the field name "__proto__" is refused`);
    expect(ran.stdout).toContain(`${input}:3: column 26: the field name "constructor" is refused`);
    expect(ran.stdout).toContain(`${input}:4: column 27: the field name "__proto__" is refused`);
  });
});

describe("a line that shows one call and would send another", () => {
  it("a key written twice in one object is a failed line naming its column (JSON keeps the last); a repeated key in different objects is fine", async () => {
    const input = file(
      "twice.jsonl",
      [
        `{"path":{"id":1},"path":{"id":2},"body":{"expired_at":null}}`,
        `{"path":{"id":3},"body":{"expired_at":null,"\u0065xpired_at":"2030-01-01T00:00:00Z"}}`,
        // The same name at different depths, and braces inside a string: one call, as shown.
        `{"path":{"id":4},"body":{"expired_at":null},"query":{}}`,
      ].join("\n") + "\n",
    );
    const ran = await command(["PATCH", "/gift-cards/{id}/", "--input", input]);
    expect(store.received.map((r) => r.id)).toEqual(["4"]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain("1 done, 2 failed");
    expect(ran.stdout).toContain(
      `${input}:1: column 18: the key "path" is written twice in one object; JSON keeps the last`,
    );
    expect(ran.stdout).toContain(`${input}:2: column 44: the key "expired_at" is written twice in one object`);
  });
});

describe("lines the command cannot read (27.6, 27.9)", () => {
  it("a line over --max-line-bytes, and a line of 5 MB over the default, are failed calls with their line; the run goes on", async () => {
    const good = (id: number) => JSON.stringify({ path: { id }, body: { expired_at: null } });
    const justOver = JSON.stringify({ path: { id: 2 }, body: { expired_at: null, note: "x".repeat(200) } });
    const limit = Buffer.byteLength(justOver) - 1;
    const small = file("small.jsonl", [good(1), justOver, good(3)].join("\n") + "\n");
    const ran = await command(["PATCH", "/gift-cards/{id}/", "--input", small, "--max-line-bytes", String(limit)]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain("2 done, 1 failed");
    expect(ran.stdout).toContain(
      `${small}:2: the line is ${limit + 1} bytes long, over the limit of ${limit} (--max-line-bytes)`,
    );
    expect(store.received.map((r) => r.id).sort()).toEqual(["1", "3"]);

    store.reset();
    const huge = JSON.stringify({ path: { id: 2 }, body: { expired_at: null, note: "x".repeat(5_000_000) } });
    const big = file("big.jsonl", [good(1), huge, good(3)].join("\n") + "\n");
    const bigRun = await command(["PATCH", "/gift-cards/{id}/", "--input", big]);
    expect(bigRun.code).toBe(1);
    expect(bigRun.stdout).toContain("2 done, 1 failed");
    expect(bigRun.stdout).toContain(
      `${big}:2: the line is ${Buffer.byteLength(huge)} bytes long, over the limit of 1048576 (--max-line-bytes)`,
    );
    expect(store.received.map((r) => r.id).sort()).toEqual(["1", "3"]);

    store.reset();
    const csv = file("big.csv", `path.id,body.expired_at\n1,null\n2,${"x".repeat(300)}\n3,null\n`);
    const csvRun = await command(["PATCH", "/gift-cards/{id}/", "--input", csv, "--max-line-bytes", "200"]);
    expect(csvRun.code).toBe(1);
    expect(csvRun.stdout).toContain("2 done, 1 failed");
    expect(csvRun.stdout).toContain(`${csv}:3: the line is 302 bytes long, over the limit of 200`);
    expect(store.received.map((r) => r.id).sort()).toEqual(["1", "3"]);
  });

  it("a line that is not UTF-8 (Latin-1 café, cafè) is a failed call with its line, never a U+FFFD call", async () => {
    const latin1 = Buffer.concat([
      Buffer.from('{"path":{"id":"caf', "latin1"),
      Buffer.from([0xe9]),
      Buffer.from('"}}\n{"path":{"id":"caf', "latin1"),
      Buffer.from([0xe8]),
      Buffer.from('"}}\n{"path":{"id":"cafe"}}\n', "latin1"),
    ]);
    const input = file("latin1.jsonl", latin1);
    const ran = await command(["PATCH", "/gift-cards/{id}/", "--input", input]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain("1 done, 2 failed, 0 skipped");
    expect(ran.stdout).toContain(`${input}:1: not valid UTF-8`);
    expect(ran.stdout).toContain(`${input}:2: not valid UTF-8`);
    expect(store.received.map((r) => r.path)).toEqual(["/gift-cards/cafe/"]);

    store.reset();
    const csv = file(
      "latin1.csv",
      Buffer.concat([
        Buffer.from("path.id,body.expired_at\ncaf"),
        Buffer.from([0xe9]),
        Buffer.from(",null\ncafe,null\n"),
      ]),
    );
    const csvRun = await command(["PATCH", "/gift-cards/{id}/", "--input", csv]);
    expect(csvRun.code).toBe(1);
    expect(csvRun.stdout).toContain(`${csv}:2: not valid UTF-8`);
    expect(store.received.map((r) => r.path)).toEqual(["/gift-cards/cafe/"]);
  });
});

describe("what the command prints (27.10, 27.11)", () => {
  it.each([
    [
      "ftp://u:SECRET_PASSWORD@shop.example.com",
      "SECRET_PASSWORD",
      /got ftp:\/\/shop\.example\.com\/ \(its credentials, query and fragment not shown\)/,
    ],
    [
      "https://u:SECRET_PASSWORD@shop.example.com",
      "SECRET_PASSWORD",
      /STORE_ADMIN_URL or STORE_ADMIN_TOKEN: baseUrl must not contain credentials/,
    ],
    [TOKEN, TOKEN, /got a value that is not a URL with a host \(\d+ characters, not shown/],
    [`${TOKEN}:x`, TOKEN, /got a value that is not a URL with a host \(\d+ characters, not shown/],
    [`https://shop.example.com/?token=${TOKEN}`, TOKEN, /must not have a query string/],
  ])("STORE_ADMIN_URL=%s is refused without printing its secret", async (url, secret, message) => {
    const input = file("in.jsonl", jsonl([{ path: { id: 1 } }]));
    const ran = await command(["PATCH", "/gift-cards/{id}/", "--input", input], {
      env: { STORE_ADMIN_API_URL: "", STORE_ADMIN_URL: url },
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(message);
    expect(ran.stderr + ran.stdout).not.toContain(secret);
    expect(store.received).toHaveLength(0);
  });

  it("keys with terminal escapes (ESC]52 … BEL) and bidi overrides are printed without them, in failed lines and the in-doubt list", async () => {
    const osc52 = "\u001b]52;c;Y3VybCBldmlsLnNo\u0007";
    const input = file(
      "keys.jsonl",
      jsonl([{ path: { id: `${osc52}refused` } }, { path: { id: `\u202edoubt${osc52}` } }]),
    );
    store.respond = (request) =>
      request.path.includes("refused")
        ? { status: 422, body: { detail: `bad ${osc52}` } }
        : { status: 503, body: { detail: "down" } };
    const ran = await command(["POST", "/subscriptions/{id}/renew/", "--input", input]);
    expect(store.received).toHaveLength(2);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain("0 done, 1 failed, 0 skipped, 1 in doubt");
    expect(ran.stdout).toContain("failed ]52;c;Y3VybCBldmlsLnNorefused:");
    expect(ran.stdout).toMatch(/In doubt .*: doubt\]52;c;Y3VybCBldmlsLnNo\n/);
    expect(ran.stdout + ran.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });
});

describe("keys (28.3)", () => {
  it("the default key tells apart path values holding '/': A/B + 1 and A + B/1 are two calls, both sent", async () => {
    const input = file(
      "lines.jsonl",
      jsonl([
        { path: { number: "A/B", lineId: "1" }, body: { quantity: 1 } },
        { path: { number: "A", lineId: "B/1" }, body: { quantity: 1 } },
      ]),
    );
    const ran = await command(["PATCH", "/orders/{number}/lines/{lineId}/", "--input", input]);
    expect(ran.stdout).toContain("2 done, 0 failed, 0 skipped");
    expect(ran.code).toBe(0);
    expect(store.received.map((r) => r.path).sort()).toEqual(["/orders/A%2FB/lines/1/", "/orders/A/lines/B%2F1/"]);
  });

  it("a ledger of 0.3.0 holding the shared key A/B/1: neither call is sent again nor skipped, each fails naming the record", async () => {
    const input = file(
      "lines.jsonl",
      jsonl([
        { path: { number: "A/B", lineId: "1" }, body: { quantity: 1 } },
        { path: { number: "A", lineId: "B/1" }, body: { quantity: 1 } },
        { path: { number: "C", lineId: "2" }, body: { quantity: 1 } },
      ]),
    );
    const old = fileLedger(`${input}.ledger`);
    await old.open("PATCH /orders/{number}/lines/{lineId}/");
    await old.start("A/B/1");
    await old.end("A/B/1", { state: "done" });
    await old.close();
    const ran = await command(["PATCH", "/orders/{number}/lines/{lineId}/", "--input", input]);
    expect(store.received.map((r) => r.path)).toEqual(["/orders/C/lines/2/"]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain("1 done, 2 failed, 0 skipped");
    expect(ran.stdout).toContain(`${input}:1: the ledger has a record of "A/B/1", the key 0.3.0 gave this call`);
    expect(ran.stdout).toContain(`${input}:2: the ledger has a record of "A/B/1"`);
  });

  it("two lines with one key (default or --key) are reported naming both lines, not skipped silently", async () => {
    const input = file(
      "twice.jsonl",
      jsonl([
        { path: { id: 1 }, body: { expired_at: null } },
        { path: { id: 2 } },
        { path: { id: 1 }, body: { expired_at: "2027-01-01T00:00:00Z" } },
      ]),
    );
    const ran = await command(["PATCH", "/gift-cards/{id}/", "--input", input]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain("2 done, 1 failed, 0 skipped");
    expect(ran.stdout).toContain(`${input}:3: the key "1" is the key of line 1 too`);
    expect(store.received.map((r) => r.id).sort()).toEqual(["1", "2"]);

    store.reset();
    const keyed = file(
      "keyed.jsonl",
      jsonl([
        { path: { id: 1 }, body: { code: "X" } },
        { path: { id: 2 }, body: { code: "X" } },
      ]),
    );
    const byKey = await command(["PATCH", "/gift-cards/{id}/", "--input", keyed, "--key", "body.code"]);
    expect(byKey.code).toBe(1);
    expect(byKey.stdout).toContain(`${keyed}:2: the key "X" is the key of line 1 too`);
    expect(store.received.map((r) => r.id)).toEqual(["1"]);
  });
});

describe("writes are safe by default (28.4, 28.6)", () => {
  it("Ctrl-C, then the same command again as the message says (no --ledger): every renewal is sent exactly once", async () => {
    const input = file("renew.jsonl", jsonl(Array.from({ length: 12 }, (_, i) => ({ path: { id: i + 1 } }))));
    store.respond = () => ({ delayMs: 150, status: 201, body: { id: 1 } });
    const stopped = await command(["POST", "/subscriptions/{id}/renew/", "--input", input, "--concurrency", "2"], {
      whileRunning: async (pid) => {
        while (store.received.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
        process.kill(pid, "SIGINT");
      },
    });
    expect(stopped.code).toBe(130);
    expect(stopped.stdout).toContain(
      `(stopped: run the same command again to go on; the ledger ${input}.ledger records what was done)`,
    );
    const sent = store.received.length;
    expect(sent).toBeLessThan(12);

    const again = await command(["POST", "/subscriptions/{id}/renew/", "--input", input, "--concurrency", "2"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`${12 - sent} done, 0 failed, ${sent} skipped`);
    for (let id = 1; id <= 12; id++) expect(store.count("POST", id)).toBe(1);
  });

  it("the in-doubt file fed back without --ledger shares the input's ledger: nothing is sent until --rerun-in-doubt, then each once", async () => {
    const input = file("doubt.jsonl", jsonl([{ path: { id: 1 } }, { path: { id: 2 } }]));
    store.respond = () => ({ status: 503, body: { detail: "down" } });
    const first = await command(["POST", "/subscriptions/{id}/renew/", "--input", input]);
    expect(first.stdout).toContain("0 done, 0 failed, 0 skipped, 2 in doubt");
    expect(first.stdout).toContain(`All 2 calls in doubt written to ${input}.in-doubt.jsonl.`);

    store.reset();
    const fedBack = await command(["POST", "/subscriptions/{id}/renew/", "--input", `${input}.in-doubt.jsonl`]);
    expect(fedBack.stdout).toContain("0 done, 0 failed, 0 skipped, 2 in doubt");
    expect(store.received).toHaveLength(0);
    const rerun = await command([
      "POST",
      "/subscriptions/{id}/renew/",
      "--input",
      `${input}.in-doubt.jsonl`,
      "--rerun-in-doubt",
    ]);
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toContain("2 done, 0 failed");
    expect([store.count("POST", 1), store.count("POST", 2)]).toEqual([1, 1]);
  });

  it("--no-ledger keeps none, and the summary of a stopped run (or one with calls in doubt) says that running again sends the calls again", async () => {
    const input = file(
      "patch.jsonl",
      jsonl(Array.from({ length: 12 }, (_, i) => ({ path: { id: i + 1 }, body: { expired_at: null } }))),
    );
    store.respond = () => ({ delayMs: 150, body: { id: 1 } });
    const stopped = await command(
      ["PATCH", "/gift-cards/{id}/", "--input", input, "--no-ledger", "--concurrency", "2"],
      {
        whileRunning: async (pid) => {
          while (store.received.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
          process.kill(pid, "SIGINT");
        },
      },
    );
    expect(stopped.code).toBe(130);
    expect(stopped.stdout).toContain(
      "(stopped: with --no-ledger, running the same command again sends every call again)",
    );
    expect(existsSync(`${input}.ledger`)).toBe(false);

    const renew = file("renew.jsonl", jsonl([{ path: { id: 1 } }]));
    store.respond = () => ({ status: 503, body: { detail: "down" } });
    const doubt = await command(["POST", "/subscriptions/{id}/renew/", "--input", renew, "--no-ledger"]);
    expect(doubt.stdout).toContain(
      "In doubt (a POST or PATCH may have been acted on; check them at the store: with --no-ledger, running again sends them again): 1",
    );
  });

  it("a dry run writes its failures beside a real run's file, never over it", async () => {
    const input = file(
      "cards.jsonl",
      jsonl([
        { path: { id: 1 }, body: { expired_at: "someday" } },
        { path: { id: 2 }, body: { expired_at: null } },
      ]),
    );
    store.respond = (request) =>
      request.id === "2" ? { status: 422, body: { detail: "card 2 is locked" } } : undefined;
    const real = await command(["PATCH", "/gift-cards/{id}/", "--input", input]);
    expect(real.code).toBe(1);
    const realFailures = readFileSync(`${input}.failures.jsonl`, "utf8");
    expect(realFailures).toContain("card 2 is locked");

    const dry = await command(["PATCH", "/gift-cards/{id}/", "--input", input, "--dry-run"]);
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain(`Failed calls written to ${input}.dry-run.failures.jsonl`);
    expect(readFileSync(`${input}.failures.jsonl`, "utf8")).toBe(realFailures);
    expect(readFileSync(`${input}.dry-run.failures.jsonl`, "utf8")).toContain("expired_at");
  });
});
