/**
 * The debug switch: `STORE_ADMIN_LOG=debug|info|warn` makes an application that has no logging
 * code print one line per attempt (at `debug`) to stderr, in `formatLogEvent`'s format, never
 * the token. Run in a child process with the packed package installed; the calls go to a real
 * server on 127.0.0.1. Where the environment cannot be read without asking (Deno without
 * `--allow-env`) the switch is off and nothing asks.
 */
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createConsumerProject, describeRun, ROOT, run, type ConsumerProject } from "../package/tarball.js";
import { closedPortUrl, startFaultServer, type Fault, type FaultServer } from "../helpers/fault-server.js";
import { envLogger } from "../../src/client/env-logger.js";
import { BIN_DIR, ensureRuntimes, INSTALL_TIMEOUT_MS, runtimeEnv } from "../runtimes/install.js";

const TOKEN = "sk_live_debugswitch_secret";
let project: ConsumerProject | undefined;
let server: FaultServer;

beforeAll(async () => {
  server = await startFaultServer((request): Fault => {
    if (request.path === "/users/7/")
      return { status: 404, body: { detail: `Not found for ${TOKEN}` }, headers: { "x-request-id": "r-404" } };
    if (request.method === "PATCH") return { status: 503, body: { detail: "Maintenance window" } };
    return { body: { id: 1 }, headers: { "request-id": "r-ok" } };
  });
  project = await createConsumerProject();
  await cp(join(ROOT, "test", "production", "fixtures", "debug-calls.mjs"), join(project.dir, "debug-calls.mjs"));
  await cp(join(ROOT, "test", "production", "fixtures", "debug-deno.mjs"), join(project.dir, "debug-deno.mjs"));
  await cp(join(ROOT, "test", "production", "fixtures", "debug-failures.mjs"), join(project.dir, "debug-failures.mjs"));
}, 300_000);

afterAll(async () => {
  await server?.close();
  await project?.remove();
});

/** Runs the fixture with `STORE_ADMIN_LOG` set to `level` (unset when undefined); the second call's first attempt gets a 503. */
async function runCalls(level: string | undefined, extra: Record<string, string> = {}) {
  server.enqueue({ body: { id: 42 } }, { status: 503, body: { detail: "busy" }, headers: { "retry-after": "0" } });
  const env: NodeJS.ProcessEnv = { ...process.env, SERVER_URL: server.url, ...extra };
  delete env["STORE_ADMIN_LOG"];
  if (level !== undefined) env["STORE_ADMIN_LOG"] = level;
  const result = await run(process.execPath, ["debug-calls.mjs"], { cwd: project!.dir, env, timeoutMs: 60_000 });
  expect(result.code, describeRun("debug-calls.mjs", result)).toBe(0);
  expect(result.stderr + result.stdout).not.toContain("debugswitch_secret");
  return result.stderr.split("\n").filter(Boolean);
}

const LINE = /^store-admin-sdk: GET \/users\/\{id\}\/ (200|404|503) attempt [12] \d+ ms/;

describe("STORE_ADMIN_LOG", () => {
  it("debug: one line per attempt, in formatLogEvent's format, redacted", async () => {
    const lines = await runCalls("debug");
    expect(lines, lines.join("\n")).toHaveLength(5);
    for (const line of lines) expect(line).toMatch(LINE);
    expect(lines[0]).toMatch(/^store-admin-sdk: GET \/users\/\{id\}\/ 200 attempt 1 \d+ ms$/);
    expect(lines[1]).toMatch(
      /^store-admin-sdk: GET \/users\/\{id\}\/ 503 attempt 1 \d+ ms InternalServerError: busy retrying in 0 ms$/,
    );
    expect(lines[2]).toMatch(/^store-admin-sdk: GET \/users\/\{id\}\/ 200 attempt 2 \d+ ms request-id r-ok$/);
    // The error's class and the store's detail, scrubbed of the token.
    expect(lines[3]).toMatch(
      /^store-admin-sdk: GET \/users\/\{id\}\/ 404 attempt 1 \d+ ms request-id r-404 NotFoundError: Not found for \[REDACTED\]$/,
    );
  }, 60_000);

  it("info: the retried attempts and the failures; warn: the failures", async () => {
    const info = await runCalls("info");
    expect(info.map((line) => line.split(" ")[3])).toEqual(["503", "404"]);
    const warn = await runCalls("WARN");
    expect(warn.map((line) => line.split(" ")[3])).toEqual(["404"]);
  }, 60_000);

  it("unset: nothing; an unknown value: one warning line, once", async () => {
    expect(await runCalls(undefined)).toEqual([]);
    const lines = await runCalls("verbose");
    expect(lines).toEqual([
      'store-admin-sdk: STORE_ADMIN_LOG="verbose" is not one of warn, info, debug; nothing is logged.',
    ]);
  }, 60_000);

  it("a call not retried says why, and the last attempt's line is on stderr before the caller's catch runs", async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SERVER_URL: server.url,
      CLOSED_URL: await closedPortUrl(),
      STORE_ADMIN_LOG: "warn",
    };
    const result = await run(process.execPath, ["debug-failures.mjs"], { cwd: project!.dir, env, timeoutMs: 60_000 });
    expect(result.code, describeRun("debug-failures.mjs", result)).toBe(0);
    const lines = result.stderr.split("\n").filter(Boolean);
    expect(lines, lines.join("\n")).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^store-admin-sdk: PATCH \/users\/\{id\}\/ 503 attempt 1 \d+ ms InternalServerError: Maintenance window not retried: PATCH is not idempotent$/,
    );
    expect(lines[1]).toMatch(
      /^store-admin-sdk: GET \/users\/\{id\}\/ attempt 1 \d+ ms ConnectionError: .* not retried: attempts used up$/,
    );
    expect(lines[2]).toBe("caught ConnectionError");
  }, 60_000);

  it("a logger given in code wins", async () => {
    expect(await runCalls("debug", { WITH_LOGGER: "1" })).toEqual([]);
  }, 60_000);
});

describe("where the environment cannot be read without asking", () => {
  it(
    "real Deno: without --allow-env (and --no-prompt) the switch is off and nothing fails; with it, the lines are printed",
    async () => {
      await ensureRuntimes();
      const deno = (allowEnv: boolean) =>
        run(
          join(BIN_DIR, "deno"),
          [
            "run",
            "--no-lock",
            "--no-prompt",
            "--allow-net=127.0.0.1",
            ...(allowEnv ? ["--allow-env"] : []),
            "debug-deno.mjs",
            server.url,
          ],
          {
            cwd: project!.dir,
            env: { ...runtimeEnv(), STORE_ADMIN_LOG: "debug" },
            timeoutMs: 120_000,
          },
        );
      const without = await deno(false);
      expect(without.code, describeRun("deno without --allow-env", without)).toBe(0);
      expect(without.stdout.trim()).toBe("deno ok");
      expect(without.stderr).not.toMatch(/attempt 1|NotCapable|PermissionDenied|STORE_ADMIN_LOG/);
      const granted = await deno(true);
      expect(granted.code, describeRun("deno --allow-env", granted)).toBe(0);
      expect(granted.stderr).toMatch(/^store-admin-sdk: GET \/users\/\{id\}\/ 200 attempt 1 \d+ ms/m);
    },
    INSTALL_TIMEOUT_MS,
  );

  it("Deno without the env permission: off, and the permission is only queried (never requested)", () => {
    vi.stubEnv("STORE_ADMIN_LOG", "debug");
    const querySync = vi.fn(() => ({ state: "prompt" }));
    vi.stubGlobal("Deno", {
      permissions: { querySync, request: () => expect.unreachable("a permission request prompts") },
    });
    try {
      expect(envLogger()).toBeUndefined();
      expect(querySync).toHaveBeenCalledWith({ name: "env", variable: "STORE_ADMIN_LOG" });
      querySync.mockReturnValue({ state: "granted" });
      expect(envLogger()).toBeTypeOf("function");
    } finally {
      vi.unstubAllGlobals();
      vi.unstubAllEnvs();
    }
  });

  it("no process at all (a browser, a Worker): off", () => {
    vi.stubGlobal("process", undefined);
    let logger: unknown;
    try {
      logger = envLogger();
    } finally {
      vi.unstubAllGlobals();
    }
    expect(logger).toBeUndefined();
  });
});
