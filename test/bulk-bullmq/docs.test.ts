/**
 * The docs of the queue stay true to the code: every ```ts block of docs/bulk.md's "Many
 * processes" section and the README's queue worker compile against the built package (the
 * same check as the guide's blocks, ../docs/typecheck.ts), and a broken copy of one is refused.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../package/tarball.js";
import { formatDiagnostic, scratchDir, typecheck, type TypecheckResult } from "../docs/typecheck.js";

interface Block {
  source: string;
  line: number;
  code: string;
}

/** The ```ts blocks of `markdown` that `keep` selects. */
function tsBlocks(markdown: string, source: string, keep: (code: string) => boolean): Block[] {
  const blocks: Block[] = [];
  for (const match of markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
    if (keep(match[1]!))
      blocks.push({ source, line: markdown.slice(0, match.index).split("\n").length, code: match[1]! });
  }
  return blocks;
}

let scratch: string;
let files: Map<string, Block>;
let brokenFile: string;
let checked: TypecheckResult;

beforeAll(async () => {
  const bulkDoc = await readFile(join(ROOT, "docs", "bulk.md"), "utf8");
  const start = bulkDoc.indexOf("\n## Many processes");
  const end = bulkDoc.indexOf("\n## ", start + 1);
  const section = bulkDoc.slice(0, end < 0 ? undefined : end);
  const blocks = [
    ...tsBlocks(section, "docs/bulk.md", (code) => section.indexOf(code) > start),
    ...tsBlocks(await readFile(join(ROOT, "README.md"), "utf8"), "README.md", (code) =>
      code.includes("store-admin-sdk/bulk/bullmq"),
    ),
  ];
  scratch = await scratchDir("bulk-docs");
  files = new Map();
  for (const [i, block] of blocks.entries()) {
    const file = join(scratch, `block-${i}.ts`);
    await writeFile(file, `${block.code}\nexport {};\n`);
    files.set(file, block);
  }
  // The check is not vacuous: the same first block with the rate misspelt must fail.
  brokenFile = join(scratch, "broken.ts");
  await writeFile(brokenFile, `${blocks[0]!.code.replace("perSecond:", "perSecnd:")}\nexport {};\n`);
  checked = await typecheck([...files.keys(), brokenFile]);
}, 300_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("the queue's docs", () => {
  it("has ```ts blocks in docs/bulk.md (Many processes) and the README's worker, all compiling against the built package", () => {
    const sources = [...files.values()].map((block) => block.source);
    expect(sources).toContain("docs/bulk.md");
    expect(sources).toContain("README.md");
    const errors = checked.diagnostics
      .filter((diagnostic) => diagnostic.file !== brokenFile)
      .map((diagnostic) => {
        const block = files.get(diagnostic.file);
        return formatDiagnostic(
          diagnostic,
          block
            ? `${block.source}:${block.line + diagnostic.line}:${diagnostic.column}`
            : relative(ROOT, diagnostic.file),
        );
      });
    expect(errors).toEqual([]);
  });

  it("refuses a broken copy of a block (rate.perSecnd)", () => {
    const reported = checked.diagnostics.filter((diagnostic) => diagnostic.file === brokenFile);
    expect(reported.map((d) => d.message).join("\n"), checked.output).toMatch(/perSecnd/);
  });
});
