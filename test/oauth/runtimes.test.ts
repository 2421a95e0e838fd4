/**
 * store-admin-sdk/oauth where the SDK runs: the partner app's flow (fixtures/oauth-flow.mjs:
 * install, a call, one refresh for five calls due, one for five meeting a 401, a forged callback refused) against the test
 * store on 127.0.0.1, on this machine's Node, Node 24, Bun and Deno (network limited to
 * 127.0.0.1), importing the built package by its name.
 */
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { describeRun, ensureBuilt, ROOT, run } from "../package/tarball.js";
import { BIN_DIR, ensureRuntimes, INSTALL_TIMEOUT_MS, RUNTIME_VERSIONS, runtimeEnv } from "../runtimes/install.js";
import { startTestStore, type TestStore } from "./authorization-server.js";
// @ts-expect-error: a plain ESM fixture without declarations
import { EXPECTED_LINES } from "./fixtures/oauth-flow.mjs";

const SCRIPT = join(ROOT, "test", "oauth", "fixtures", "oauth-runtime.mjs");
const RUN_TIMEOUT_MS = 90_000;

let server: TestStore;
beforeAll(async () => {
  await ensureBuilt();
  await ensureRuntimes();
  server = await startTestStore();
}, INSTALL_TIMEOUT_MS);
afterAll(() => server?.close());
beforeEach(() => {
  server.tokenRequests.length = 0;
});

async function expectFlow(label: string, command: string, args: string[]): Promise<void> {
  const result = await run(command, args, { cwd: ROOT, env: runtimeEnv(), timeoutMs: RUN_TIMEOUT_MS });
  expect(result.code, describeRun(label, result)).toBe(0);
  expect(result.stdout.trim().split("\n"), describeRun(label, result)).toEqual(EXPECTED_LINES);
  expect(server.tokenRequests.map((seen) => seen.body.grant_type)).toEqual([
    "authorization_code",
    "refresh_token",
    "refresh_token",
  ]);
}

describe("the partner app's flow on each runtime", () => {
  it(
    `Node ${process.versions.node} (this machine's)`,
    () => expectFlow("node", process.execPath, [SCRIPT, server.origin]),
    RUN_TIMEOUT_MS,
  );
  it(
    `Node ${RUNTIME_VERSIONS.node}`,
    () => expectFlow("node 24", join(BIN_DIR, "node"), [SCRIPT, server.origin]),
    RUN_TIMEOUT_MS,
  );
  it(
    `Bun ${RUNTIME_VERSIONS.bun}`,
    () => expectFlow("bun", join(BIN_DIR, "bun"), [SCRIPT, server.origin]),
    RUN_TIMEOUT_MS,
  );
  it(
    `Deno ${RUNTIME_VERSIONS.deno}, network limited to 127.0.0.1`,
    () =>
      expectFlow("deno", join(BIN_DIR, "deno"), [
        "run",
        "--no-lock",
        "--no-prompt",
        "--allow-net=127.0.0.1",
        SCRIPT,
        server.origin,
      ]),
    RUN_TIMEOUT_MS,
  );
});
