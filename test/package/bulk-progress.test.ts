/**
 * `store-admin-sdk bulk`'s progress line as a user sees it: the packed tarball's command in a
 * pseudo-terminal of 80 columns (script(1), `stty cols 80`). Every redraw fits the terminal
 * (79 columns: the last is left empty, where a full line wraps on some terminals) and keeps
 * done, failed, the rate and the ETA, on a first run and on a resume that skips 794 keys; a
 * resume that sends nothing shows no rate and no ETA.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBulkServer, type BulkServer } from "../bulk/server.js";
import { createConsumerProject, type ConsumerProject } from "./tarball.js";

const TOKEN = "sk_progress_secret_token";
let project: ConsumerProject | undefined;
let server: BulkServer | undefined;

beforeAll(async () => {
  project = await createConsumerProject();
  server = await startBulkServer();
}, 300_000);

afterAll(async () => {
  await server?.close();
  await project?.remove();
});

const quote = (arg: string): string => `'${arg.replace(/'/g, `'\\''`)}'`;

/** Runs `store-admin-sdk bulk …args` in a pseudo-terminal of 80 columns; resolves the redrawn lines and the exit code. */
function inTerminal(args: string[]): Promise<{ code: number | null; lines: string[]; output: string }> {
  const bin = join(project!.dir, "node_modules", ".bin", "store-admin-sdk");
  const command = `stty cols 80 rows 24; exec ${[bin, "bulk", ...args].map(quote).join(" ")}`;
  return new Promise((resolve) => {
    // -e: script exits with the command's status.
    const child = spawn("script", ["-qec", command, "/dev/null"], {
      cwd: project!.dir,
      env: { ...process.env, STORE_ADMIN_API_URL: server!.url, STORE_ADMIN_TOKEN: TOKEN, STORE_ADMIN_URL: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.on("close", (code) => {
      // Each redraw starts with a carriage return and "erase line"; it ends at the next control character.
      const lines = output
        .split("\r\x1b[2K")
        .slice(1)
        .map((redraw) => /^[^\r\n\x1b]*/.exec(redraw)![0]);
      resolve({ code, lines, output });
    });
  });
}

/** Columns a redrawn line takes: one per code point (the bar's blocks and `·` are one column wide each). */
const width = (line: string): number => [...line].length;

const calls = (ids: number[]): string =>
  ids.map((id) => `${JSON.stringify({ path: { id }, body: { expired_at: null } })}\n`).join("");
const ids = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("the bulk progress line in an 80-column terminal (packed package)", () => {
  it("keeps done, failed, the rate and the ETA within 79 columns, on a run and on a resume that skips 794 keys", async () => {
    writeFileSync(join(project!.dir, "cards.jsonl"), calls(ids(1, 800)));
    const args = ["PATCH", "/gift-cards/{id}/", "--input", "cards.jsonl", "--concurrency", "4"];
    // The first run: the last six refused by the store, so that the resume sends them again.
    server!.respond = (request) =>
      Number(request.id) > 794
        ? { status: 409, body: { detail: "locked" }, delayMs: 5 }
        : { delayMs: 5, body: { id: 1 } };
    const first = await inTerminal(args);
    expect(first.code, first.output).toBe(1);
    expect(first.lines.length, first.output).toBeGreaterThan(2);
    for (const line of first.lines) expect(width(line), line).toBeLessThanOrEqual(79);
    // Once a call was answered: all four, in full.
    const running = first.lines.filter((line) => !/done 0 · failed 0/.test(line));
    expect(running.length, first.output).toBeGreaterThan(0);
    for (const line of running) expect(line).toMatch(/done \d+ · failed \d+ · .*\d+\.\d\/s · ETA \d+:\d\d$/);
    expect(first.lines.at(-1)).toMatch(/^\[█+\] 100% 800\/800 · done 794 · failed 6 · \d+\.\d\/s · ETA 0:00$/);

    server!.reset();
    server!.respond = () => ({ delayMs: 200, body: { id: 1 } });
    const resumed = await inTerminal(args);
    expect(resumed.code, resumed.output).toBe(0);
    expect(server!.received.map((request) => Number(request.id)).sort((a, b) => a - b)).toEqual(ids(795, 800));
    for (const line of resumed.lines) expect(width(line), line).toBeLessThanOrEqual(79);
    expect(resumed.lines.at(-1)).toMatch(/100% 800\/800 · done 6 · failed 0 · skip(ped)? 794 · \d+\.\d\/s · ETA 0:00$/);
  }, 120_000);

  it("a resume that sends nothing shows no rate and no ETA", async () => {
    // Six lines that are not calls: they fail without a request, on each run.
    writeFileSync(join(project!.dir, "mixed.jsonl"), calls(ids(1, 20)) + "not json\n".repeat(6));
    const args = ["PATCH", "/gift-cards/{id}/", "--input", "mixed.jsonl"];
    server!.reset();
    const first = await inTerminal(args);
    expect(first.code, first.output).toBe(1);
    expect(server!.received).toHaveLength(20);

    server!.reset();
    const resumed = await inTerminal(args);
    expect(resumed.code, resumed.output).toBe(1);
    expect(server!.received).toHaveLength(0);
    expect(resumed.lines.length, resumed.output).toBeGreaterThan(0);
    for (const line of resumed.lines) {
      expect(width(line), line).toBeLessThanOrEqual(79);
      expect(line).not.toMatch(/\/s|ETA/);
    }
    expect(resumed.lines.at(-1)).toMatch(/100% 26\/26 · done 0 · failed 6 · skipped 20$/);
  }, 120_000);
});
