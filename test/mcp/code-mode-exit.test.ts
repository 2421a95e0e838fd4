/**
 * Code mode's workers keep their process alive only while in use: once its server is closed, a
 * process that served code mode exits by itself (the command exits when its client closes
 * stdin or sends SIGTERM).
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { describeRun, run } from "../package/tarball.js";

const SCRIPT = fileURLToPath(new URL("./fixtures/code-mode-exit.ts", import.meta.url));

describe("a process that served code mode", () => {
  it("exits by itself once its server is closed, its execute answered", async () => {
    // Killed (and failed) if still alive after two minutes: its idle workers would be keeping it.
    const exited = await run(process.execPath, ["--import", "tsx", SCRIPT], { timeoutMs: 120_000 });
    expect(exited.signal, describeRun("code-mode-exit.ts", exited)).toBeNull();
    expect(exited.code, describeRun("code-mode-exit.ts", exited)).toBe(0);
    expect(JSON.parse(exited.stdout.trim().split("\n").at(-1)!)).toEqual({ result: 42, logs: [], calls: [] });
  }, 150_000);
});
