/**
 * Unused code: knip (knip.json) reads the package's entries (package.json `exports`, `bin`, the
 * `#shared` door, the lazily loaded tables), the scripts package.json and the bench run, and
 * test/, and reports an export, a file or a dependency nothing uses, in src/, generated/ and
 * scripts/. Tests count as importers: a test that imports a module is one of its users. The
 * check must pass on the tree, and must refuse planted unused exports on a scratch copy, naming them.
 */
import { execFile } from "node:child_process";
import { appendFileSync, cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const KNIP = join(root, "node_modules", "knip", "bin", "knip.js");
/** What knip reads: the sources, the generated files, the scripts and tests, the figures they share, and its configuration. */
const COPIED = ["src", "generated", "scripts", "test", "package.json", "tsconfig.json", "knip.json", "figures.json"];

interface KnipIssue {
  file: string;
  exports: Array<{ name: string }>;
  types: Array<{ name: string }>;
}

/** knip's verdict on the tree at `dir`: its exit code and its issues (JSON reporter). */
function knip(dir: string): Promise<{ code: number; issues: KnipIssue[]; files: string[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [KNIP, "--no-progress", "--reporter", "json"],
      { cwd: dir, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        if (code !== 0 && code !== 1)
          return reject(new Error(`knip failed to run (${String(error?.code)}): ${stderr}`));
        const report = JSON.parse(stdout) as { issues: KnipIssue[]; files: string[] };
        resolve({ code, issues: report.issues, files: report.files, stderr });
      },
    );
  });
}

/** Each issue as `file: kind name`, for a failure message that names what is unused. */
const named = (issues: readonly KnipIssue[]): string[] =>
  issues.flatMap((issue) =>
    Object.entries(issue).flatMap(([kind, list]) =>
      Array.isArray(list) ? list.map((item: { name?: string }) => `${issue.file}: ${kind} ${item.name ?? ""}`) : [],
    ),
  );

const scratch = mkdtempSync(join(tmpdir(), "unused-code-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Concurrent: each run is a process of its own, about 10 s.
describe.concurrent("unused code (knip)", () => {
  test("nothing in the tree is unused", async () => {
    const { code, issues, files } = await knip(root);
    expect([...files, ...named(issues)]).toEqual([]);
    expect(code).toBe(0);
  }, 60_000);

  test("planted unused exports are refused, by name, in src/ and in scripts/", async () => {
    for (const entry of COPIED) cpSync(join(root, entry), join(scratch, entry), { recursive: true });
    symlinkSync(join(root, "node_modules"), join(scratch, "node_modules"), "dir");
    appendFileSync(join(scratch, "src", "core", "options.ts"), "\nexport const plantedUnusedExport = 1;\n");
    appendFileSync(join(scratch, "scripts", "encode.ts"), "\nexport function plantedUnusedScript(): void {}\n");
    const { code, issues } = await knip(scratch);
    expect(code).toBe(1);
    expect(named(issues).sort()).toEqual([
      "scripts/encode.ts: exports plantedUnusedScript",
      "src/core/options.ts: exports plantedUnusedExport",
    ]);
  }, 60_000);
});
