/**
 * Crash safety with a real process: a child running a bulk job over a file ledger is killed
 * with SIGKILL twice while requests are in flight, then run to the end. Every renewal (POST)
 * reaches the server at most once; keys whose tasks sent only GET and PUT are re-done; the
 * renewals whose end was never recorded are reported in doubt and not re-sent.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { BulkReport } from "../../src/bulk/index.js";
import { startBulkServer, type BulkServer } from "./server.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CHILD = join(ROOT, "test/bulk/fixtures/crash-child.ts");
const ITEMS = 240;

let server: BulkServer;
let dir: string;
beforeAll(async () => {
  server = await startBulkServer();
  dir = mkdtempSync(join(tmpdir(), "bulk-crash-"));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function start(ledger: string): {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
} {
  // Node itself with tsx's loader: the process killed is the one that runs the job (the tsx
  // command would run it in a child of its own, which a SIGKILL to tsx leaves running).
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, server.url, ledger, String(ITEMS)], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

/** Resolves once the server has received `count` requests in all. */
async function receivedAtLeast(count: number): Promise<void> {
  while (server.received.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

it("kill -9 twice mid-run, then resume: each renewal received at most once, every key done or in doubt", {
  timeout: 120_000,
}, async () => {
  const ledger = join(dir, "crash.ledger");
  // Slow answers: when the child is killed, requests are in flight (POSTs among them).
  server.respond = (request) => ({
    delayMs: 40,
    status: request.method === "POST" ? 201 : 200,
    body: { id: Number(request.id) },
  });

  for (const killAt of [60, 180]) {
    const { child, done } = start(ledger);
    await receivedAtLeast(killAt);
    child.kill("SIGKILL");
    const killed = await done;
    expect(killed.signal).toBe("SIGKILL");
  }
  const postsBeforeResume = server.received.filter((r) => r.method === "POST").length;
  expect(postsBeforeResume).toBeGreaterThan(0);

  const last = await start(ledger).done;
  expect(last.stderr).toBe("");
  expect(last.code).toBe(0);
  const report = JSON.parse(last.stdout) as BulkReport;

  for (let id = 1; id <= ITEMS; id += 2) expect(server.count("POST", id), `renewal ${id}`).toBeLessThanOrEqual(1);
  for (let id = 2; id <= ITEMS; id += 2) expect(server.count("PUT", id), `user ${id}`).toBeGreaterThanOrEqual(1);
  // The kills left renewals without a recorded end, and the resume did the rest.
  expect(report.inDoubt).toBeGreaterThan(0);
  expect(report.skipped).toBeGreaterThan(0);
  expect(report.done).toBeGreaterThan(0);
  // In doubt: renewals recorded as about to be sent whose end the ledger never recorded. The
  // server may or may not have received one (the kill may come between the record and the
  // send); either way it is not resent.
  expect(report.failed).toBe(0);
  for (const key of report.inDoubtKeys) {
    expect(Number(key) % 2).toBe(1);
    expect(server.count("POST", key)).toBeLessThanOrEqual(1);
  }
  // Every renewal is either received (once) or in doubt: none is lost.
  const renewals = Array.from({ length: ITEMS / 2 }, (_, i) => String(2 * i + 1));
  const lost = renewals.filter((key) => server.count("POST", key) === 0 && !report.inDoubtKeys.includes(key));
  expect(lost).toEqual([]);
  expect(readFileSync(ledger, "utf8")).not.toContain("sk_crash_secret_token");
});
