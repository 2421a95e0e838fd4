/**
 * The file ledger's promises across processes, with the packed tarball installed in a fresh
 * project (the user's code is test/package/fixtures/ledger/):
 * - several processes racing for one stale lock (its holder killed with SIGKILL): never two
 *   take it (and one does, most times);
 * - two "containers" sharing the ledger's volume (each process PID 1 of its own PID namespace,
 *   `unshare`): a lock whose lease its holder renews is refused, even past the lease; one whose
 *   holder was killed is taken once its lease has expired;
 * - with `fsync: true`, a new ledger's directory is synced (strace shows the fsync);
 * - a ledger write cut short (a 1 KiB file-size limit, `ulimit -f`: Node gets EFBIG after a
 *   short write): the command sends no request after it, and a resume sends each POST at most
 *   once and reports in doubt the calls that were sent without a recorded end.
 * Requests are counted at a loopback server.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { cp, mkdir, readFile, realpath, utimes, writeFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBulkServer, type BulkServer } from "../bulk/server.js";
import { createConsumerProject, describeRun, ROOT, run, type ConsumerProject } from "./tarball.js";

const FIXTURE_DIR = join(ROOT, "test", "package", "fixtures", "ledger");
const SETUP_TIMEOUT_MS = 300_000;
const TRIALS = 30;
const CONTENDERS = 4;

let project: ConsumerProject | undefined;
let server: BulkServer;
let work: string;
const children = new Set<ChildProcessWithoutNullStreams>();

beforeAll(async () => {
  server = await startBulkServer();
  project = await createConsumerProject();
  await cp(FIXTURE_DIR, project.dir, { recursive: true });
  work = await realpath(project.dir);
  await mkdir(join(work, "ledgers"));
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await server?.close();
  await project?.remove();
});

interface Said {
  took?: boolean;
  message?: string;
  closed?: boolean;
}

/** A contender process (`prefix` runs it inside something, e.g. its own PID namespace); `ask` sends a line and waits for the answer. */
function contender(prefix: readonly string[] = []): {
  ask(line: string): Promise<Said>;
  child: ChildProcessWithoutNullStreams;
} {
  const [command, ...args] = [...prefix, process.execPath, "contender.mjs"];
  const child = spawn(command!, args, { cwd: work, stdio: ["pipe", "pipe", "pipe"] });
  children.add(child);
  child.once("exit", () => children.delete(child));
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    child,
    async ask(line) {
      child.stdin.write(`${line}\n`);
      const next = await answers.next();
      if (next.done) throw new Error(`the contender exited: ${stderr}`);
      return JSON.parse(next.value) as Said;
    },
  };
}

/** Leaves a stale lock on `path`: a holder takes it and is killed with SIGKILL; the lock's lease is made an hour old. */
async function staleLock(path: string): Promise<void> {
  const holder = contender();
  expect(await holder.ask(`open ${path} 0`)).toEqual({ took: true });
  const exited = new Promise((resolve) => holder.child.once("exit", resolve));
  holder.child.kill("SIGKILL");
  await exited;
  const hourAgo = new Date(Date.now() - 3_600_000);
  await utimes(`${path}.lock`, hourAgo, hourAgo);
}

describe("the ledger lock across processes (packed tarball)", () => {
  it(`${CONTENDERS} processes racing for one stale lock, ${TRIALS} trials: never two take it`, async () => {
    const racers = Array.from({ length: CONTENDERS }, () => contender());
    const takers: number[] = [];
    const refusals: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const path = join(work, "ledgers", `race-${trial}.ledger`);
      await staleLock(path);
      const said = await Promise.all(racers.map((racer) => racer.ask(`open ${path} 0`)));
      takers.push(said.filter((s) => s.took).length);
      // Refused, or taken and found taken again before anything was sent (a slower contender's look).
      for (const s of said) if (!s.took) refusals.push(s.message ?? "");
      await Promise.all(racers.map((racer) => racer.ask("close")));
    }
    expect(
      takers.filter((n) => n > 1),
      `takers per trial: ${takers.join(" ")}`,
    ).toEqual([]);
    expect(takers.filter((n) => n === 1).length, `takers per trial: ${takers.join(" ")}`).toBeGreaterThan(TRIALS / 2);
    for (const message of refusals)
      expect(message, message).toMatch(
        /is in use: another run holds it|The run lost the lock of the ledger .*: another run took its lock/,
      );
    for (const racer of racers) racer.child.stdin.end();
  }, 300_000);

  it("two containers sharing the volume (each process PID 1): a renewed lease is refused past its length; an expired one is taken", async () => {
    // --kill-child: a SIGKILL to unshare kills the process inside too (a container killed).
    const inContainer = ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child=SIGKILL"];
    const path = join(work, "ledgers", "shared.ledger");
    const first = contender(inContainer);
    expect(await first.ask(`open ${path} 0`)).toEqual({ took: true });
    const second = contender(inContainer);
    // Waits 12 s, longer than the 10 s lease: the holder renews it meanwhile.
    const refused = await second.ask(`open ${path} 12000`);
    expect(refused.took).toBe(false);
    expect(refused.message).toMatch(/is in use: another run holds it and renews its lease/);

    const exited = new Promise((resolve) => first.child.once("exit", resolve));
    first.child.kill("SIGKILL");
    await exited;
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(`${path}.lock`, hourAgo, hourAgo);
    expect(await second.ask(`open ${path} 0`)).toEqual({ took: true });
    await second.ask("close");
    second.child.stdin.end();
  }, 120_000);
});

describe("a ledger write cut short (packed tarball's command)", () => {
  it("under a 1 KiB file-size limit: no request after the failed write; the resume sends each POST at most once and reports in doubt the calls sent", async () => {
    server.reset();
    const calls = 40;
    const input = join(work, "renewals.jsonl");
    await writeFile(
      input,
      Array.from({ length: calls }, (_, i) => JSON.stringify({ path: { id: i + 1 } })).join("\n") + "\n",
    );
    const ledger = join(work, "ledgers", "limited.ledger");
    const main = join(work, "node_modules", "store-admin-sdk", "dist", "src", "cli", "main.js");
    const args = [
      "bulk",
      "POST",
      "/subscriptions/{id}/renew/",
      "--input",
      input,
      "--ledger",
      ledger,
      "--concurrency",
      "1",
      "--progress",
      "none",
    ];
    const env = {
      ...process.env,
      STORE_ADMIN_API_URL: server.url,
      STORE_ADMIN_TOKEN: "sk_limit_token",
      STORE_ADMIN_URL: "",
    };
    const quoted = [process.execPath, main, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
    // Node gets EFBIG (after a short write) once the file would pass 1 KiB; SIGXFSZ is ignored.
    const limited = await run("bash", ["-c", `trap '' XFSZ; ulimit -f 1; exec ${quoted}`], {
      cwd: work,
      env,
      timeoutMs: 60_000,
    });
    const sentLimited = server.received.filter((r) => r.method === "POST").map((r) => Number(r.id));
    expect(sentLimited.length).toBeGreaterThan(0);
    expect(sentLimited.length).toBeLessThan(calls);
    const text = await readFile(ledger, "utf8");

    const resumed = await run(process.execPath, [main, ...args], { cwd: work, env, timeoutMs: 60_000 });
    for (let id = 1; id <= calls; id++) expect(server.count("POST", id), `POST ${id}`).toBeLessThanOrEqual(1);
    const inDoubt = (await readFile(`${input}.in-doubt.jsonl`, "utf8").catch(() => ""))
      .split("\n")
      .filter(Boolean)
      .map((line) => Number((JSON.parse(line) as { path: { id: number } }).path.id));
    // In doubt: sent by the first run without a recorded end; every other call was sent exactly once.
    for (const id of inDoubt) expect(sentLimited).toContain(id);
    for (let id = 1; id <= calls; id++)
      if (!inDoubt.includes(id)) expect(server.count("POST", id), `POST ${id}`).toBe(1);
    expect(resumed.stdout).toContain(`${inDoubt.length} in doubt`);
    expect(resumed.code, describeRun("the resume", resumed)).toBe(inDoubt.length > 0 ? 1 : 0);
    // Every request the first run sent has its record whole in the ledger: nothing was sent after the failed write.
    for (const id of sentLimited) expect(text, `the sending record of ${id}`).toContain(`S"${id}"\n`);
    expect(limited.code, describeRun("bulk under ulimit -f 1", limited)).toBe(2);
    expect(limited.stderr).toMatch(
      /Could not write the ledger file .*limited\.ledger: .*The run stops: no request is sent after a record that is not whole on disk/,
    );
  }, 120_000);
});

describe("fsync: true (packed tarball, under strace)", () => {
  it("a new ledger's directory is synced, and the file with its sending record", async () => {
    const ledgers = join(work, "synced");
    await mkdir(ledgers);
    const path = join(ledgers, "renewals.ledger");
    const trace = join(work, "fsync.trace");
    const traced = await run(
      "strace",
      ["-f", "-e", "trace=openat,fsync,fdatasync", "-o", trace, process.execPath, "fsync.mjs", path],
      { cwd: work, timeoutMs: 60_000 },
    );
    expect(traced.code, describeRun("node fsync.mjs under strace", traced)).toBe(0);
    const lines = (await readFile(trace, "utf8")).split("\n");
    /** Whether a descriptor openat returned for `file` was synced before it named another file. */
    const synced = (file: string): boolean => {
      const open = new Set<string>();
      for (const line of lines) {
        const opened = /openat\(AT_FDCWD, "([^"]*)".*= (\d+)$/.exec(line);
        if (opened) {
          if (opened[1] === file) open.add(opened[2]!);
          else open.delete(opened[2]!);
        }
        const sync = /(?:fsync|fdatasync)\((\d+)\)/.exec(line);
        if (sync && open.has(sync[1]!)) return true;
      }
      return false;
    };
    expect(synced(ledgers), "the directory's fsync").toBe(true);
    expect(synced(path), "the ledger file's fsync").toBe(true);
  }, 60_000);
});

describe("a reused ledger with a new input file (packed tarball's command)", () => {
  it("a done key whose call changed is refused naming the ledger, the run and the line; the in-doubt file carries the recorded call of a key in doubt since an earlier input", async () => {
    server.reset();
    const main = join(work, "node_modules", "store-admin-sdk", "dist", "src", "cli", "main.js");
    const env = {
      ...process.env,
      STORE_ADMIN_API_URL: server.url,
      STORE_ADMIN_TOKEN: "sk_reuse_token",
      STORE_ADMIN_URL: "",
    };
    const ledger = join(work, "ledgers", "cards.ledger");
    const day = async (name: string, rows: Array<[number, string]>) => {
      const input = join(work, name);
      await writeFile(
        input,
        rows.map(([id, at]) => JSON.stringify({ path: { id }, body: { expired_at: at } })).join("\n") + "\n",
      );
      const args = [
        "bulk",
        "PATCH",
        "/gift-cards/{id}/",
        "--input",
        input,
        "--ledger",
        ledger,
        "--concurrency",
        "1",
        "--progress",
        "none",
      ];
      return { input, result: await run(process.execPath, [main, ...args], { cwd: work, env, timeoutMs: 60_000 }) };
    };
    // Yesterday: card 2's PATCH gets a 500, so it is in doubt.
    server.respond = (request) => (request.id === "2" ? { status: 500, body: {} } : undefined);
    const yesterday = await day("cards-24.jsonl", [
      [1, "2026-11-24T00:00:00Z"],
      [2, "2026-11-24T00:00:00Z"],
      [3, "2026-11-24T00:00:00Z"],
    ]);
    expect(yesterday.result.stdout, describeRun("yesterday", yesterday.result)).toContain(
      "2 done, 0 failed, 0 skipped, 1 in doubt",
    );
    server.reset();

    // Today: new bodies for the same keys: refused, nothing sent.
    const today = await day("cards-25.jsonl", [
      [3, "2026-11-25T00:00:00Z"],
      [1, "2026-11-25T00:00:00Z"],
    ]);
    expect(today.result.code, describeRun("today", today.result)).toBe(2);
    expect(today.result.stderr).toContain(
      `${today.input}:1: the ledger file ${ledger} holds the key "3" of the run "PATCH /gift-cards/{id}/" as done with another call than this line's. Nothing was sent for it.`,
    );
    expect(server.received.length).toBe(0);

    // New keys only: they run; card 2, in doubt since yesterday, is written with yesterday's call.
    const other = await day("cards-26.jsonl", [[4, "2026-11-26T00:00:00Z"]]);
    expect(other.result.stdout, describeRun("new keys", other.result)).toContain(
      "1 done, 0 failed, 0 skipped, 1 in doubt",
    );
    expect(server.received.map((r) => r.id)).toEqual(["4"]);
    const inDoubt = (await readFile(`${other.input}.in-doubt.jsonl`, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as unknown);
    expect(inDoubt).toEqual([{ path: { id: 2 }, body: { expired_at: "2026-11-24T00:00:00Z" }, inDoubt: { key: "2" } }]);
  }, 120_000);
});
