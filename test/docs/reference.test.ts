/**
 * The rendered API reference (scripts/docs.ts → docs/reference/index.html):
 * static checks on the file, then a real Chromium that opens it with every
 * request to anything but the local test server blocked and recorded.
 *
 * Needs Debian's chromium (`apt-get install -y chromium`); it fails without it.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { buildDocs, DEFAULT_OUTPUT_PATH, DEFAULT_SPEC_PATH } from "../../scripts/docs.js";

const CHROMIUM_PATH = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const SCREENSHOT_PATH = fileURLToPath(new URL("../../test-results/reference.png", import.meta.url));
const DOCS_SCRIPT_PATH = fileURLToPath(new URL("../../scripts/docs.ts", import.meta.url));
/** The header every operation takes (`#/components/parameters/ApiVersion`). */
const VERSION_HEADER = "X-Store-API-Version";
/**
 * Before the fix, Redoc's telemetry (an OpenTelemetry batch exporter, 5 s delay)
 * posted its first trace about 5 s after the page opened: the page stays open
 * at least this long so that a regression shows up as a blocked request.
 */
const MIN_TIME_OPEN_MS = 8_000;
/** Redoc is a 2.5 MB script; on a loaded 2-core machine a step can take seconds. */
const STEP_TIMEOUT_MS = 20_000;
/**
 * Service hosts of Redocly found in the page built by @redocly/cli 2.77: cdn.redoc.ly
 * (badge logo), cdn.redocly.com (icons), otel.cloud.redocly.com (telemetry). Any
 * subdomain of theirs counts; plain links to redocly.com are fine.
 */
const REDOCLY_SERVICE_HOST = /\b[\w-]+\.(?:redoc\.ly|redocly\.com)\b/;

interface Operation {
  method: string;
  path: string;
  summary: string;
  operationId: string;
  tag: string;
  scopes: string[];
}

type SecurityRequirement = Record<string, string[]>;
type OperationObject = { summary?: string; operationId?: string; tags?: string[]; security?: SecurityRequirement[] };
type Spec = { security?: SecurityRequirement[]; paths?: Record<string, Record<string, unknown>> };

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Every operation of the spec, with what the page must show for it. */
function operationsOf(spec: Spec): Operation[] {
  return Object.entries(spec.paths ?? {}).flatMap(([path, item]) =>
    HTTP_METHODS.filter((method) => item[method] !== undefined).map((method) => {
      const op = item[method] as OperationObject;
      const security = op.security ?? spec.security ?? [];
      return {
        method,
        path,
        summary: op.summary ?? "",
        operationId: op.operationId ?? "",
        tag: op.tags?.[0] ?? "",
        scopes: [...new Set(security.flatMap((requirement) => Object.values(requirement).flat()))],
      };
    }),
  );
}

/** The OpenAPI file this run is about: the project's, or a draft given with PRISM_SPEC (see test/setup). */
const specPath = inject("prismSpecPath");
const operations = operationsOf(parse(await readFile(specPath, "utf8")) as Spec);
let htmlPath = DEFAULT_OUTPUT_PATH;
let scratch: string | undefined;

/** The page as scripts/docs.ts builds it, rebuilt if it is missing or older than its inputs. */
async function builtPage(): Promise<string> {
  if (specPath !== DEFAULT_SPEC_PATH) {
    // A draft gets its own page, so that docs/reference/ keeps describing the real spec.
    scratch ??= await mkdtemp(join(tmpdir(), "reference-test-"));
    htmlPath = await buildDocs({ specPath, outputPath: join(scratch, "index.html") });
  } else {
    const builtAt = await stat(htmlPath).then((s) => s.mtimeMs, () => 0);
    const inputsAt = Math.max((await stat(specPath)).mtimeMs, (await stat(DOCS_SCRIPT_PATH)).mtimeMs);
    if (builtAt < inputsAt) await buildDocs();
  }
  return readFile(htmlPath, "utf8");
}

/** Matches exactly this text (Playwright trims and collapses whitespace before matching). */
function exactly(text: string): RegExp {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
}

/** How a string appears inside the JSON that the page embeds (the CLI escapes `<` and U+2028/9). */
function asEmbedded(text: string): string {
  return JSON.stringify(text).slice(1, -1).replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

let html = "";
beforeAll(async () => {
  html = await builtPage();
}, 180_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("the built reference page", () => {
  it("is checked against the spec's 20 operations, each with a summary, an operationId and a tag", () => {
    expect(operations).toHaveLength(20);
    for (const op of operations) {
      expect(op.summary, `${op.method} ${op.path}`).not.toBe("");
      expect(op.operationId, `${op.method} ${op.path}`).not.toBe("");
      expect(op.tag, `${op.method} ${op.path}`).not.toBe("");
    }
  });

  it("names every operation of the spec", () => {
    const missing = operations.flatMap((op) => [op.summary, op.operationId])
      .filter((text) => !html.includes(asEmbedded(text)));
    expect(missing).toEqual([]);
  });

  it("loads no script or stylesheet by URL", () => {
    expect(html.match(/<script\b[^>]*\ssrc\s*=[^>]*>/gi) ?? []).toEqual([]);
    expect(html.match(/<link\b[^>]*\shref\s*=[^>]*>/gi) ?? []).toEqual([]);
  });

  it("refers to no Redocly CDN or telemetry endpoint", () => {
    const hosts = new Set(html.match(new RegExp(REDOCLY_SERVICE_HOST, "g")) ?? []);
    expect([...hosts]).toEqual([]);
  });
});

describe("the reference in Chromium, with all but the local server blocked", () => {
  let server: Server | undefined;
  let browser: Browser | undefined;
  let openedAt = 0;
  /** Requests the page tried to send anywhere but our server: must stay empty. */
  const blocked: string[] = [];
  const consoleErrors: string[] = [];
  /** The open page. Every test awaits it, so that a setup failure (no Chromium) fails each of them. */
  let opened: Promise<Page>;

  async function openReference(): Promise<Page> {
    if (!existsSync(CHROMIUM_PATH)) {
      throw new Error(`No Chromium at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` ` +
        "(Debian) to run the browser test of the API reference.");
    }
    // Served over HTTP from 127.0.0.1, as readers get it (its router uses the URL hash).
    const body = await readFile(htmlPath);
    const local = createServer((request, response) => {
      if (request.url === "/") response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
      else response.writeHead(404).end();
    });
    server = local;
    await new Promise<void>((listening) => local.listen(0, "127.0.0.1", listening));
    const origin = `http://127.0.0.1:${(local.address() as AddressInfo).port}`;

    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.route("**/*", (route) => {
      const request = route.request();
      if (new URL(request.url()).origin === origin) return route.continue();
      blocked.push(`${request.method()} ${request.url()}`);
      return route.abort("blockedbyclient");
    });
    const page = await context.newPage();
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    page.on("websocket", (socket) => blocked.push(`WebSocket ${socket.url()}`));
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    page.on("pageerror", (error) => consoleErrors.push(`uncaught ${error.name}: ${error.message}`));

    openedAt = Date.now();
    await page.goto(`${origin}/`);
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    return page;
  }

  beforeAll(async () => {
    opened = openReference();
    await opened.catch(() => {}); // reported by each test
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((closed) => (server ? server.close(() => closed()) : closed()));
  });

  /** Waits for the element to be visible; the error says which one was not. */
  async function expectVisible(locator: Locator, what: string): Promise<void> {
    try {
      await locator.scrollIntoViewIfNeeded();
      await locator.waitFor({ state: "visible" });
    } catch (error) {
      throw new Error(`Not visible in the rendered reference: ${what}\n${(error as Error).message}`);
    }
  }

  it("renders every operation by its summary, with its scopes and the version header", async () => {
    const page = await opened;
    const sidebar = page.locator(".menu-content");
    for (const op of operations) {
      const name = `${op.operationId} (${op.method.toUpperCase()} ${op.path})`;
      // Redoc renders a tag's operations only once the tag is opened, like a reader
      // would: open the tag in the sidebar unless it is open, then pick the operation.
      const link = sidebar.getByText(op.summary, { exact: true });
      if (!(await link.isVisible())) await sidebar.getByRole("link", { name: op.tag, exact: true }).click();
      await link.click();

      // By text, not accessible name: Redoc prefixes that with "link to" for the anchor icon.
      const heading = page.getByRole("heading", { level: 2 }).filter({ hasText: exactly(op.summary) });
      await expectVisible(heading, `the heading "${op.summary}" of ${name}`);
      // The innermost block holding both the heading and the header: this operation's section.
      const section = page.locator("div").filter({ has: heading }).filter({ hasText: VERSION_HEADER }).last();
      await expectVisible(section.getByText(VERSION_HEADER, { exact: true }).first(), `${VERSION_HEADER} of ${name}`);
      for (const scope of op.scopes) {
        await expectVisible(section.getByText(scope, { exact: true }).first(), `scope ${scope} of ${name}`);
      }
    }
  }, 240_000);

  it("saves a full-page screenshot", async () => {
    const page = await opened;
    await mkdir(dirname(SCREENSHOT_PATH), { recursive: true });
    // Redoc paints only what is near the viewport: make the viewport as tall as the page.
    await page.evaluate(() => window.scrollTo(0, 0));
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width: 1440, height: Math.min(height, 30_000) });
    await page.waitForTimeout(1_000);
    await page.screenshot({ path: SCREENSHOT_PATH, fullPage: true });
    expect((await stat(SCREENSHOT_PATH)).size).toBeGreaterThan(10_000);
  }, 60_000);

  it("contacts no third party and logs no error", async () => {
    const page = await opened;
    const stillToWait = openedAt + MIN_TIME_OPEN_MS - Date.now();
    if (stillToWait > 0) await page.waitForTimeout(stillToWait);
    expect(blocked).toEqual([]);
    expect(consoleErrors).toEqual([]);
  }, 60_000);
});
