/**
 * Type-checks documentation code (the operation samples, the guide's blocks) against the
 * built package, the way a user's project compiles it.
 *
 * The files import `"store-admin-sdk"` by name. They sit inside this project (docs/, or a
 * scratch directory under the git-ignored `.cache/`), so TypeScript resolves that name
 * through the project's own package.json `exports` (a package may import itself by name):
 * the declarations checked are `dist/src/index.d.ts`, exactly what the tarball ships.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import { DOCS_COMPILER_OPTIONS } from "../../scripts/docs-code.js";
import { ensureBuilt, ROOT, run, TSC } from "../package/tarball.js";

export interface Diagnostic {
  /** Absolute path of the file. */
  file: string;
  line: number;
  column: number;
  /** e.g. `TS2322`. */
  code: string;
  message: string;
}

export interface TypecheckResult {
  exitCode: number | null;
  diagnostics: Diagnostic[];
  /** Everything tsc printed. */
  output: string;
}

const DIAGNOSTIC_LINE = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/;

/** A scratch directory inside the project (so that `store-admin-sdk` resolves to it), removed by the caller. */
export async function scratchDir(prefix: string): Promise<string> {
  const cache = join(ROOT, ".cache");
  await mkdir(cache, { recursive: true });
  return mkdtemp(join(cache, `${prefix}-`));
}

/**
 * Runs the project's `tsc` over `files` (absolute paths) with {@link DOCS_COMPILER_OPTIONS},
 * building `dist/` first if it is missing.
 */
export async function typecheck(files: readonly string[]): Promise<TypecheckResult> {
  await ensureBuilt();
  const dir = await scratchDir("typecheck");
  try {
    const tsconfig = join(dir, "tsconfig.json");
    await writeFile(tsconfig, JSON.stringify({ compilerOptions: DOCS_COMPILER_OPTIONS, files: [...files] }, null, 2));
    const result = await run(process.execPath, [TSC, "-p", tsconfig, "--pretty", "false"], {
      cwd: ROOT,
      timeoutMs: 180_000,
    });
    const output = `${result.stdout}${result.stderr}`;
    const diagnostics: Diagnostic[] = [];
    let last: Diagnostic | undefined;
    for (const line of output.split("\n")) {
      const match = DIAGNOSTIC_LINE.exec(line);
      if (match) {
        const [, file, row, column, code, message] = match as unknown as [
          string,
          string,
          string,
          string,
          string,
          string,
        ];
        last = {
          file: isAbsolute(file) ? file : resolve(ROOT, file),
          line: Number(row),
          column: Number(column),
          code,
          message,
        };
        diagnostics.push(last);
      } else if (last && line.startsWith(" ")) {
        last.message += `\n${line}`; // continuation of a multi-line message
      }
    }
    if (result.code !== 0 && diagnostics.length === 0) {
      throw new Error(`tsc failed without a diagnostic it could attribute to a file:\n${output}`);
    }
    return { exitCode: result.code, diagnostics, output };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `docs/samples/x.ts:12:5 TS2322 message`, with paths relative to the project root. */
export function formatDiagnostic(diagnostic: Diagnostic, where?: string): string {
  return `${where ?? `${relative(ROOT, diagnostic.file)}:${diagnostic.line}:${diagnostic.column}`} ${diagnostic.code} ${diagnostic.message}`;
}
