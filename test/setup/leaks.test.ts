/**
 * The end-of-run check (test/setup/leaks.ts), on runs of vitest in a scratch folder with that
 * check as their global setup: a test file that stops a server through its launcher (the
 * server lives on, its parent gone) fails the run, which names the server; a test file that
 * stops what it starts passes, while a process of another run stays alive and untouched.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeRun, ROOT, run } from "../package/tarball.js";

const VITEST = join(ROOT, "node_modules", "vitest", "vitest.mjs");
const TAG = `planted-${randomUUID()}`;

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "store-admin-sdk-leaks-"));
  await cp(join(ROOT, "test", "setup", "fixtures"), dir, { recursive: true });
  const config = {
    test: {
      include: ["*.test.mjs"],
      globals: true,
      globalSetup: [join(ROOT, "test", "setup", "leaks.ts")],
      setupFiles: [join(ROOT, "test", "setup", "mark-children.ts")],
    },
  };
  await writeFile(join(dir, "vitest.config.mjs"), `export default ${JSON.stringify(config)};\n`);
});

afterAll(async () => {
  // The planted server, if a failing assertion left it: only the pid the launcher wrote, and
  // only while that pid is still the planted server.
  const pid = Number(await readFile(join(dir, "server.pid"), "utf8").catch(() => "0"));
  if (pid > 0 && (await commandOf(pid)).includes(TAG)) await stop(pid);
  await rm(dir, { recursive: true, force: true });
});

/** vitest run on one test file of the scratch folder. */
const vitest = (file: string) =>
  run(process.execPath, [VITEST, "run", "--root", dir, "--config", join(dir, "vitest.config.mjs"), file], {
    cwd: dir,
    env: { ...process.env, PLANTED_TAG: TAG, NO_COLOR: "1", FORCE_COLOR: "0" },
    timeoutMs: 90_000,
  });

/** The command line of a live process, "" once it is gone (or a zombie, whose command line is empty). */
const commandOf = (pid: number) =>
  readFile(`/proc/${pid}/cmdline`, "utf8").then(
    (text) => text.split("\0").join(" "),
    () => "",
  );

/** SIGKILL to a process that is not our child (an orphan), then a bounded wait until it is gone. */
async function stop(pid: number): Promise<void> {
  process.kill(pid, "SIGKILL");
  for (let i = 0; i < 200 && (await commandOf(pid)) !== ""; i++)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

describe("the end-of-run check for processes a run leaves", () => {
  it("fails a run whose test stops a server's launcher and not the server, naming the server", async () => {
    const result = await vitest("leaks-a-server.test.mjs");
    const pid = Number(await readFile(join(dir, "server.pid"), "utf8"));
    // The test itself passed: only the check fails the run.
    expect(result.stdout, describeRun("vitest", result)).toMatch(/Tests\s+1 passed/);
    expect(result.code, describeRun("vitest", result)).toBe(1);
    expect(result.stderr).toContain("The test run left 1 process(es) it started running:");
    expect(result.stderr).toMatch(
      new RegExp(
        `pid ${pid} \\(parent \\d+, in [^)]+\\): \\S+ -e setInterval\\(\\(\\) => \\{\\}, 1 << 30\\) planted-server ${TAG}\\n`,
      ),
    );
    expect(result.stderr).toContain(`To stop these: kill ${pid}`);
    // Named, not stopped: the check only reads.
    expect(await commandOf(pid)).toContain(TAG);
    await stop(pid);
    expect(await commandOf(pid)).toBe("");
  }, 120_000);

  it("sees a process started with an environment of its own (`env: { PATH }`, detached), and names it", async () => {
    const result = await vitest("leaks-with-own-env.test.mjs");
    const pid = Number(await readFile(join(dir, "server.pid"), "utf8"));
    expect(result.stdout, describeRun("vitest", result)).toMatch(/Tests\s+1 passed/);
    expect(result.code, describeRun("vitest", result)).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `pid ${pid} \\(parent \\d+, in [^)]+\\): \\S+ -e setInterval\\(\\(\\) => \\{\\}, 1 << 30\\) planted-server ${TAG}\\n`,
      ),
    );
    await stop(pid);
  }, 120_000);

  it("passes a run whose test stops what it starts, and leaves a process of another run alone", async () => {
    // Started by this (outer) run: it carries this run's mark, not the scratch run's.
    const other: ChildProcess = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)", "other-run", TAG], {
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => other.once("exit", resolve));
    try {
      const result = await vitest("stops-its-server.test.mjs");
      expect(result.code, describeRun("vitest", result)).toBe(0);
      expect(result.stderr).not.toContain("The test run left");
      expect(other.exitCode).toBeNull();
      expect(await commandOf(other.pid!)).toContain(`other-run ${TAG}`);
    } finally {
      other.kill("SIGTERM");
      await exited;
    }
  }, 120_000);
});
