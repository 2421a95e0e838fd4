/**
 * `store-admin-sdk bulk` end to end, as a child process against the counting server: JSON
 * lines and CSV input, the ledger and resume, the failures file fed back, Ctrl-C (SIGINT) once
 * and twice, the dry run, exit codes, and its progress output with and without a terminal.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { jsonl, runCommand, type Ran } from "./run-command.js";
import { bulkTestBed } from "./server.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = join(ROOT, "src/cli/main.ts");
const TOKEN = "sk_command_secret_token";

const { server, dir, file } = bulkTestBed("bulk-command-");
const cards = (n: number) => Array.from({ length: n }, (_, i) => ({ path: { id: i + 1 }, body: { expired_at: null } }));

/** Runs the command; `whileRunning` may signal the child once it runs. */
const command = (
  args: string[],
  options: { env?: NodeJS.ProcessEnv; whileRunning?: (pid: number) => Promise<void> } = {},
): Promise<Ran> =>
  runCommand(["--import", "tsx", MAIN, "bulk", ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      STORE_ADMIN_API_URL: server.url,
      STORE_ADMIN_TOKEN: TOKEN,
      STORE_ADMIN_URL: "",
      ...options.env,
    },
    whileRunning: options.whileRunning,
  });

async function receivedAtLeast(count: number): Promise<void> {
  while (server.received.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("store-admin-sdk bulk", () => {
  it("runs a JSON-lines file with a ledger, writes failures that can be fed back, and resumes (exit 1, then 0)", async () => {
    const input = file("cards.jsonl", jsonl(cards(20)));
    const ledger = file("cards.ledger");
    server.respond = (request) =>
      request.id === "7"
        ? {
            status: 422,
            body: { detail: "card 7 is locked", validation: [{ location: ["body", "expired_at"], message: "locked" }] },
          }
        : undefined;
    const first = await command([
      "PATCH",
      "/gift-cards/{id}/",
      "--input",
      input,
      "--ledger",
      ledger,
      "--key",
      "path.id",
      "--concurrency",
      "3",
    ]);
    expect(first.stderr).not.toContain("store-admin-sdk bulk:");
    expect(first.code).toBe(1);
    expect(first.stdout).toContain("19 done, 1 failed, 0 skipped, 0 in doubt");
    expect(first.stdout).toContain("failed 7:");
    for (let id = 1; id <= 20; id++) expect(server.count("PATCH", id)).toBe(1);
    expect(JSON.parse(server.received[0]!.body)).toEqual({ expired_at: null });

    const failures = `${input}.failures.jsonl`;
    const lines = readFileSync(failures, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      {
        path: { id: 7 },
        body: { expired_at: null },
        failure: { key: "7", line: 7, status: 422, message: expect.stringContaining("expired_at") },
      },
    ]);

    server.reset();
    const again = await command([
      "PATCH",
      "/gift-cards/{id}/",
      "--input",
      failures,
      "--ledger",
      ledger,
      "--key",
      "path.id",
    ]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("1 done, 0 failed, 0 skipped");
    expect(server.received.map((r) => r.id)).toEqual(["7"]);

    server.reset();
    const resumed = await command(["PATCH", "/gift-cards/{id}/", "--input", input, "--ledger", ledger]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("0 done, 0 failed, 20 skipped");
    expect(server.received).toHaveLength(0);
    const ledgerText = readFileSync(ledger, "utf8");
    for (const text of [first.stdout, first.stderr, ledgerText, readFileSync(failures, "utf8")])
      expect(text).not.toContain(TOKEN);
  });

  it("reads CSV with dotted headers, converting cells to the contract's types", async () => {
    const input = file(
      "users.csv",
      'path.id,body.first_name,body.is_blocked,body.accepts_marketing\n1,Ada,true,false\n2,"Grace, Admiral",false,\n3,,true,true\n',
    );
    const ran = await command(["PATCH", "/users/{id}/", "--input", input]);
    expect(ran.stderr).not.toContain("store-admin-sdk bulk:");
    expect(ran.code).toBe(0);
    const bodies = Object.fromEntries(server.received.map((r) => [r.id, JSON.parse(r.body)]));
    expect(bodies).toEqual({
      "1": { first_name: "Ada", is_blocked: true, accepts_marketing: false },
      "2": { first_name: "Grace, Admiral", is_blocked: false },
      "3": { is_blocked: true, accepts_marketing: true },
    });
  });

  it("a CSV cell null is JSON null where the field admits null (string-or-null too), and text where it does not", async () => {
    const cardsCsv = file("expire.csv", "path.id,body.expired_at\n1,null\n");
    const dry = await command(["PATCH", "/gift-cards/{id}/", "--input", cardsCsv, "--dry-run"]);
    expect(dry.stdout).toContain("Dry run: 1 done, 0 failed");
    expect(dry.code).toBe(0);
    const sent = await command(["PATCH", "/gift-cards/{id}/", "--input", cardsCsv]);
    expect(sent.code).toBe(0);
    expect(server.received.map((r) => JSON.parse(r.body))).toEqual([{ expired_at: null }]);

    // first_name of PATCH /users/{id}/ is a string that admits no null: the cell stays text.
    server.reset();
    const users = file("names.csv", "path.id,body.first_name\n1,null\n");
    expect((await command(["PATCH", "/users/{id}/", "--input", users])).code).toBe(0);
    expect(server.received.map((r) => JSON.parse(r.body))).toEqual([{ first_name: "null" }]);
  });

  it("Ctrl-C once stops taking calls and lets those in flight finish (exit 130); the same command resumes the rest", async () => {
    const input = file("slow.jsonl", jsonl(cards(30)));
    const ledger = file("slow.ledger");
    server.respond = () => ({ delayMs: 150, body: { id: 1 } });
    const stopped = await command(
      ["PATCH", "/gift-cards/{id}/", "--input", input, "--ledger", ledger, "--concurrency", "3"],
      {
        whileRunning: async (pid) => {
          await receivedAtLeast(4);
          process.kill(pid, "SIGINT");
        },
      },
    );
    expect(stopped.stderr).toContain("Stopping: no new calls");
    expect(stopped.code).toBe(130);
    const sent = server.received.length;
    expect(sent).toBeLessThan(30);
    expect(stopped.stdout).toContain(`${sent} done, 0 failed, 0 skipped, 0 in doubt`);

    const resumed = await command([
      "PATCH",
      "/gift-cards/{id}/",
      "--input",
      input,
      "--ledger",
      ledger,
      "--concurrency",
      "3",
    ]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(`${30 - sent} done, 0 failed, ${sent} skipped`);
    for (let id = 1; id <= 30; id++) expect(server.count("PATCH", id)).toBe(1);
  });

  it("a Retry-After beyond --max-pause stops the run (exit 75) and says when to run it again; the same command then sends the rest once", async () => {
    const input = file("paused.jsonl", jsonl(cards(6)));
    const ledger = file("paused.ledger");
    server.respond = (request) =>
      request.id === "3" && server.count("PATCH", 3) === 1
        ? { status: 429, headers: { "retry-after": "3600" }, body: { detail: "come back later" } }
        : undefined;
    const paused = await command([
      "PATCH",
      "/gift-cards/{id}/",
      "--input",
      input,
      "--ledger",
      ledger,
      "--concurrency",
      "1",
      "--max-pause",
      "2",
    ]);
    expect(paused.code).toBe(75);
    expect(paused.stdout).toMatch(
      /^The store answered 429 with a Retry-After of 60 min, longer than --max-pause \(2 s\): the run stopped\. Run it again with the same command after 20\d\d-\d\d-\d\dT[\d:.]+Z to go on\.$/m,
    );
    expect(paused.stdout).toContain("2 done, 1 failed, 0 skipped, 0 in doubt");
    expect(server.received).toHaveLength(3);

    server.respond = undefined;
    const resumed = await command([
      "PATCH",
      "/gift-cards/{id}/",
      "--input",
      input,
      "--ledger",
      ledger,
      "--concurrency",
      "1",
      "--max-pause",
      "2",
    ]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("4 done, 0 failed, 2 skipped");
    for (let id = 1; id <= 6; id++) expect(server.count("PATCH", id), `PATCH ${id}`).toBe(id === 3 ? 2 : 1);
  });

  it("a --max-pause under a second is printed as given, not rounded to the Retry-After's second", async () => {
    const input = file("short-pause.jsonl", jsonl(cards(1)));
    server.respond = () => ({ status: 429, headers: { "retry-after": "1" }, body: { detail: "come back later" } });
    const paused = await command(["PATCH", "/gift-cards/{id}/", "--input", input, "--no-ledger", "--max-pause", "0.5"]);
    expect(paused.code, paused.stderr).toBe(75);
    expect(paused.stdout).toContain(
      "The store answered 429 with a Retry-After of 1 s, longer than --max-pause (0.5 s): the run stopped.",
    );
    expect(server.received).toHaveLength(1);
  });

  it("Ctrl-C twice aborts the calls in flight: a renewal on its way is in doubt, reported, exit 130; and a resume does not resend it", async () => {
    const input = file("renew.jsonl", jsonl(Array.from({ length: 6 }, (_, i) => ({ path: { id: i + 1 } }))));
    const ledger = file("renew.ledger");
    server.respond = () => ({ delayMs: 3_000, status: 201, body: { id: 1 } });
    const aborted = await command(
      ["POST", "/subscriptions/{id}/renew/", "--input", input, "--ledger", ledger, "--concurrency", "2"],
      {
        whileRunning: async (pid) => {
          await receivedAtLeast(2);
          process.kill(pid, "SIGINT");
          await new Promise((resolve) => setTimeout(resolve, 100));
          process.kill(pid, "SIGINT");
        },
      },
    );
    expect(aborted.code).toBe(130);
    expect(aborted.stdout).toContain("0 done, 0 failed, 0 skipped, 2 in doubt");
    expect(aborted.stdout).toMatch(/In doubt .*: 1, 2/);
    expect(aborted.stdout).toContain(`All 2 calls in doubt written to ${input}.in-doubt.jsonl.`);
    const inDoubt = readFileSync(`${input}.in-doubt.jsonl`, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(inDoubt.sort((x, y) => x.inDoubt.line - y.inDoubt.line)).toEqual([
      { path: { id: 1 }, inDoubt: { key: "1", line: 1 } },
      { path: { id: 2 }, inDoubt: { key: "2", line: 2 } },
    ]);

    server.reset();
    const resumed = await command(["POST", "/subscriptions/{id}/renew/", "--input", input, "--ledger", ledger]);
    expect(resumed.code).toBe(1);
    expect(resumed.stdout).toContain("4 done, 0 failed, 0 skipped, 2 in doubt");
    expect(server.count("POST", 1) + server.count("POST", 2)).toBe(0);
  });

  it("writes every call in doubt to --in-doubt FILE with its input line, not only the 20 the summary shows; the file can be fed back", async () => {
    const input = file("many.jsonl", jsonl(Array.from({ length: 25 }, (_, i) => ({ path: { id: i + 1 } }))));
    const ledger = file("many.ledger");
    const inDoubtFile = file("doubt.jsonl");
    server.respond = () => ({ status: 503, body: { detail: "down" } });
    const ran = await command([
      "POST",
      "/subscriptions/{id}/renew/",
      "--input",
      input,
      "--ledger",
      ledger,
      "--in-doubt",
      inDoubtFile,
      "--concurrency",
      "8",
    ]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain("0 done, 0 failed, 0 skipped, 25 in doubt");
    expect(ran.stdout).toMatch(/In doubt .*, …\n/);
    expect(ran.stdout).toContain(`All 25 calls in doubt written to ${inDoubtFile}.`);
    const lines = readFileSync(inDoubtFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(25);
    for (const entry of lines)
      expect(entry).toEqual({
        path: { id: entry.inDoubt.line },
        inDoubt: { key: String(entry.inDoubt.line), line: entry.inDoubt.line },
      });
    expect(new Set(lines.map((entry) => entry.inDoubt.key)).size).toBe(25);

    // Checked by the operator, fed back with --rerun-in-doubt: each sent once more.
    server.reset();
    const rerun = await command([
      "POST",
      "/subscriptions/{id}/renew/",
      "--input",
      inDoubtFile,
      "--ledger",
      ledger,
      "--rerun-in-doubt",
    ]);
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toContain("25 done, 0 failed");
    for (let id = 1; id <= 25; id++) expect(server.count("POST", id)).toBe(1);
  });

  it("--dry-run sends nothing and names the fields the contract refuses (exit 1)", async () => {
    const input = file(
      "dry.jsonl",
      jsonl([
        { path: { id: 1 }, body: { expired_at: null } },
        { path: { id: 2 }, body: { expired_at: "someday" } },
      ]),
    );
    const ledger = file("dry.ledger");
    const ran = await command(["PATCH", "/gift-cards/{id}/", "--input", input, "--dry-run", "--ledger", ledger]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain("Dry run: 1 done, 1 failed");
    expect(ran.stdout).toMatch(/failed 2: .*expired_at/);
    expect(server.received).toHaveLength(0);
    expect(existsSync(ledger)).toBe(false);
  });

  it.each([
    [
      ["PATCH", "/gift-cards/{id}/", "--input", "IN", "--concurrency", "0"],
      /--concurrency must be a whole number ≥ 1/,
      {},
    ],
    [["PATCH", "/gift-cards/{id}/", "--input", "IN", "--rate", "fast"], /--rate must be a positive number/, {}],
    [
      ["PATCH", "/gift-cards/{id}/", "--input", "IN", "--max-pause", "-1"],
      /--max-pause must be a number of seconds ≥ 0, got "-1"/,
      {},
    ],
    [
      ["PATCH", "/gift-cards/{id}/", "--input", "IN", "--max-pause", " "],
      /--max-pause must be a number of seconds ≥ 0, got " "/,
      {},
    ],
    [["PATCH", "/gift-cards/{id}/"], /required option '--input <file>'/, {}],
    [
      ["DELETE", "/gift-cards/{id}/", "--input", "IN"],
      /DELETE \/gift-cards\/\{id\}\/ is not an operation of the contract/,
      {},
    ],
    [["PATCH", "/gift-cards/{id}/", "--input", "IN"], /Set STORE_ADMIN_TOKEN/, { STORE_ADMIN_TOKEN: "" }],
    [
      ["PATCH", "/gift-cards/{id}/", "--input", "IN"],
      /Set STORE_ADMIN_URL to the store's address \(or STORE_ADMIN_API_URL to an API root\), and STORE_ADMIN_TOKEN/,
      { STORE_ADMIN_TOKEN: "", STORE_ADMIN_API_URL: "" },
    ],
    [
      ["PATCH", "/gift-cards/{id}/", "--input", "IN"],
      /STORE_ADMIN_API_URL must be an absolute http\(s\) URL .*, got a value that is not a URL with a host \(7 characters, not shown/,
      { STORE_ADMIN_API_URL: "notaurl" },
    ],
    [
      ["PATCH", "/gift-cards/{id}/", "--input", "IN"],
      /STORE_ADMIN_URL must be an absolute http\(s\) URL .*, got ftp:\/\/shop\//,
      { STORE_ADMIN_API_URL: "", STORE_ADMIN_URL: "ftp://shop" },
    ],
    [
      ["PATCH", "/gift-cards/{id}/", "--input", "IN"],
      /Set STORE_ADMIN_URL or STORE_ADMIN_API_URL, not both/,
      { STORE_ADMIN_URL: "https://shop.example.com" },
    ],
    [["PATCH", "/gift-cards/{id}/", "--input", "NOPE"], /--input NOPE-FILE: no such file\./, {}],
    [
      ["POST", "/products/", "--input", "IN"],
      /: \/products\/ has no path parameters to key the calls by; pass --key/,
      {},
    ],
  ])("%j: a clear error, exit 2, nothing sent", async (args, message, env) => {
    const input = file("in.jsonl", jsonl(cards(2)));
    const nope = join(dir, "nope.jsonl");
    const ran = await command(
      args.map((arg) => (arg === "IN" ? input : arg === "NOPE" ? nope : arg)),
      { env },
    );
    expect(ran.code).toBe(2);
    expect(ran.stderr.replace(nope, "NOPE-FILE")).toMatch(message);
    expect(ran.stdout).toBe("");
    expect(server.received).toHaveLength(0);
  });

  it("a line that is not a call is a failed item: named with its file and line in the summary and the failures file, the rest sent (exit 1)", async () => {
    const good = (id: number) => JSON.stringify({ path: { id }, body: { expired_at: null } });
    const input = file(
      "part.jsonl",
      `\uFEFF${good(1)}\n{not json\n${good(3)}\n["x"]\n{"body":{"expired_at":null}}\n{"path":{"id":6},"extra":1}\n${good(7)}\n`,
    );
    const ran = await command(["PATCH", "/gift-cards/{id}/", "--input", input]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain("3 done, 4 failed, 0 skipped, 0 in doubt");
    expect(ran.stdout).toContain(`failed line 2: ${input}:2: not JSON`);
    expect(ran.stdout).toContain(`failed line 5: ${input}:5: --key path.id (the default) is missing`);
    expect(server.received.map((r) => r.id).sort()).toEqual(["1", "3", "7"]);
    const failures = readFileSync(`${input}.failures.jsonl`, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(failures.map((f) => [f.failure.key, f.failure.line])).toEqual([
      ["line 2", 2],
      ["line 4", 4],
      ["line 5", 5],
      ["line 6", 6],
    ]);
    expect(failures[0].failure).toMatchObject({
      message: expect.stringContaining(`${input}:2: not JSON`),
      text: "{not json",
    });
    expect(failures[3].failure.message).toContain(`${input}:6: unknown key "extra"`);

    // --key naming a field no line has: every line fails, nothing is sent.
    server.reset();
    const keyed = await command([
      "PATCH",
      "/gift-cards/{id}/",
      "--input",
      file("in.jsonl", jsonl(cards(2))),
      "--key",
      "body.nothing",
    ]);
    expect(keyed.code).toBe(1);
    expect(keyed.stdout).toContain("0 done, 2 failed");
    expect(keyed.stdout).toMatch(/in\.jsonl:1: --key body\.nothing is missing/);
    expect(server.received).toHaveLength(0);
  });

  it("a CSV row that cannot be read (wrong cell count, an unclosed quote) is a failed item naming the file and line", async () => {
    const input = file("rows.csv", 'path.id,body.expired_at\n1,null\n2,null,extra\n3,null\n4,"unclosed\n');
    const ran = await command(["PATCH", "/gift-cards/{id}/", "--input", input]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain("2 done, 2 failed");
    expect(ran.stdout).toContain(`${input}:3: Invalid Record Length`);
    expect(ran.stdout).toContain(`${input}:5: Quote Not Closed`);
    expect(server.received.map((r) => r.id).sort()).toEqual(["1", "3"]);
  });

  it("makes the ledger's directory when it does not exist yet (runs/cards.ledger)", async () => {
    const input = file("in.jsonl", jsonl(cards(2)));
    const ledger = join(file("runs"), "nested", "cards.ledger");
    const ran = await command(["PATCH", "/gift-cards/{id}/", "--input", input, "--ledger", ledger]);
    expect(ran.stderr).not.toContain("store-admin-sdk bulk:");
    expect(ran.code).toBe(0);
    expect(readFileSync(ledger, "utf8")).toContain('"runId":"PATCH /gift-cards/{id}/"');
    expect(server.received).toHaveLength(2);
  });

  it("refuses a ledger of another run and a file that is not a ledger (exit 2)", async () => {
    const input = file("in.jsonl", jsonl(cards(2)));
    const ledger = file("other.ledger");
    expect(
      (await command(["PATCH", "/gift-cards/{id}/", "--input", input, "--ledger", ledger, "--run-id", "first"])).code,
    ).toBe(0);
    const other = await command([
      "PATCH",
      "/gift-cards/{id}/",
      "--input",
      input,
      "--ledger",
      ledger,
      "--run-id",
      "second",
    ]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/belongs to the run "first", not "second"/);
    const notLedger = await command(["PATCH", "/gift-cards/{id}/", "--input", input, "--ledger", input]);
    expect(notLedger.code).toBe(2);
    expect(notLedger.stderr).toMatch(/is not a bulk ledger/);
  });
});

describe("progress output", () => {
  it("without a terminal: plain lines, no carriage returns or escape codes", async () => {
    const input = file("plain.jsonl", jsonl(cards(12)));
    server.respond = () => ({ delayMs: 200, body: { id: 1 } });
    const ran = await command(["PATCH", "/gift-cards/{id}/", "--input", input, "--concurrency", "2"]);
    expect(ran.code).toBe(0);
    expect(ran.stderr).toMatch(/^progress: done \d+ · failed 0 · [\d.]+\/s/m);
    expect(ran.stderr).toContain("progress: done 12 · failed 0");
    expect(ran.stderr).not.toMatch(/[\r\x1b]/);
  });

  it("on a terminal (a pseudo-terminal from script(1)): one line redrawn with a bar, the rate and the ETA", async () => {
    const input = file("tty.jsonl", jsonl(cards(12)));
    server.respond = () => ({ delayMs: 150, body: { id: 1 } });
    const quoted = [
      process.execPath,
      "--import",
      "tsx",
      MAIN,
      "bulk",
      "PATCH",
      "/gift-cards/{id}/",
      "--input",
      input,
      "--concurrency",
      "2",
    ]
      .map((arg) => `'${arg}'`)
      .join(" ");
    const ran = await new Promise<Ran>((resolve) => {
      const child = spawn("script", ["-qfec", quoted, "/dev/null"], {
        cwd: ROOT,
        env: {
          ...process.env,
          STORE_ADMIN_API_URL: server.url,
          STORE_ADMIN_TOKEN: TOKEN,
          STORE_ADMIN_URL: "",
          COLUMNS: "120",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.on("close", (code) => resolve({ code, stdout, stderr: "" }));
    });
    expect(ran.code).toBe(0);
    const redraws = ran.stdout.split("\r\x1b[2K").slice(1);
    expect(redraws.length).toBeGreaterThan(2);
    expect(redraws.at(-1)).toMatch(/^\[█{24}\] 100% 12\/12 · done 12 · failed 0 · [\d.]+\/s/);
    expect(ran.stdout).toMatch(/\[█*░+\]\s+\d+% \d+\/12 · done \d+ · failed 0 · [\d.]+\/s · ETA \d+:\d\d/);
    expect(ran.stdout).toContain("12 done, 0 failed, 0 skipped, 0 in doubt");
  });
});
