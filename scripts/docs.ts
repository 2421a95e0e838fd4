/**
 * Builds the API reference: `openapi/store-admin.yaml` → `docs/reference/index.html`.
 *
 * `npm run docs` runs it (`npm run docs -- draft.yaml` renders another file);
 * tests import `buildDocs()`.
 *
 * What readers see is composed here, in a copy of the contract that only the page gets
 * (the contract itself stays the API's description, which Prism and the generator read):
 *
 * - Each operation's `x-codeSamples` is `docs/samples/<operationId>.ts`, the file the
 *   samples test compiles and runs, so the page cannot show a sample that drifted; an
 *   operation nobody wrote one for shows the one generated from the contract (scripts/samples.ts).
 *   Redoc 3 shows a sample only when its key (its `label`, else its `lang`, lower-cased)
 *   is one of the keys of its `codeSamples.languages` option: both say "TypeScript" here,
 *   passed with `--openapi` (see REDOC_OPTIONS).
 * - The page opens on the SDK's quick start (`docs/reference-intro.md`); the contract's
 *   own description follows under a heading of its own, complete.
 * - The version header (the contract's, see scripts/contract-model.ts) and the bearer token
 *   are described as set by the SDK; the contract keeps the header required, as the API requires it.
 *
 * The page is one self-contained file that must contact no third party when a reader opens it:
 *
 * - `--inlineBundle` embeds Redoc's script instead of loading it from Redocly's CDN.
 * - `REDOCLY_TELEMETRY=off` turns off the telemetry that Redoc 3 posts from readers'
 *   browsers to Redocly's OpenTelemetry collector. @redocly/cli 2.77 writes
 *   `disableTelemetry: !telemetryEnabled(config)` into the page, where only that
 *   variable or `telemetry: off` in redocly.yaml count: `--openapi.disableTelemetry`
 *   is overwritten. The variable also stops the CLI's own usage report at build time.
 * - No option removes the "API docs by Redocly" badge in the sidebar footer: the
 *   inlined bundle loads its logo as an <img> from cdn.redoc.ly. So we rewrite the
 *   bundle: the logo URLs become inline SVGs, and the other Redocly CDN and
 *   telemetry URLs become inert `data:` URLs (the collector is dead code once
 *   telemetry is off; the icon CDN is only used for icons our page does not
 *   configure). Each rewrite must match, so a Redocly upgrade that changes them
 *   fails this build instead of quietly shipping a page that calls out.
 *
 * Runs before anything is built: Node built-ins and the `yaml` parser only.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { contractModel, isObject } from "./contract-model.js";
import { encodedCopy, untrustedMarkdown } from "./encode.js";
import {
  CONTRACT_NOTES_HEADING,
  CONTRACT_PATH,
  INTRO_PATH,
  REFERENCE_PATH,
  SAMPLE_LANGUAGE,
  SAMPLES_DIR,
} from "./facts.js";
import { loadContract } from "./load-contract.js";
import { sampleSource, writtenSamples } from "./samples.js";
import type { Json } from "./contract-json.js";

/**
 * Redoc options (`--openapi`). Only the listed languages are shown: the SDK's samples first
 * (the open tab), then "Payload", Redoc's JSON body example, for the operations with a body.
 */
const REDOC_OPTIONS = {
  // The contract is someone else's text: its Markdown is sanitised (no raw HTML, no script).
  untrustedSpec: true,
  codeSamples: {
    languages: [
      { lang: SAMPLE_LANGUAGE, label: SAMPLE_LANGUAGE },
      { lang: "Payload", label: "Payload" },
    ],
  },
};

/** Starts what the page says of a header the SDK sets; also keeps a shared (YAML alias) object from getting it twice. */
const SET_BY_SDK = "**Set by the SDK:**";

/** Rendering 20 operations takes about a second; the bound is for a loaded CI machine. */
const BUILD_TIMEOUT_MS = 120_000;

/** A small wordmark, so the footer still credits Redocly without fetching its logo. */
function wordmark(text: string, width: number, height: number): string {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<text x="0" y="${height - 2}" textLength="${width}" lengthAdjust="spacingAndGlyphs" ` +
    `font-family="sans-serif" font-size="${height - 1}" font-weight="600" fill="#0044d4">${text}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/** URLs in the Redoc bundle that a browser would request from Redocly, and what replaces them. */
const REWRITES: { what: string; find: RegExp; replace: string }[] = [
  {
    what: "the badge logo (<img> in the sidebar footer)",
    find: /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini-full\.svg/g,
    replace: wordmark("Redocly", 44, 12),
  },
  {
    what: "the badge logo of the collapsed sidebar",
    find: /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg/g,
    replace: wordmark("R", 10, 14),
  },
  {
    what: "the telemetry collector",
    find: /https:\/\/otel\.cloud\.redocly\.com\/v1\/traces/g,
    replace: "data:,",
  },
  {
    what: "the icon CDN",
    find: /https:\/\/cdn\.redocly\.com\/icons\/[\w./-]*/g,
    replace: "data:,",
  },
];

/**
 * Redocly's service hosts (cdn.redoc.ly, cdn.redocly.com, otel.cloud.redocly.com, any new one):
 * none may be left in the page. Links to redocly.com itself (docs, the badge's link) are fine.
 */
const REDOCLY_SERVICE_HOST = /\b[\w-]+\.(?:redoc\.ly|redocly\.com)\b/;

export interface BuildDocsOptions {
  /** OpenAPI file to render. @default openapi/store-admin.yaml of this project */
  specPath?: string;
  /** Where to write the page. @default docs/reference/index.html of this project */
  outputPath?: string;
}

/** Renders the reference page; rejects with the CLI's output or the failed check. Resolves to the output path. */
export async function buildDocs(options: BuildDocsOptions = {}): Promise<string> {
  const specPath = resolve(options.specPath ?? CONTRACT_PATH);
  const outputPath = resolve(options.outputPath ?? REFERENCE_PATH);
  // Redocly writes to a scratch file: the real output only ever holds a checked page.
  const scratch = await mkdtemp(join(tmpdir(), "store-admin-docs-"));
  try {
    const copyPath = join(scratch, "reference.json");
    await writeFile(copyPath, JSON.stringify(await referenceCopy(specPath), null, 2));
    const rawPath = join(scratch, "index.html");
    await runRedocly([
      "build-docs",
      copyPath,
      "--output",
      rawPath,
      "--inlineBundle",
      "--openapi",
      JSON.stringify(REDOC_OPTIONS),
    ]);
    const html = makeSelfContained(await readFile(rawPath, "utf8"));
    await mkdir(dirname(outputPath), { recursive: true });
    await writeFile(outputPath, html);
    return outputPath;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The contract as the page shows it: the samples from docs/samples/ (generated where none is
 * written), the quick start first, the SDK-set headers said to be set by the SDK. Throws,
 * naming what is wrong, for a contract the generators refuse (scripts/contract-model.ts) and
 * for a reference to another file (the copy is rendered from a scratch directory, where a
 * relative `$ref` would not resolve).
 */
export async function referenceCopy(specPath: string): Promise<Json> {
  // Only references within the document, and no alias bomb: Redocly would follow a `$ref` to any URL or file.
  const spec = markdownEscaped(loadContract(await readFile(specPath, "utf8"), specPath)) as Json;
  const model = contractModel(spec);
  const versionHeader = model.versionHeader?.name.toLowerCase();
  const samples = await writtenSamples(pathToFileURL(SAMPLES_DIR + "/"));
  for (const op of model.operations) {
    const source = sampleSource(samples, model, op);
    op.operation["x-codeSamples"] = [
      { lang: SAMPLE_LANGUAGE, label: SAMPLE_LANGUAGE, source: source.trimEnd() + "\n" },
    ];
    describeSdkHeaders(op.operation.parameters, versionHeader);
  }
  for (const item of Object.values(isObject(spec.paths) ? spec.paths : {})) {
    if (isObject(item)) describeSdkHeaders(item.parameters, versionHeader);
  }

  const components = isObject(spec.components) ? spec.components : {};
  describeSdkHeaders(Object.values(isObject(components.parameters) ? components.parameters : {}), versionHeader);
  for (const scheme of Object.values(isObject(components.securitySchemes) ? components.securitySchemes : {})) {
    if (
      isObject(scheme) &&
      scheme.type === "http" &&
      String(scheme.scheme).toLowerCase() === "bearer" &&
      !String(scheme.description ?? "").startsWith(SET_BY_SDK)
    ) {
      scheme.description =
        SET_BY_SDK +
        " the client sends `Authorization: Bearer <token>` on every request, from its " +
        "`accessToken` option (a string, or a function called before each request). You never pass this header; " +
        "a `headers` option that sets it is refused.\n\n" +
        String(scheme.description ?? "");
    }
  }

  const info = isObject(spec.info) ? spec.info : (spec.info = {});
  const intro = (await readFile(INTRO_PATH, "utf8")).trimEnd();
  info.description = `${intro}\n\n# ${CONTRACT_NOTES_HEADING}\n\n${String(info.description ?? "").trim()}\n`;
  return spec;
}

/** The contract with the HTML in its descriptions shown as text ({@link untrustedMarkdown}); examples and other values as they are. */
const markdownEscaped = (doc: unknown): unknown =>
  encodedCopy(doc, (key, value) =>
    key === "description" && typeof value === "string"
      ? untrustedMarkdown(value)
      : ["example", "examples", "default", "enum", "const", "value"].includes(key)
        ? value
        : undefined,
  );

/** Says, on the version header parameter (`name`, lower-cased), that the SDK sends it; it stays required, as the API requires it. */
function describeSdkHeaders(parameters: unknown, name: string | undefined): void {
  if (!Array.isArray(parameters) || name === undefined) return;
  for (const parameter of parameters) {
    if (!isObject(parameter) || parameter.in !== "header" || String(parameter.name).toLowerCase() !== name) continue;
    if (String(parameter.description ?? "").startsWith(SET_BY_SDK)) continue;
    parameter.description =
      SET_BY_SDK +
      " the client sends this header on every request, with the version it was generated " +
      "for (`API_VERSION`). You never pass it; a `headers` option that sets it is refused.\n\n" +
      String(parameter.description ?? "");
  }
}

type ExecOutput = { signal?: NodeJS.Signals | null; stdout?: string; stderr?: string };

async function runRedocly(args: string[]): Promise<void> {
  // The CLI's entry script, resolved from here, run with this Node: no PATH or npx involved.
  const cli = createRequire(import.meta.url).resolve("@redocly/cli/bin/cli.js");
  try {
    await promisify(execFile)(process.execPath, [cli, ...args], {
      timeout: BUILD_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: "off", // see the header: the only switch that reaches the page
        REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", // no npm registry lookup on each build
        NO_COLOR: "1",
      },
    });
  } catch (error) {
    const { code, signal, stdout = "", stderr = "" } = error as NodeJS.ErrnoException & ExecOutput;
    const how = signal ? `killed by ${signal} (timeout ${BUILD_TIMEOUT_MS / 1000} s?)` : `exit code ${code}`;
    throw new Error(`redocly ${args.join(" ")} failed (${how}):\n${stdout}${stderr}`.trimEnd());
  }
}

/**
 * How code reads in the page. A sample's long lines wrap instead of hiding behind a
 * sideways scroll in the narrow right-hand panel, and the code starts below the copy
 * button's row (the button sits over the block's top right corner, where the `import` line
 * ended). `!important`: Redoc's own rules are injected at run time, after this one.
 */
export const READER_CSS = `
pre[data-testid="source-code"] { white-space: pre-wrap !important; overflow-wrap: anywhere !important; }
.code-block-header ~ pre[data-testid="source-code"] { padding-top: 36px !important; }
`;

/** Applies the rewrites, adds {@link READER_CSS}, and checks that the page loads nothing from anywhere. */
function makeSelfContained(html: string): string {
  const options = /const __redoc_options = (\{.*?\});/.exec(html)?.[1];
  if (options === undefined) outputChanged("Cannot find __redoc_options in the page, to check that telemetry is off");
  if ((JSON.parse(options) as { disableTelemetry?: unknown }).disableTelemetry !== true) {
    outputChanged(`REDOCLY_TELEMETRY=off no longer disables telemetry in the page (options: ${options})`);
  }
  for (const { what, find, replace } of REWRITES) {
    if (html.search(find) === -1) outputChanged(`Cannot find ${what} (${find.source}) in the page`);
    html = html.replace(find, () => replace); // a function: no `$&` patterns in `replace`
  }
  if (!html.includes("</head>")) outputChanged("Cannot find </head> in the page, to add the page's own styles");
  html = html.replace("</head>", () => `<style>${READER_CSS}</style></head>`);
  const leftover = REDOCLY_SERVICE_HOST.exec(html);
  if (leftover) {
    const context = html.slice(Math.max(0, leftover.index - 200), leftover.index + 100);
    outputChanged(`The page still refers to ${leftover[0]}, in: …${context}…`);
  }
  const loaded = /<script\b[^>]*\ssrc\s*=|<link\b[^>]*\shref\s*=/i.exec(html);
  if (loaded) {
    outputChanged(
      `The page loads a script or stylesheet by URL (${JSON.stringify(html.slice(loaded.index, loaded.index + 200))}): is --inlineBundle still honoured?`,
    );
  }
  const fetches = urlLoader(html);
  if (fetches)
    throw new Error(
      `The page would load or submit a URL when opened (${JSON.stringify(fetches)}): the contract's Markdown let live HTML through (scripts/encode.ts, untrustedMarkdown).`,
    );
  return html;
}

/** Elements that fetch, embed or submit by their nature. */
const LOADING_ELEMENTS = new Set([
  "img",
  "video",
  "audio",
  "source",
  "track",
  "iframe",
  "frame",
  "object",
  "embed",
  "form",
  "link",
  "base",
  "portal",
  "image",
  "feimage",
  "applet",
  "bgsound",
]);

/** Attributes that load or submit a URL, on any element. */
const LOADING_ATTRIBUTES = new Set([
  "src",
  "srcset",
  "poster",
  "background",
  "action",
  "formaction",
  "data",
  "dynsrc",
  "lowsrc",
  "ping",
  "xlink:href",
  "imagesrcset",
]);

/**
 * Markup that loads or submits a URL by itself (an element, an attribute, a style), outside the
 * page's scripts (Redoc's bundle holds such words in its code): what the first of them reads, or
 * `undefined`. Links a reader follows (`<a href>`), fragments (`#icon`) and `data:` URLs load
 * nothing from anywhere. Tags are read attribute by attribute, so text in a value is not markup.
 */
export function urlLoader(html: string): string | undefined {
  const markup = html.replace(/<script\b[^>]*>[^]*?<\/script\s*>/gi, "<script></script>");
  const tags = /<([a-zA-Z][\w:-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*\/?>/g;
  const attributes = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;
  const local = (value: string): boolean => /^\s*(?:data:|#|$)/i.test(value);
  for (const [tag, name, list] of markup.matchAll(tags)) {
    const element = name!.toLowerCase();
    const said = tag.slice(0, 200);
    if (LOADING_ELEMENTS.has(element)) return said;
    for (const [, key, ...values] of list!.matchAll(attributes)) {
      const attribute = key!.toLowerCase();
      const value = values.find((v) => v !== undefined) ?? "";
      if (LOADING_ATTRIBUTES.has(attribute) && !local(value)) return said;
      if (attribute === "href" && element !== "a" && !local(value)) return said;
      if (attribute === "type" && element === "input" && value.toLowerCase() === "image") return said;
      if (attribute === "http-equiv" && value.toLowerCase() === "refresh") return said;
      if (attribute === "style" && /@import|url\(\s*["']?(?!data:|#)[^)"'\s]/i.test(value)) return said;
    }
  }
  // Styles that fetch: @import, url() to anything but data: (in a <style> element).
  for (const [, css] of markup.matchAll(/<style\b[^>]*>([^]*?)<\/style\s*>/gi)) {
    const fetching = /@import\b[^;]*|url\(\s*["']?(?!data:|#)[^)"'\s][^)]*\)/i.exec(css!);
    if (fetching) return fetching[0].slice(0, 200);
  }
  return undefined;
}

function outputChanged(problem: string): never {
  throw new Error(`${problem}. @redocly/cli changed its output: update scripts/docs.ts (see its header).`);
}

// Run only when executed directly (tsx scripts/docs.ts), not when imported by a test.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  buildDocs({ specPath: process.argv[2] }).then(
    (output) => console.log(`API reference written to ${output} in ${((Date.now() - started) / 1000).toFixed(1)} s.`),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
