/**
 * "Runs where fetch runs" (DESIGN.md), checked: the same smoke script
 * (test/runtimes/smoke-script.mjs: real calls, an upload and pagination against the Prism
 * mock) passes on this machine's Node, on Node 24, Bun and Deno, and in headless Chromium.
 *
 * Node 24, Bun and Deno come from the npm registry as packages (`node`, `bun`, `deno`, each
 * with a real binary under `node_modules/.bin`), installed once into the git-ignored
 * `.runtimes/` directory at the project root and reused while their versions match
 * {@link RUNTIME_VERSIONS}. The script imports the package by its name: Node, Bun and Deno
 * resolve it through package.json `exports` (a package may import itself by name), so what
 * runs is the built `dist/`. The browser gets `dist/` and openapi-fetch's ESM from a local
 * server, with an import map for the two bare specifiers.
 *
 * Chromium is Debian's (`apt-get install chromium`), driven by playwright-core: a missing
 * browser fails this test, it is never skipped.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { describeRun, ensureBuilt, ROOT, run } from "../package/tarball.js";
import { BIN_DIR, ensureRuntimes, INSTALL_TIMEOUT_MS, RUNTIME_VERSIONS, runtimeEnv } from "./install.js";
import { startPageServer } from "./page-server.js";

const SMOKE_SCRIPT = join(ROOT, "test", "runtimes", "smoke-script.mjs");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** One smoke run takes about a second; start-up on a loaded 2-core machine takes longer. */
const RUN_TIMEOUT_MS = 90_000;

/** What the smoke script prints after its `runtime:` line, whatever the runtime. */
const EXPECTED_LINES = [
  "GET /users/42/: astrid@example.org",
  "PATCH /gift-cards/88/: balance 35.00 EUR",
  "POST /tickets/attachments/: ticket 2201",
  "paginate /users/: 1 customer(s): astrid@example.org",
  "paginate.pages /gift-cards/: 1 page(s), 1 card(s)",
  "404: NotFoundError (status 404)",
  "422: UnprocessableEntityError on body.first_name",
  "token function called 7 times",
  "smoke ok",
];

let sdkVersion: string;

beforeAll(async () => {
  await ensureBuilt();
  await ensureRuntimes();
  sdkVersion = (JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
}, INSTALL_TIMEOUT_MS);

async function expectSmokePasses(label: string, command: string, args: string[], runtimeLine: string): Promise<void> {
  const result = await run(command, args, { cwd: ROOT, env: runtimeEnv(), timeoutMs: RUN_TIMEOUT_MS });
  expect(result.code, describeRun(label, result)).toBe(0);
  expect(result.stdout.trim().split("\n"), describeRun(label, result)).toEqual([
    `runtime: ${runtimeLine}, store-admin-sdk ${sdkVersion}`,
    ...EXPECTED_LINES,
  ]);
}

describe("the smoke script on each runtime", () => {
  it(
    `Node ${process.versions.node} (this machine's)`,
    async () => {
      await expectSmokePasses(
        "node",
        process.execPath,
        [SMOKE_SCRIPT, inject("prismUrl")],
        `node ${process.versions.node}`,
      );
    },
    RUN_TIMEOUT_MS,
  );

  it(
    `Node ${RUNTIME_VERSIONS.node} (npm package node@${RUNTIME_VERSIONS.node})`,
    async () => {
      await expectSmokePasses(
        "node 24",
        join(BIN_DIR, "node"),
        [SMOKE_SCRIPT, inject("prismUrl")],
        `node ${RUNTIME_VERSIONS.node}`,
      );
    },
    RUN_TIMEOUT_MS,
  );

  it(
    `Bun ${RUNTIME_VERSIONS.bun} (npm package bun@${RUNTIME_VERSIONS.bun})`,
    async () => {
      await expectSmokePasses(
        "bun",
        join(BIN_DIR, "bun"),
        [SMOKE_SCRIPT, inject("prismUrl")],
        `bun ${RUNTIME_VERSIONS.bun}`,
      );
    },
    RUN_TIMEOUT_MS,
  );

  it(
    `Deno ${RUNTIME_VERSIONS.deno} (npm package deno@${RUNTIME_VERSIONS.deno}), network limited to 127.0.0.1`,
    async () => {
      // No lock file written into the project, no prompt, and only loopback network access:
      // the SDK needs nothing else (no file, environment or other host permission).
      const args = ["run", "--no-lock", "--no-prompt", "--allow-net=127.0.0.1", SMOKE_SCRIPT, inject("prismUrl")];
      await expectSmokePasses("deno", join(BIN_DIR, "deno"), args, `deno ${RUNTIME_VERSIONS.deno}`);
    },
    RUN_TIMEOUT_MS,
  );
});

// ─── Browser ────────────────────────────────────────────────────────────────────────

describe("the smoke script in a browser", () => {
  it(
    "passes in headless Chromium, served from 127.0.0.1 and calling the mock across origins (CORS)",
    async () => {
      if (!existsSync(CHROMIUM)) {
        throw new Error(
          `Chromium is not installed at ${CHROMIUM}. Install Debian's package: ` +
            "`apt-get update && apt-get install -y chromium` (or set CHROMIUM_PATH). This test is never skipped.",
        );
      }
      const prismUrl = inject("prismUrl");
      const { url: pageUrl, server } = await startPageServer("store-admin-sdk browser smoke test", SMOKE_SCRIPT);
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
      const log: string[] = [];
      const offLoopback: string[] = [];
      try {
        const context = await browser.newContext();
        // Only the page server and the mock may be contacted; anything else is recorded and refused.
        await context.route(
          (url) => url.hostname !== "127.0.0.1",
          (route) => {
            offLoopback.push(route.request().url());
            return route.abort();
          },
        );
        const page = await context.newPage();
        page.on("console", (message) => log.push(`console.${message.type()}: ${message.text()}`));
        page.on("pageerror", (error) => log.push(`pageerror: ${error.message}`));
        page.on("requestfailed", (request) =>
          log.push(`requestfailed: ${request.url()} ${request.failure()?.errorText}`),
        );

        await page.goto(`${pageUrl}/?prism=${encodeURIComponent(prismUrl)}`);
        await page
          .waitForFunction(() => (globalThis as { smokeResult?: unknown }).smokeResult !== undefined, undefined, {
            timeout: 60_000,
          })
          .catch((error: unknown) => {
            throw new Error(`The page never finished the smoke test.\n${log.join("\n")}`, { cause: error });
          });
        const result = (await page.evaluate(() => (globalThis as { smokeResult?: unknown }).smokeResult)) as {
          ok: boolean;
          lines: string[];
          error?: string;
        };
        const details = `${result.error ?? ""}\n--- page log ---\n${log.join("\n")}`;
        expect(result.ok, details).toBe(true);
        expect(result.lines[0], details).toMatch(
          new RegExp(`^runtime: browser chrome \\d+[\\d.]*, store-admin-sdk ${sdkVersion.replace(/\./g, "\\.")}$`),
        );
        expect(result.lines.slice(1), details).toEqual(EXPECTED_LINES);
        expect(offLoopback, "requests to hosts other than 127.0.0.1").toEqual([]);
      } finally {
        await browser.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
    RUN_TIMEOUT_MS,
  );
});
