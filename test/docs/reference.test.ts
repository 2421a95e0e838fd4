/**
 * The rendered API reference (scripts/docs.ts → docs/reference/index.html):
 * static checks on the file, then a real Chromium that opens it with every
 * request to anything but the local test server blocked and recorded, and looks
 * at it as a reader does: the first screen is the SDK's quick start, and every
 * operation shows its TypeScript sample (docs/samples/<operationId>.ts) on screen.
 * A screenshot of the first screen and of each tag's first operation is kept
 * under test-results/.
 *
 * Needs Debian's chromium (`apt-get install -y chromium`); it fails without it.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { buildDocs } from "../../scripts/docs.js";
import {
  CONTRACT_NOTES_HEADING,
  CONTRACT_PATH,
  INTRO_PATH,
  REFERENCE_PATH,
  SAMPLE_LANGUAGE,
  SAMPLES_DIR,
} from "../../scripts/facts.js";
import { contractModel } from "../../scripts/contract-model.js";
import { loadContractFile } from "../../scripts/load-contract.js";
import { sampleSource, writtenSamples } from "../../scripts/samples.js";
import { HTTP_METHODS } from "../../src/core/http-methods.js";

const CHROMIUM_PATH = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SCREENSHOT_DIR = join(ROOT, "test-results");
const DOCS_SCRIPT_PATH = join(ROOT, "scripts", "docs.ts");
const VIEWPORT = { width: 1440, height: 900 };
/** What the SDK sets, as the page must say it for the version header and the bearer token. */
const SET_BY_SDK = "Set by the SDK:";
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
  /** The operation method the sample calls (`users.retrieve`). */
  sdkMethod: string;
  tag: string;
  scopes: string[];
}

type SecurityRequirement = Record<string, string[]>;
type OperationObject = {
  summary?: string;
  operationId?: string;
  tags?: string[];
  security?: SecurityRequirement[];
  "x-sdk-method"?: string;
};
type Spec = {
  info?: { description?: string };
  security?: SecurityRequirement[];
  paths?: Record<string, Record<string, unknown>>;
  components?: { parameters?: Record<string, { name?: string; in?: string; required?: boolean }> };
};

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
        sdkMethod: op["x-sdk-method"] ?? "",
        tag: op.tags?.[0] ?? "",
        scopes: [...new Set(security.flatMap((requirement) => Object.values(requirement).flat()))],
      };
    }),
  );
}

/** The OpenAPI file this run is about: the project's, or a draft given with PRISM_SPEC (see test/setup). */
const specPath = inject("prismSpecPath");
const spec = parse(await readFile(specPath, "utf8")) as Spec;
const operations = operationsOf(spec);
/** The same contract as the generators read it, and the samples written for it. */
const model = contractModel(loadContractFile(specPath));
const written = await writtenSamples(pathToFileURL(SAMPLES_DIR + "/"));
let htmlPath = REFERENCE_PATH;
let scratch: string | undefined;

/** The page as scripts/docs.ts builds it, rebuilt if it is missing or older than its inputs. */
async function builtPage(): Promise<string> {
  if (specPath !== CONTRACT_PATH) {
    // A draft gets its own page, so that docs/reference/ keeps describing the real spec.
    scratch ??= await mkdtemp(join(tmpdir(), "reference-test-"));
    htmlPath = await buildDocs({ specPath, outputPath: join(scratch, "index.html") });
  } else {
    const builtAt = await stat(htmlPath).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    const inputs = [
      specPath,
      DOCS_SCRIPT_PATH,
      INTRO_PATH,
      ...operations.map((op) => join(SAMPLES_DIR, `${op.operationId}.ts`)),
    ];
    const inputsAt = Math.max(
      ...(await Promise.all(
        inputs.map((file) =>
          stat(file).then(
            (s) => s.mtimeMs,
            () => Infinity,
          ),
        ),
      )),
    );
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
  return JSON.stringify(text)
    .slice(1, -1)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** Serves the built page over HTTP from 127.0.0.1, as readers get it (its router uses the URL hash). */
async function servePage(): Promise<{ server: Server; origin: string }> {
  const body = await readFile(htmlPath);
  const server = createServer((request, response) => {
    if (request.url === "/") response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
    else response.writeHead(404).end();
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * Opens an operation as a reader does (its tag in the sidebar unless open, then its link)
 * and returns its heading and its TypeScript sample. Redoc renders a tag's operations only
 * once the tag is opened.
 */
async function showOperation(page: Page, op: Operation): Promise<{ heading: Locator; sample: Locator }> {
  const sidebar = page.locator(".menu-content");
  const link = sidebar.getByText(op.summary, { exact: true });
  if (!(await link.isVisible())) await sidebar.getByRole("link", { name: op.tag, exact: true }).click();
  await link.click();
  // By text, not accessible name: Redoc prefixes that with "link to" for the anchor icon.
  const heading = page.getByRole("heading", { level: 2 }).filter({ hasText: exactly(op.summary) });
  const panel = page
    .locator("div")
    .filter({ has: heading })
    .filter({ has: page.locator('pre[data-testid="source-code"]') })
    .last();
  return {
    heading,
    sample: panel.locator('pre[data-testid="source-code"]').filter({ hasText: "createStoreAdminClient" }),
  };
}

let html = "";
beforeAll(async () => {
  html = await builtPage();
}, 180_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("the built reference page", () => {
  it("is checked against every operation of the contract, each with a summary, an operationId and a tag", () => {
    expect(
      operations.map((op) => `${op.method.toUpperCase()} ${op.path}`),
      "the operations this test reads",
    ).toEqual(model.operations.map((op) => op.key));
    for (const op of operations) {
      expect(op.summary, `${op.method} ${op.path}`).not.toBe("");
      expect(op.operationId, `${op.method} ${op.path}`).not.toBe("");
      expect(op.tag, `${op.method} ${op.path}`).not.toBe("");
    }
  });

  it("names every operation of the spec", () => {
    const missing = operations
      .flatMap((op) => [op.summary, op.operationId])
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

describe("what the page says", () => {
  it("opens on the SDK's quick start, and keeps the contract's own description complete under a heading of its own", async () => {
    const intro = (await readFile(INTRO_PATH, "utf8")).trimEnd();
    const notes = (spec.info?.description ?? "").trim();
    expect(notes.length).toBeGreaterThan(100);
    expect(html).toContain(asEmbedded(`${intro}\n\n# ${CONTRACT_NOTES_HEADING}\n\n${notes}\n`));
    expect(intro).toMatch(/^# Quick start/);
  });

  it("says the SDK sets the version header and the token, while the contract keeps the header required", () => {
    const header = Object.values(spec.components?.parameters ?? {}).find((p) => p.name === VERSION_HEADER);
    expect(header, `${VERSION_HEADER} in components.parameters`).toMatchObject({ in: "header", required: true });
    expect(JSON.stringify(spec)).not.toContain(SET_BY_SDK); // only the page says it
    expect(html).toContain(asEmbedded(`**${SET_BY_SDK}** the client sends this header on every request`));
    expect(html).toContain(asEmbedded(`**${SET_BY_SDK}** the client sends \`Authorization: Bearer <token>\``));
  });

  it("links from its opening only to files and headings that exist in the repository", async () => {
    // The page is docs/reference/index.html: its links are relative to docs/reference/.
    const intro = await readFile(INTRO_PATH, "utf8");
    const links = [...intro.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => match[1]!)
      .filter((target) => !target.startsWith("#"));
    expect(links.length).toBeGreaterThanOrEqual(3);
    const broken: string[] = [];
    for (const target of links) {
      if (/^[a-z]+:/i.test(target)) {
        broken.push(`${target}: the page is read offline, link to files of the repository`);
        continue;
      }
      const [path, anchor] = target.split("#") as [string, string | undefined];
      const file = join(ROOT, "docs", "reference", path);
      const key = relative(ROOT, file).split(sep).join("/") + (anchor ? `#${anchor}` : "");
      if (!existsSync(file)) {
        broken.push(`${target} (${key} does not exist)`);
        continue;
      }
      if (anchor) {
        const headings = [...(await readFile(file, "utf8")).matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
          m[1]!
            .trim()
            .toLowerCase()
            .replace(/[^\p{L}\p{N}\s-]/gu, "")
            .replace(/\s/g, "-"),
        );
        if (!headings.includes(anchor)) broken.push(`${target} (no heading #${anchor} in ${key})`);
      }
    }
    expect(broken).toEqual([]);
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
      throw new Error(
        `No Chromium at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` ` +
          "(Debian) to run the browser test of the API reference.",
      );
    }
    const served = await servePage();
    server = served.server;
    const origin = served.origin;

    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });
    const context = await browser.newContext({ viewport: VIEWPORT });
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
  async function expectVisible(locator: Locator, what: string, { scroll = true } = {}): Promise<void> {
    try {
      if (scroll) await locator.scrollIntoViewIfNeeded();
      await locator.waitFor({ state: "visible" });
    } catch (error) {
      throw new Error(`Not visible in the rendered reference: ${what}\n${(error as Error).message}`);
    }
  }

  /**
   * Fails unless `text` is on the screen as it is now, without scrolling: inside the viewport
   * and not covered by anything else (the element at its position is the one holding it).
   */
  async function expectOnScreen(within: Locator, text: string, what: string): Promise<void> {
    await expectVisible(within, what, { scroll: false });
    // Asked again for up to 3 s: on a loaded machine the page may still be laying out what is above.
    let problem: string | undefined;
    for (const deadline = Date.now() + 3_000; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
      problem = await onScreenProblem(within, text);
      if (problem === undefined || Date.now() > deadline) break;
    }
    if (problem !== undefined) throw new Error(`Not on screen in the rendered reference: ${what}: ${problem}`);
  }

  /** Why `text` is not on the screen as it is now, or `undefined` when it is. */
  function onScreenProblem(within: Locator, text: string): Promise<string | undefined> {
    return within.evaluate((element, needle) => {
      // The text may be split over several nodes (syntax highlighting): map it back to them.
      const nodes: { node: Text; start: number }[] = [];
      let all = "";
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        nodes.push({ node, start: all.length });
        all += node.data;
      }
      const at = all.indexOf(needle);
      if (at < 0) return `the text is not in the element (its text starts: ${JSON.stringify(all.slice(0, 120))})`;
      const locate = (offset: number) => {
        let hit = nodes[0]!;
        for (const entry of nodes) if (entry.start <= offset) hit = entry;
        return [hit.node, offset - hit.start] as const;
      };
      const range = document.createRange();
      range.setStart(...locate(at));
      range.setEnd(...locate(at + needle.length - 1));
      const rect = range.getClientRects()[0];
      if (!rect || rect.width === 0) return "the text has no box";
      if (rect.top < 0 || rect.bottom > window.innerHeight || rect.left < 0 || rect.left + 4 > window.innerWidth) {
        return `the text is off screen, at x=${Math.round(rect.left)}, y=${Math.round(rect.top)} (viewport ${window.innerWidth}×${window.innerHeight})`;
      }
      const top = document.elementFromPoint(rect.left + Math.min(4, rect.width / 2), rect.top + rect.height / 2);
      if (!top || !(element === top || element.contains(top)))
        return `the text is covered by ${top?.outerHTML.slice(0, 120)}`;
      return undefined;
    }, text);
  }

  async function screenshot(name: string): Promise<void> {
    const path = join(SCREENSHOT_DIR, `reference-${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}.png`);
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    await (await opened).screenshot({ path });
    expect((await stat(path)).size, path).toBeGreaterThan(10_000);
  }

  it("opens on the SDK's quick start: install, a client, the first call, an error handled, a paginated loop, the guide", async () => {
    // Runs first, on the page as it opened: nothing has been scrolled or clicked yet.
    const page = await opened;
    await screenshot("first-screen");
    const main = page.locator("main, body").last();
    await expectOnScreen(
      page.getByRole("heading", { name: "Quick start with the TypeScript SDK" }),
      "Quick start",
      "the quick start's heading",
    );
    for (const [text, what] of [
      ["const store = createStoreAdminClient(", "creating a client"],
      ["store.users.retrieve(42)", "the first call, through its method"],
      ["error instanceof NotFoundError", "an error handled"],
      ["for await (const user of store.users.list()", "the paginated loop"],
    ]) {
      await expectOnScreen(main.locator("pre").filter({ hasText: text! }).first(), text!, what!);
    }
    await expectOnScreen(
      main.getByText("npm install store-admin-sdk", { exact: true }),
      "npm install store-admin-sdk",
      "the install command",
    );
    await expectOnScreen(page.getByRole("link", { name: "usage guide" }), "usage guide", "the link to the guide");
    await expectOnScreen(page.getByRole("link", { name: "changelog" }), "changelog", "the link to the changelog");
    // The notes about the transcription come later, in their own section.
    const notes = page.getByText("This document is a transcription", { exact: false });
    const box = await notes.boundingBox();
    expect(box === null || box.y > VIEWPORT.height, "the contract's notes are not on the first screen").toBe(true);
    await expectVisible(
      page.locator(".menu-content").getByText(CONTRACT_NOTES_HEADING, { exact: true }),
      "the contract notes' section in the sidebar",
    );
  }, 60_000);

  it("renders every operation with its scopes, the version header said to be set by the SDK, and its sample on screen beside it", async () => {
    const page = await opened;
    const shown: string[] = [];
    const tagsShot = new Set<string>();
    for (const op of operations) {
      const name = `${op.operationId} (${op.method.toUpperCase()} ${op.path})`;
      const { heading, sample } = await showOperation(page, op);
      await expectOnScreen(heading, op.summary, `the heading of ${name}, where the sidebar link leads`);

      // The reader has landed on the operation: its sample must be on screen now, beside the
      // heading, in the TypeScript tab, and be docs/samples/<operationId>.ts exactly (else the generated one).
      const source = sampleSource(
        written,
        model,
        model.operations.find((o) => o.operationId === op.operationId)!,
      ).trimEnd();
      const panel = page.locator("div").filter({ has: heading }).filter({ has: sample }).last();
      await expectOnScreen(
        panel.getByText(SAMPLE_LANGUAGE, { exact: true }).first(),
        SAMPLE_LANGUAGE,
        `the sample's tab of ${name}`,
      );
      const lines = source.split("\n");
      // The reference shows the method style: the sample calls the operation's method.
      const call = lines.find((line) => line.includes(`store.${op.sdkMethod}(`)) ?? "";
      expect(call, `docs/samples/${op.operationId}.ts calls store.${op.sdkMethod}()`).not.toBe("");
      await expectOnScreen(sample, lines[0]!, `the first line of the sample of ${name}`);
      await expectOnScreen(sample, call.trim().slice(0, 30), `the call in the sample of ${name}`);
      expect((await sample.innerText()).trimEnd(), `the sample of ${name}`).toBe(source);
      shown.push(op.operationId);

      if (!tagsShot.has(op.tag)) {
        tagsShot.add(op.tag);
        await screenshot(`tag-${op.tag}`);
      }

      // The operation's section: below the heading, the headers, the scopes.
      const section = page.locator("div").filter({ has: heading }).filter({ hasText: VERSION_HEADER }).last();
      await expectVisible(section.getByText(VERSION_HEADER, { exact: true }).first(), `${VERSION_HEADER} of ${name}`);
      await expectVisible(
        section.getByText(SET_BY_SDK, { exact: true }).first(),
        `"${SET_BY_SDK}" on ${VERSION_HEADER} of ${name}`,
      );
      for (const scope of op.scopes) {
        await expectVisible(section.getByText(scope, { exact: true }).first(), `scope ${scope} of ${name}`);
      }

      if (op === operations[0]) {
        // The bearer token: the operation's security details say the SDK sends it.
        await section.getByText("View security details", { exact: true }).first().click();
        // Redoc opens them in a layer of its own at the end of <body> (no dialog role).
        const dialog = page
          .locator("body > div")
          .filter({ has: page.getByText("Authorization: Bearer <token>", { exact: true }) });
        await expectVisible(
          dialog.getByText(SET_BY_SDK, { exact: true }),
          `"${SET_BY_SDK}" in the security details of ${name}`,
        );
        await expectVisible(
          dialog.getByText("Authorization: Bearer <token>", { exact: true }),
          `the Authorization header in the security details of ${name}`,
        );
        await page.keyboard.press("Escape");
        await dialog.waitFor({ state: "detached" });
      }
    }
    expect(shown).toHaveLength(operations.length);
    expect(tagsShot.size).toBe(new Set(operations.map((op) => op.tag)).size);
  }, 300_000);

  it("contacts no third party and logs no error", async () => {
    const page = await opened;
    const stillToWait = openedAt + MIN_TIME_OPEN_MS - Date.now();
    if (stillToWait > 0) await page.waitForTimeout(stillToWait);
    expect(blocked).toEqual([]);
    expect(consoleErrors).toEqual([]);
  }, 60_000);
});

/**
 * The samples as a reader sees them, in the two-column layout (1400 px) and the stacked one
 * (1024 px): no sample needs a sideways scroll (its `pre` is no wider than its panel), and
 * the copy button covers nothing of the first line. A screenshot of one sample at each width
 * is kept under test-results/.
 */
describe("the samples in Chromium at 1400 and 1024 px wide", () => {
  let served: { server: Server; origin: string } | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    served = await servePage();
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((closed) => (served ? served.server.close(() => closed()) : closed()));
  });

  for (const width of [1400, 1024]) {
    it(`at ${width} px, every sample fits its panel and its first line is clear of the copy button`, async () => {
      if (browser === undefined || served === undefined) throw new Error("Chromium did not start");
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      await context.route("**/*", (route) =>
        new URL(route.request().url()).origin === served!.origin ? route.continue() : route.abort("blockedbyclient"),
      );
      const page = await context.newPage();
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      await page.goto(`${served.origin}/`);
      await page.getByRole("heading", { level: 1 }).first().waitFor();
      const problems: string[] = [];
      for (const op of operations) {
        const { sample } = await showOperation(page, op);
        await sample.scrollIntoViewIfNeeded();
        const measured = await sample.evaluate((pre) => {
          const firstLine = pre.querySelector('[data-line="1"]') ?? pre;
          const line = [...firstLine.getClientRects()].filter((r) => r.width > 0);
          // The copy button of this code block: in the block's own controls, beside the pre.
          const button = pre.parentElement?.querySelector('[data-testid="copy-button"]')?.getBoundingClientRect();
          const overlaps =
            button !== undefined &&
            line.some(
              (r) => r.left < button.right && button.left < r.right && r.top < button.bottom && button.top < r.bottom,
            );
          return {
            scrollWidth: pre.scrollWidth,
            clientWidth: pre.clientWidth,
            hasButton: button !== undefined,
            overlaps,
          };
        });
        const name = `${op.operationId} at ${width} px`;
        if (measured.scrollWidth > measured.clientWidth)
          problems.push(
            `${name}: the sample is ${measured.scrollWidth} px wide in a ${measured.clientWidth} px panel (a sideways scroll)`,
          );
        if (!measured.hasButton)
          problems.push(`${name}: no copy button found beside the sample (did Redoc's markup change?)`);
        if (measured.overlaps) problems.push(`${name}: the copy button covers the first line`);
        if (op.operationId === "updateGiftCard") {
          await mkdir(SCREENSHOT_DIR, { recursive: true });
          await page.screenshot({ path: join(SCREENSHOT_DIR, `reference-sample-${width}px.png`) });
        }
      }
      await context.close();
      expect(problems).toEqual([]);
    }, 300_000);
  }
});
