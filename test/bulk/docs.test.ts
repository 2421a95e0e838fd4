/**
 * docs/bulk.md: every ```ts block compiles against the built package (a broken copy of one
 * must not), the command's options it documents are the command's, and it links only to
 * files that exist.
 */
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Command } from "commander";
import { bulkCommand } from "../../src/cli/bulk-command.js";
import { ROOT } from "../package/tarball.js";
import { formatDiagnostic, scratchDir, typecheck, type TypecheckResult } from "../docs/typecheck.js";

const DOC = join(ROOT, "docs", "bulk.md");
let text: string;
let scratch: string;
let checked: TypecheckResult;
let brokenFile: string;

beforeAll(async () => {
  text = await readFile(DOC, "utf8");
  scratch = await scratchDir("bulk-doc");
  const blocks = [...text.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
  const files: string[] = [];
  for (const [index, code] of blocks.entries()) {
    const file = join(scratch, `block-${index}.ts`);
    await writeFile(file, `${code}\nexport {};\n`);
    files.push(file);
  }
  brokenFile = join(scratch, "broken.ts");
  await writeFile(brokenFile, `${blocks[0]!.replace("concurrency: 8", 'concurrency: "8"')}\nexport {};\n`);
  checked = await typecheck([...files, brokenFile]);
}, 300_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("docs/bulk.md", () => {
  it("has TypeScript blocks that compile against the built package", () => {
    const problems = checked.diagnostics.filter((d) => d.file !== brokenFile).map((d) => formatDiagnostic(d));
    expect(problems).toEqual([]);
    expect(
      checked.diagnostics.some((d) => d.file === brokenFile && d.code === "TS2322"),
      "a broken copy fails",
    ).toBe(true);
  });

  it("documents only options the command has", () => {
    const program = new Command();
    const command = bulkCommand(program, { stdout: process.stdout, stderr: process.stderr, env: {} });
    const options = new Set(command.options.map((option) => option.long));
    const mentioned = new Set([...text.matchAll(/`(--[a-z-]+)/g)].map((m) => m[1]!));
    expect([...mentioned].filter((option) => !options.has(option))).toEqual([]);
    expect(mentioned.size).toBeGreaterThanOrEqual(8);
  });

  it("links only to files that exist", () => {
    const broken = [...text.matchAll(/\]\(([^)\s#]+)/g)]
      .map((m) => m[1]!)
      .filter((path) => !/^[a-z]+:/i.test(path) && !existsSync(join(dirname(DOC), path)));
    expect(broken).toEqual([]);
  });
});
