/**
 * The testing kit runs where the SDK runs: the same script (./kit-smoke.mjs: the contract's
 * example, pagination, a 422, an upload, a drifting handler refused) on this machine's
 * Node, on Node 24, Bun and Deno (Deno with no permission at all: the kit needs neither
 * network nor files), and in headless Chromium with every request off the page's own server
 * refused. The package is imported by name, so what runs is the built `dist/`.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { describeRun, ensureBuilt, ROOT, run } from "../package/tarball.js";
import { BIN_DIR, ensureRuntimes, INSTALL_TIMEOUT_MS, RUNTIME_VERSIONS, runtimeEnv } from "../runtimes/install.js";
import { startPageServer } from "../runtimes/page-server.js";

const SCRIPT = join(ROOT, "test", "testing", "kit-smoke.mjs");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const RUN_TIMEOUT_MS = 90_000;

const EXPECTED_LINES = [
  "example: astrid@example.org",
  "paginate: 1,2,3 in 2 requests",
  "422: body.first_name",
  "upload: true photo bytes",
  "drift: [GET /disputes/{id}/] the handler's 200 reply breaks the contract: body.id: must be integer.",
  "kit smoke ok",
];

beforeAll(async () => {
  await ensureBuilt();
  await ensureRuntimes();
}, INSTALL_TIMEOUT_MS);

async function expectSmokePasses(runtime: string, command: string, args: string[]): Promise<void> {
  const result = await run(command, args, { cwd: ROOT, env: runtimeEnv(), timeoutMs: RUN_TIMEOUT_MS });
  expect(result.code, describeRun(runtime, result)).toBe(0);
  expect(result.stdout.trim().split("\n"), describeRun(runtime, result)).toEqual([
    `runtime: ${runtime}`,
    ...EXPECTED_LINES,
  ]);
}

describe("the testing kit on each runtime", () => {
  it(
    `Node ${process.versions.node} (this machine's)`,
    async () => {
      await expectSmokePasses("node", process.execPath, [SCRIPT]);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    `Node ${RUNTIME_VERSIONS.node}`,
    async () => {
      await expectSmokePasses("node", join(BIN_DIR, "node"), [SCRIPT]);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    `Bun ${RUNTIME_VERSIONS.bun}`,
    async () => {
      await expectSmokePasses("bun", join(BIN_DIR, "bun"), [SCRIPT]);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    `Deno ${RUNTIME_VERSIONS.deno}, with no permission (no network, no files)`,
    async () => {
      await expectSmokePasses("deno", join(BIN_DIR, "deno"), ["run", "--no-lock", "--no-prompt", SCRIPT]);
    },
    RUN_TIMEOUT_MS,
  );
});

describe("the testing kit in a browser", () => {
  it(
    "passes in headless Chromium, with no request leaving the page's own server",
    async () => {
      if (!existsSync(CHROMIUM)) {
        throw new Error(
          `Chromium is not installed at ${CHROMIUM}: \`apt-get install -y chromium\` (or set CHROMIUM_PATH). This test is never skipped.`,
        );
      }
      const { url: pageUrl, server } = await startPageServer("store-admin-sdk/testing in a browser", SCRIPT);
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
        headless: true,
      });
      const log: string[] = [];
      const elsewhere: string[] = [];
      try {
        const context = await browser.newContext();
        await context.route(
          (url) => url.origin !== pageUrl,
          (route) => {
            elsewhere.push(route.request().url());
            return route.abort();
          },
        );
        const page = await context.newPage();
        page.on("console", (message) => log.push(`console.${message.type()}: ${message.text()}`));
        page.on("pageerror", (error) => log.push(`pageerror: ${error.message}`));
        await page.goto(pageUrl);
        await page
          .waitForFunction(() => (globalThis as { kitSmokeResult?: unknown }).kitSmokeResult !== undefined, undefined, {
            timeout: 60_000,
          })
          .catch((error: unknown) => {
            throw new Error(`The page never finished.\n${log.join("\n")}`, { cause: error });
          });
        const result = (await page.evaluate(() => (globalThis as { kitSmokeResult?: unknown }).kitSmokeResult)) as {
          ok: boolean;
          lines: string[];
          error?: string;
        };
        const details = `${result.error ?? ""}\n--- page log ---\n${log.join("\n")}`;
        expect(result.ok, details).toBe(true);
        expect(result.lines, details).toEqual(["runtime: browser", ...EXPECTED_LINES]);
        expect(elsewhere, "requests that left the page's server").toEqual([]);
      } finally {
        await browser.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
    RUN_TIMEOUT_MS,
  );
});
