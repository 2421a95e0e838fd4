/**
 * The files `store-admin-sdk bulk` writes and the input it reads, from the packed package against
 * the counting server:
 * a symlink planted at a failures or in-doubt file's name is replaced, its target untouched; an
 * output that is the input or the ledger, or that cannot be written, is refused before anything
 * is sent; one that fails during the run leaves the summary printed and a clear error (exit 2);
 * an input that is a pipe, `/dev/stdin` or a FIFO is refused, nothing sent.
 */
import { execFileSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConsumerProject, type ConsumerProject } from "../package/tarball.js";
import { jsonl, runCommand, type Ran } from "./run-command.js";
import { bulkTestBed } from "./server.js";

const { server, file } = bulkTestBed("bulk-output-");
let project: ConsumerProject | undefined;
beforeAll(async () => {
  project = await createConsumerProject();
}, 300_000);
afterAll(async () => {
  await project?.remove();
});

/** The installed `store-admin-sdk bulk …`. */
const command = (args: string[], options: { stdin?: string } = {}): Promise<Ran> =>
  runCommand(
    [join(project!.dir, "node_modules", "store-admin-sdk", "dist", "src", "cli", "main.js"), "bulk", ...args],
    {
      cwd: project!.dir,
      env: {
        ...process.env,
        STORE_ADMIN_API_URL: server.url,
        STORE_ADMIN_TOKEN: "sk_output_token",
        STORE_ADMIN_URL: "",
      },
      stdin: options.stdin,
    },
  );

const RENEW = ["POST", "/subscriptions/{id}/renew/"];
/** One call the store answers 503 (in doubt: a renewal may have been acted on) and one line that is not JSON (failed). */
const MIXED = `${JSON.stringify({ path: { id: 1 } })}\nnot json\n`;
const VICTIM = "IMPORTANT DATA\n";

describe("files the bulk command writes", () => {
  it("replaces a symlink planted at the failures, in-doubt or dry-run failures name; its target is untouched", async () => {
    const folder = file("planted");
    mkdirSync(folder);
    const input = join(folder, "cards.jsonl");
    writeFileSync(input, MIXED);
    const victims = ["victim1.txt", "victim2.txt", "victim3.txt"].map((name) => join(folder, name));
    for (const victim of victims) writeFileSync(victim, VICTIM);
    const outputs = [`${input}.failures.jsonl`, `${input}.in-doubt.jsonl`, `${input}.dry-run.failures.jsonl`];
    outputs.forEach((output, i) => symlinkSync(victims[i]!, output));
    server.respond = () => ({ status: 503, body: { detail: "down" } });

    const ran = await command([...RENEW, "--input", input, "--progress", "none"]);
    expect(ran.code, ran.stderr).toBe(1);
    expect(ran.stdout).toContain("0 done, 1 failed, 0 skipped, 1 in doubt");
    const dry = await command([...RENEW, "--input", input, "--progress", "none", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(1);

    for (const victim of victims) expect(readFileSync(victim, "utf8")).toBe(VICTIM);
    for (const output of outputs) expect(lstatSync(output).isSymbolicLink()).toBe(false);
    expect(JSON.parse(readFileSync(outputs[0]!, "utf8"))).toMatchObject({ failure: { line: 2 } });
    expect(JSON.parse(readFileSync(outputs[1]!, "utf8"))).toEqual({ path: { id: 1 }, inDoubt: { key: "1", line: 1 } });
    expect(JSON.parse(readFileSync(outputs[2]!, "utf8"))).toMatchObject({ failure: { line: 2 } });
  });

  it("refuses --failures or --in-doubt naming the input, the ledger (existing or not) or each other, before sending anything (exit 2)", async () => {
    const input = file("cards.jsonl", jsonl([{ path: { id: 1 } }, { path: { id: 2 } }]) + "not json\n");
    const ledger = file("run.ledger");
    const both = file("both.jsonl");
    const linkToInput = file("link.jsonl");
    symlinkSync(input, linkToInput);
    const before = readFileSync(input, "utf8");
    const refusals: Array<[string[], string]> = [
      [["--failures", input], `--failures ${input} is the same file as --input ${input}`],
      [["--in-doubt", input], `--in-doubt ${input} is the same file as --input ${input}`],
      [["--failures", linkToInput], `--failures ${linkToInput} is the same file as --input ${input}`],
      [["--ledger", ledger, "--failures", ledger], `--failures ${ledger} is the same file as --ledger ${ledger}`],
      [["--failures", both, "--in-doubt", both], `--in-doubt ${both} is the same file as --failures ${both}`],
      [
        ["--ledger", ledger, "--failures", `${ledger}.lock`],
        `--failures ${ledger}.lock is the lock of --ledger ${ledger}`,
      ],
      [
        ["--in-doubt", `${input}.ledger.lock`],
        `--in-doubt ${input}.ledger.lock is the lock of --ledger ${input}.ledger`,
      ],
    ];
    for (const [flags, message] of refusals) {
      const ran = await command([...RENEW, "--input", input, "--progress", "none", ...flags]);
      expect(ran.code, ran.stderr).toBe(2);
      expect(ran.stderr).toContain(message);
    }
    expect(server.received).toHaveLength(0);
    expect(readFileSync(input, "utf8")).toBe(before);

    // A ledger an earlier run wrote stays whole: the resume finds every call done.
    const first = await command([...RENEW, "--input", input, "--ledger", ledger, "--progress", "none"]);
    expect(first.stdout).toContain("2 done, 1 failed");
    const ledgerText = readFileSync(ledger, "utf8");
    server.reset();
    const refused = await command([
      ...RENEW,
      "--input",
      input,
      "--ledger",
      ledger,
      "--failures",
      ledger,
      "--progress",
      "none",
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--failures ${ledger} is the same file as --ledger ${ledger}`);
    expect(server.received).toHaveLength(0);
    expect(readFileSync(ledger, "utf8")).toBe(ledgerText);

    // The lock is the ledger's real path's: named through a symlink to the ledger, and inside a
    // lock folder left by a killed run, it is refused too; the resume is not blocked.
    const linkToLedger = file("link.ledger");
    symlinkSync(ledger, linkToLedger);
    mkdirSync(`${ledger}.lock`);
    for (const flags of [
      ["--ledger", linkToLedger, "--failures", `${ledger}.lock`],
      ["--ledger", ledger, "--in-doubt", join(`${ledger}.lock`, "doubt.jsonl")],
    ]) {
      const ran = await command([...RENEW, "--input", input, "--progress", "none", ...flags]);
      expect(ran.code, ran.stderr).toBe(2);
      expect(ran.stderr).toMatch(/--(failures|in-doubt) \S+ is the lock of --ledger /);
    }
    expect(server.received).toHaveLength(0);
    rmSync(`${ledger}.lock`, { recursive: true });
    const resumed = await command([...RENEW, "--input", input, "--ledger", ledger, "--progress", "none"]);
    expect(resumed.stdout, resumed.stderr).toContain("0 done, 1 failed, 2 skipped");
    expect(server.received).toHaveLength(0);
  });

  it("refuses an output whose folder cannot be written, or that is a folder, before sending anything (exit 2)", async () => {
    const input = file("cards.jsonl", MIXED);
    const notAFolder = file("plain.txt", "x");
    const folder = file("a-folder");
    mkdirSync(folder);
    for (const [flag, path, message] of [
      ["--failures", join(notAFolder, "failures.jsonl"), "its folder cannot be written"],
      ["--in-doubt", join(file("missing"), "doubt.jsonl"), "its folder cannot be written"],
      ["--failures", folder, "is a folder"],
    ] as const) {
      const ran = await command([...RENEW, "--input", input, "--progress", "none", flag, path]);
      expect(ran.code, ran.stderr).toBe(2);
      expect(ran.stderr).toContain(`${flag} ${path}`);
      expect(ran.stderr).toContain(message);
    }
    expect(server.received).toHaveLength(0);
  });

  it("a failures file that cannot be written after the calls were sent: the summary, then an error naming it and the ledger (exit 2), no stack trace", async () => {
    const input = file("cards.jsonl", jsonl([{ path: { id: 1 } }, { path: { id: 2 } }]));
    const ledger = file("run.ledger");
    const folder = file("out");
    mkdirSync(folder);
    const failures = join(folder, "failures.jsonl");
    // The folder goes while the calls are on their way.
    server.respond = (request) => {
      rmSync(folder, { recursive: true, force: true });
      return request.id === "2" ? { status: 422, body: { detail: "card 2 is locked" } } : undefined;
    };
    const ran = await command([
      "PATCH",
      "/gift-cards/{id}/",
      "--input",
      input,
      "--ledger",
      ledger,
      "--failures",
      failures,
      "--progress",
      "none",
    ]);
    expect(ran.code).toBe(2);
    expect(ran.stdout).toContain("1 done, 1 failed, 0 skipped, 0 in doubt");
    expect(ran.stdout).not.toContain("Failed calls written to");
    expect(ran.stderr).toContain(`store-admin-sdk bulk: --failures ${failures} could not be written (ENOENT`);
    expect(ran.stderr).toContain(`The ledger ${ledger} records every call`);
    expect(ran.stderr).not.toMatch(/Unhandled|\n\s+at /);
    expect(existsSync(failures)).toBe(false);
  });
});

describe("an input that is not a regular file", () => {
  it("refuses a FIFO and a pipe to /dev/stdin (exit 2), sending nothing and creating no ledger beside it", async () => {
    const fifo = file("calls.fifo");
    execFileSync("mkfifo", [fifo]);
    const fromFifo = await command(["PATCH", "/gift-cards/{id}/", "--input", fifo, "--progress", "none"]);
    expect(fromFifo.code).toBe(2);
    expect(fromFifo.stderr).toContain(`--input ${fifo} is a pipe, not a file`);
    expect(fromFifo.stderr).toContain("Write the calls to a file first");
    expect(existsSync(`${fifo}.ledger`)).toBe(false);

    const calls = jsonl([
      { path: { id: 1 }, body: { expired_at: null } },
      { path: { id: 2 }, body: { expired_at: null } },
    ]);
    const fromStdin = await command(
      ["PATCH", "/gift-cards/{id}/", "--input", "/dev/stdin", "--ledger", file("stdin.ledger"), "--progress", "none"],
      { stdin: calls },
    );
    expect(fromStdin.code).toBe(2);
    // A shell's pipe is a FIFO, as above; Node's child process gets a socket pair.
    expect(fromStdin.stderr).toMatch(/--input \/dev\/stdin is a (pipe|socket), not a file/);
    expect(server.received).toHaveLength(0);
  });
});

describe("a dry run's memory", () => {
  it("does not grow with the calls it checks: 1,000 calls of 1 MB in a 64 MB heap, each done, nothing sent", async () => {
    const input = file("notes.jsonl");
    const fd = openSync(input, "w");
    const message = "m".repeat(1_000_000);
    try {
      for (let id = 1; id <= 1_000; id++) writeSync(fd, `${JSON.stringify({ path: { id }, body: { message } })}\n`);
    } finally {
      closeSync(fd);
    }
    try {
      const main = join(project!.dir, "node_modules", "store-admin-sdk", "dist", "src", "cli", "main.js");
      const ran = await runCommand(
        [
          "--max-old-space-size=64",
          main,
          "bulk",
          "POST",
          "/disputes/{id}/notes/",
          "--input",
          input,
          "--dry-run",
          "--progress",
          "none",
        ],
        {
          cwd: project!.dir,
          env: {
            ...process.env,
            STORE_ADMIN_API_URL: server.url,
            STORE_ADMIN_TOKEN: "sk_output_token",
            STORE_ADMIN_URL: "",
          },
        },
      );
      expect(ran.code, ran.stderr.slice(0, 2_000)).toBe(0);
      expect(ran.stdout).toMatch(/^Dry run: 1000 done, 0 failed, 0 skipped, 0 in doubt/);
      expect(server.received).toHaveLength(0);
    } finally {
      rmSync(input, { force: true });
    }
  }, 240_000);
});
