/**
 * `npm run generate` after a contract change: in a copy of the project whose contract lost
 * `GiftCard.last_four` (a field the updateGiftCard sample and the guide read), the step
 * that regenerates fails, naming each file and line of documentation that no longer
 * compiles, with no build in between (dist/ is not part of the copy).
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkDocsCode } from "../../scripts/docs-code.js";
import { ROOT } from "../package/tarball.js";

const COPIED = [
  "package.json",
  "tsconfig.json",
  "openapi",
  "scripts",
  "src",
  "generated",
  "docs/samples",
  "docs/guide.md",
  "docs/reference-intro.md",
  "README.md",
];

/** The line (1-based) of the first occurrence of `text` in a project file. */
const lineOf = (file: string, text: string): number =>
  readFileSync(join(ROOT, file), "utf8")
    .split("\n")
    .findIndex((line) => line.includes(text)) + 1;

describe("npm run generate compiles the documentation's code against the regenerated types", () => {
  const dir = mkdtempSync(join(tmpdir(), "docs-code-"));
  let result: SpawnSyncReturns<string>;

  beforeAll(() => {
    for (const path of COPIED) cpSync(join(ROOT, path), join(dir, path), { recursive: true });
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
    const contract = readFileSync(join(dir, "openapi/store-admin.yaml"), "utf8");
    // The property of GiftCard (and its example's value), not `bankcard_last_four`.
    const mutated = contract.replace(/^ {8}last_four: .*\n/gm, "");
    expect(contract.length - mutated.length).toBeGreaterThan(0);
    writeFileSync(join(dir, "openapi/store-admin.yaml"), mutated);
    result = spawnSync("npm", ["run", "-s", "generate"], { cwd: dir, encoding: "utf8", timeout: 240_000 });
  }, 300_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("it fails, naming the sample's and the guide's file and line", () => {
    expect(result.status, result.stdout + result.stderr).toBe(1);
    expect(readFileSync(join(dir, "generated/schema.ts"), "utf8")).not.toMatch(/\blast_four\b/);
    const sampleLine = lineOf("docs/samples/updateGiftCard.ts", "card.last_four");
    const guideLine = lineOf("docs/guide.md", "card.last_four");
    expect(sampleLine).toBeGreaterThan(0);
    expect(result.stderr).toContain("the documentation's code no longer compiles against the generated types");
    expect(result.stderr).toMatch(
      new RegExp(`- docs/samples/updateGiftCard\\.ts:${sampleLine}:\\d+ TS2339 Property 'last_four' does not exist`),
    );
    expect(result.stderr).toMatch(
      new RegExp(`- docs/guide\\.md:${guideLine}:\\d+ TS2339 Property 'last_four' does not exist`),
    );
  });

  test("on the repository's own contract, the documentation's code compiles", () => {
    expect(checkDocsCode(ROOT)).toEqual([]);
  }, 120_000);
});
