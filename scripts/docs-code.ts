/**
 * `tsx scripts/docs-code.ts` (the last step of `npm run generate`): compiles the code the
 * documentation shows — every operation sample (`docs/samples/*.ts`) and every ```ts block
 * of docs/guide.md, docs/reference-intro.md and README.md — against the types just
 * generated, and exits 1 naming each file and line that no longer compiles.
 *
 * `store-admin-sdk` and its subpaths resolve to the sources (`src/`, which imports
 * `generated/`), not to `dist/`: right after a contract change, before any build, a sample
 * that reads a removed field fails here. (test/docs/ checks the same code again against the
 * built package, the way a user's project compiles it.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

/** The compiler options of a strict user project on Node (ESM), close to this project's own. */
export const DOCS_COMPILER_OPTIONS = {
  target: "ES2022",
  module: "NodeNext",
  moduleResolution: "NodeNext",
  lib: ["ES2022", "DOM", "DOM.Iterable"],
  types: ["node"],
  strict: true,
  noUncheckedIndexedAccess: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  // The package's own declarations are checked by test/package/consumer.test.ts.
  skipLibCheck: true,
  noEmit: true,
} as const;

/** Declarations every guide block may rely on (documented at the top of the guide). */
export const PRELUDE = `import type { StoreAdminClient } from "store-admin-sdk";

declare global {
  /** The client created in "Create a client" of docs/guide.md. */
  const store: StoreAdminClient;
}

export {};
`;

/** Fenced languages that are compiled; JavaScript must be written as \`ts\` so that it is checked too. */
export const CHECKED_LANGUAGES = new Set(["ts", "typescript"]);

/** The Markdown files whose ```ts blocks are compiled. */
export const MARKDOWN_WITH_CODE = ["docs/guide.md", "docs/reference-intro.md", "README.md"];

export interface Block {
  /** The Markdown file, relative to the project. */
  source: string;
  language: string;
  /** Line of the opening fence (1-based); the code starts on the next line. */
  fenceLine: number;
  code: string;
}

export function fencedBlocks(markdown: string, source: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`${source}:${start + 1}: code block is never closed`);
    blocks.push({ source, language: open[1]!.toLowerCase(), fenceLine: start + 1, code: body.join("\n") });
  }
  return blocks;
}

/** `store-admin-sdk[/sub]` → its source file, from package.json's `exports` (`./dist/src/x.js` → `src/x.ts`). */
function sourcePaths(root: string): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, { default?: string } | string>;
  };
  const paths: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const file = typeof target === "string" ? target : target.default;
    if (file === undefined || !file.startsWith("./dist/src/") || !file.endsWith(".js")) continue;
    paths[`${pkg.name}${subpath.slice(1)}`] = [join(root, file.slice("./dist/".length).replace(/\.js$/, ".ts"))];
  }
  return paths;
}

/** One compile error, at its place in the documentation: `docs/guide.md:92:15 TS2339 …`. */
export interface DocsCodeError {
  file: string;
  line: number;
  column: number;
  code: string;
  message: string;
}

export const formatDocsCodeError = (e: DocsCodeError): string =>
  `${e.file}:${e.line}:${e.column} TS${e.code} ${e.message}`;

/** Compiles the documentation's code in the project at `root` against its sources; the errors, in documentation coordinates. */
export function checkDocsCode(root: string): DocsCodeError[] {
  // Each block is its own virtual module beside the Markdown file; `export {}` keeps one
  // without imports a module, so blocks cannot see each other.
  const virtual = new Map<string, { text: string; source: string; lineOffset: number }>();
  virtual.set(join(root, ".docs-code", "prelude.d.ts"), { text: PRELUDE, source: "prelude", lineOffset: 0 });
  for (const markdown of MARKDOWN_WITH_CODE) {
    for (const block of fencedBlocks(readFileSync(join(root, markdown), "utf8"), markdown)) {
      if (!CHECKED_LANGUAGES.has(block.language)) continue;
      virtual.set(join(root, ".docs-code", `${markdown.replace(/\W/g, "-")}-line-${block.fenceLine}.ts`), {
        text: `${block.code}\nexport {};\n`,
        source: markdown,
        lineOffset: block.fenceLine,
      });
    }
  }
  const samplesDir = join(root, "docs", "samples");
  const samples = readdirSync(samplesDir)
    .filter((name) => name.endsWith(".ts"))
    .sort()
    .map((name) => join(samplesDir, name));

  const options = ts.convertCompilerOptionsFromJson(
    { ...DOCS_COMPILER_OPTIONS, paths: sourcePaths(root) },
    root,
  ).options;
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name);
  host.readFile = (name) => virtual.get(name)?.text ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) => {
    const entry = virtual.get(name);
    return entry === undefined
      ? getSourceFile.call(host, name, language, ...rest)
      : ts.createSourceFile(name, entry.text, language);
  };
  const program = ts.createProgram({ rootNames: [...virtual.keys(), ...samples], options, host });
  const errors: DocsCodeError[] = [];
  for (const name of [...virtual.keys(), ...samples]) {
    const file = program.getSourceFile(name);
    if (file === undefined) throw new Error(`${name}: not compiled`);
    for (const d of [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]) {
      const { line, character } = file.getLineAndCharacterOfPosition(d.start ?? 0);
      const entry = virtual.get(name);
      errors.push({
        file: entry?.source ?? relative(root, name),
        line: line + 1 + (entry?.lineOffset ?? 0),
        column: character + 1,
        code: String(d.code),
        message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
      });
    }
  }
  return errors;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = fileURLToPath(new URL("../", import.meta.url));
  const errors = checkDocsCode(root);
  if (errors.length > 0) {
    console.error(
      `docs-code: ${errors.length} error(s): the documentation's code no longer compiles against the generated types. Fix each place:`,
    );
    for (const error of errors) console.error(`- ${formatDocsCodeError(error)}`);
    process.exit(1);
  }
  console.log(
    `docs-code: the samples and the ${MARKDOWN_WITH_CODE.join(", ")} code blocks compile against the generated types.`,
  );
}
