/**
 * Code mode's type check: an agent's snippet compiled against the generated declarations
 * (generated/code-mode-declarations.ts: the SDK's own method types, JSON-only, option-free)
 * with TypeScript's in-process compiler API, before anything runs. One LanguageService per
 * process, whose program keeps the declarations' parsed files between checks: a warm check
 * re-reads only the snippet.
 *
 * TypeScript is loaded by dynamic import when code mode starts, not declared as a dependency:
 * a peer on `typescript` would make npm refuse to install the SDK beside TypeScript 7, whose
 * native compiler has no in-process API.
 */
import type * as TS from "typescript";
import { declarationFiles } from "../../../generated/code-mode-declarations.js";

type TypeScript = typeof TS;

/** A compiler error in the snippet, at its line and column (1-based, in the snippet as given). */
export interface CompileError {
  line: number;
  column: number;
  code: number;
  message: string;
}

export type CheckOutcome = { ok: true; javascript: string } | { ok: false; errors: CompileError[] };

/** Code mode cannot start: what to install, in words. */
class CodeModeUnavailableError extends Error {
  override name = "CodeModeUnavailableError";
}

const ROOT = "/code-mode/";
const SNIPPET = `${ROOT}snippet.ts`;
/** The snippet runs as the body of an async function: `await` and `return` at its top level. */
const OPENING = "async function __codeModeMain() {\n";
const CLOSING = "\n}\n";
/** The most errors a result lists: the first ones say what to fix. */
const MAX_ERRORS = 20;

/**
 * TypeScript's compiler API from `specifier` (default `typescript`), or a
 * {@link CodeModeUnavailableError} naming what to install: missing, or a version without the
 * in-process API (TypeScript 7's native compiler).
 */
export async function loadTypeScript(specifier = "typescript"): Promise<TypeScript> {
  let module: { default?: unknown; version?: unknown };
  try {
    module = (await import(specifier)) as typeof module;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new CodeModeUnavailableError(
      "Code mode type-checks the agent's code with TypeScript's compiler API, and typescript is not installed. Install TypeScript 5 beside store-admin-sdk: npm install typescript@5",
    );
  }
  const ts = (module.default ?? module) as Partial<TypeScript> & { version?: unknown };
  if (typeof ts.createLanguageService !== "function" || typeof ts.transpileModule !== "function") {
    throw new CodeModeUnavailableError(
      `Code mode type-checks the agent's code with TypeScript's in-process compiler API, which the installed typescript ${typeof ts.version === "string" ? ts.version : "(unknown version)"} does not have (TypeScript 7's native compiler has none). Install TypeScript 5 beside store-admin-sdk: npm install typescript@5`,
    );
  }
  return ts as TypeScript;
}

/** A checker of snippets over one LanguageService (its declarations parsed once). */
export interface SnippetChecker {
  /** `allowed`: the method names `store` declares (the server's policy); all of them when left out. */
  check(code: string, allowed?: readonly string[]): CheckOutcome;
}

const STORE_FILE = "store.d.ts";
const STORE_DECLARATION = "const store: OperationMethods;";

/** Method names as a tree of namespaces; a leaf is a method. */
interface Names {
  [name: string]: true | Names;
}

/** The type of `store` holding only the `names` under `of` (`OperationMethods["users"]`). */
function narrowed(of: string, names: Names): string {
  const members = Object.entries(names).map(([name, sub]) => {
    const member = `${of}[${JSON.stringify(name)}]`;
    return `readonly ${JSON.stringify(name)}: ${sub === true ? member : narrowed(member, sub)};`;
  });
  return `{ ${members.join(" ")} }`;
}

/**
 * `store.d.ts` declaring only the `allowed` methods: a method the server would refuse is no
 * member of `store`, so that calling it fails the type check, not the run.
 */
function storeDeclarations(all: string, allowed: readonly string[] | undefined): string {
  if (allowed === undefined) return all;
  const tree: Names = {};
  for (const method of allowed) {
    const parts = method.split(".");
    let node = tree;
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Names;
    node[parts.at(-1)!] = true;
  }
  if (!all.includes(STORE_DECLARATION)) throw new Error(`${STORE_FILE} no longer declares ${STORE_DECLARATION}`);
  return all.replace(
    STORE_DECLARATION,
    `/** Only the methods this server allows (its --allow-writes, --scopes and --tools). */ const store: ${narrowed("OperationMethods", tree)};`,
  );
}

export function snippetChecker(
  ts: TypeScript,
  declarations: Readonly<Record<string, string>> = declarationFiles,
): SnippetChecker {
  const options: TS.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts"],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: false,
  };
  const files = new Map<string, string>(Object.entries(declarations).map(([name, text]) => [`${ROOT}${name}`, text]));
  let snippet = "";
  let version = 0;
  const allStore = declarations[STORE_FILE]!;
  let storeText: string | undefined = allStore;
  let storeVersion = 0;
  const defaultLib = ts.getDefaultLibFilePath(options);
  const libDir = defaultLib.slice(0, defaultLib.lastIndexOf("/") + 1);
  const libs = new Map<string, string | undefined>();
  const read = (path: string): string | undefined => {
    if (path === SNIPPET) return snippet;
    if (files.has(path)) return files.get(path);
    // The compiler's own lib files, read from its package once.
    if (path.startsWith(libDir)) {
      if (!libs.has(path)) libs.set(path, ts.sys?.readFile(path));
      return libs.get(path);
    }
    return undefined;
  };
  const host: TS.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => [...files.keys(), SNIPPET],
    getScriptVersion: (path) =>
      path === SNIPPET ? String(version) : path === `${ROOT}${STORE_FILE}` ? String(storeVersion) : "0",
    getScriptSnapshot: (path) => {
      const text = read(path);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => ROOT,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: (path) => read(path) !== undefined,
    readFile: read,
  };
  const service = ts.createLanguageService(host, ts.createDocumentRegistry());
  return {
    check(code: string, allowed?: readonly string[]): CheckOutcome {
      const declared = storeDeclarations(allStore, allowed);
      // Only the small store.d.ts is read again when another server's policy asks: methods.ts stays parsed.
      if (declared !== storeText) {
        storeText = declared;
        files.set(`${ROOT}${STORE_FILE}`, declared);
        storeVersion += 1;
      }
      snippet = `${OPENING}${code}${CLOSING}`;
      version += 1;
      const diagnostics = [
        ...service.getSyntacticDiagnostics(SNIPPET),
        ...service.getSemanticDiagnostics(SNIPPET),
      ].filter((d) => d.category === ts.DiagnosticCategory.Error);
      if (diagnostics.length > 0)
        return { ok: false, errors: diagnostics.slice(0, MAX_ERRORS).map((d) => compileError(ts, d, code)) };
      const javascript = ts.transpileModule(snippet, {
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.None, removeComments: true },
      }).outputText;
      return { ok: true, javascript };
    },
  };
}

function compileError(ts: TypeScript, diagnostic: TS.Diagnostic, code: string): CompileError {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
  if (diagnostic.file === undefined || diagnostic.start === undefined)
    return { line: 1, column: 1, code: diagnostic.code, message };
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  // Line 0 is the wrapper's opening; a position past the snippet is its last line.
  const lines = code.split("\n").length;
  const shownLine = Math.min(Math.max(line, 1), lines);
  return { line: shownLine, column: line >= 1 && line <= lines ? character + 1 : 1, code: diagnostic.code, message };
}
