/**
 * docs/guide.md, the usage guide: it covers what a user needs, it is linked from the
 * README, its links lead somewhere, and every ```ts block in it compiles against the built
 * package (checked the same way as the operation samples, see ./typecheck.ts). So does the
 * quick start that opens the rendered reference, docs/reference-intro.md.
 *
 * Each block is its own module. Blocks may use `store` without creating it: the prelude
 * below declares it, as the guide's introduction says. A block that creates its own
 * `store` shadows the prelude's.
 */
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as sdk from "../../src/index.js";
import { CHECKED_LANGUAGES, fencedBlocks, PRELUDE, type Block } from "../../scripts/docs-code.js";
import { ROOT } from "../package/tarball.js";
import { formatDiagnostic, scratchDir, typecheck, type TypecheckResult } from "./typecheck.js";

const GUIDE = join(ROOT, "docs", "guide.md");
const REFERENCE_INTRO = join(ROOT, "docs", "reference-intro.md");
const README = join(ROOT, "README.md");

const UNCHECKED_LANGUAGES = new Set(["sh", "bash", "shell", "console", "json", "yaml", "text", ""]);

/** The sections the guide must have: one per task a newcomer comes with. */
const REQUIRED_SECTIONS: Array<[topic: string, heading: RegExp]> = [
  ["install", /^## Install/m],
  ["auth and token refresh", /^## Authentication and token refresh/m],
  ["pagination", /^## Pagination/m],
  ["errors", /^## Errors/m],
  ["retries and timeouts", /^## Retries and timeouts/m],
  ["uploads", /^## Uploads/m],
  ["testing your own code against the bundled mock", /^## Testing your code against the mock/m],
  ["regenerating after a spec change", /^## Regenerating after a spec change/m],
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .replace(/\s/g, "-");
}

let guide: string;
let blocks: Block[];
let introBlocks: Block[];
let scratch: string;
let blockFiles: Map<string, Block>;
let brokenFile: string;
let brokenLine: number;
let checked: TypecheckResult;

beforeAll(async () => {
  guide = await readFile(GUIDE, "utf8");
  blocks = fencedBlocks(guide, "docs/guide.md");
  scratch = await scratchDir("guide");
  blockFiles = new Map();
  const files = [join(scratch, "prelude.d.ts")];
  await writeFile(files[0]!, PRELUDE);
  introBlocks = fencedBlocks(await readFile(REFERENCE_INTRO, "utf8"), "docs/reference-intro.md");
  for (const block of [...blocks, ...introBlocks].filter((b) => CHECKED_LANGUAGES.has(b.language))) {
    const file = join(scratch, `${block.source === "docs/guide.md" ? "guide" : "intro"}-line-${block.fenceLine}.ts`);
    // `export {}` keeps a block without imports a module, so blocks cannot see each other.
    await writeFile(file, `${block.code}\nexport {};\n`);
    blockFiles.set(file, block);
    files.push(file);
  }
  // Proof that the check is not vacuous: a copy of a block with a type error must fail.
  const victim = blocks.find((b) => CHECKED_LANGUAGES.has(b.language) && b.code.includes("{ id: 42 }"));
  if (!victim) throw new Error("no guide block contains `{ id: 42 }` to break: update the broken-block check");
  brokenFile = join(scratch, "broken-block.ts");
  const index = victim.code.indexOf("{ id: 42 }");
  brokenLine = victim.code.slice(0, index).split("\n").length;
  await writeFile(
    brokenFile,
    `${victim.code.slice(0, index)}{ id: "42" }${victim.code.slice(index + "{ id: 42 }".length)}\nexport {};\n`,
  );
  files.push(brokenFile);

  checked = await typecheck(files);
}, 300_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("docs/guide.md", () => {
  it("covers install, auth and token refresh, pagination, errors, retries and timeouts, uploads, testing against the mock, regenerating", () => {
    const missing = REQUIRED_SECTIONS.filter(([, heading]) => !heading.test(guide)).map(([topic]) => topic);
    expect(missing, "sections missing from the guide").toEqual([]);
    expect(guide, "retry and timeout details are linked, not restated").toContain("](reliability.md)");
  });

  it("is linked from the README", async () => {
    const readme = await readFile(README, "utf8");
    expect(readme).toMatch(/\]\(\.?\/?docs\/guide\.md\)/);
  });

  it("links only to files and headings that exist", () => {
    const anchors = new Set([...guide.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]!)));
    const broken: string[] = [];
    for (const [, target] of guide.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue; // https:, mailto:
      const [path, anchor] = target!.split("#") as [string, string | undefined];
      if (path === "") {
        if (!anchors.has(anchor ?? "")) broken.push(target!);
      } else if (!existsSync(join(dirname(GUIDE), path))) {
        broken.push(
          `${target} (docs/${path} does not exist${path.startsWith("reference/") ? ": built by `npm run docs`" : ""})`,
        );
      }
    }
    expect(broken).toEqual([]);
  });

  it("writes every code block in a known language (JavaScript and TypeScript as ```ts, so it is compiled)", () => {
    const unknown = blocks
      .filter((block) => !CHECKED_LANGUAGES.has(block.language) && !UNCHECKED_LANGUAGES.has(block.language))
      .map((block) => `docs/guide.md:${block.fenceLine} \`\`\`${block.language}`);
    expect(unknown).toEqual([]);
    expect(blockFiles.size, "number of ```ts blocks found").toBeGreaterThanOrEqual(10);
  });

  it("has ```ts blocks that all compile against the built package", () => {
    const errors = checked.diagnostics
      .filter((diagnostic) => diagnostic.file !== brokenFile)
      .map((diagnostic) => {
        const block = blockFiles.get(diagnostic.file);
        // Report the guide's own line numbers.
        return block
          ? formatDiagnostic(diagnostic, `${block.source}:${block.fenceLine + diagnostic.line}:${diagnostic.column}`)
          : formatDiagnostic(diagnostic, relative(ROOT, diagnostic.file));
      });
    expect(errors).toEqual([]);
  });

  it("also compiles the quick start that opens the rendered reference (docs/reference-intro.md)", () => {
    const intro = [...blockFiles.values()].filter((block) => block.source === "docs/reference-intro.md");
    expect(intro.map((block) => block.code).join("\n")).toContain("store.users.list(");
    expect(
      introBlocks.every((block) => CHECKED_LANGUAGES.has(block.language) || UNCHECKED_LANGUAGES.has(block.language)),
    ).toBe(true);
  });

  it("lists in its error table exactly the error classes src/index.ts exports, each with its base class right", () => {
    const section = guide.slice(guide.indexOf("\n## Errors"), guide.indexOf("\n## ", guide.indexOf("\n## Errors") + 1));
    const rows = [...section.matchAll(/^\| `(\w+)` \|(.*)$/gm)].map((match) => ({ name: match[1]!, rest: match[2]! }));
    const exported = Object.entries(sdk)
      .filter(
        ([, value]) => typeof value === "function" && (value as { prototype?: unknown }).prototype instanceof Error,
      )
      .map(([name]) => name);
    expect(exported.length).toBeGreaterThanOrEqual(15);
    expect(rows.map((row) => row.name).sort()).toEqual(exported.sort());
    // What the guide says about the hierarchy: everything is a StoreAdminError; the HTTP ones are ApiErrors.
    for (const name of exported) {
      const errorClass = sdk[name as keyof typeof sdk] as unknown as { prototype: object };
      expect(errorClass === sdk.StoreAdminError || errorClass.prototype instanceof sdk.StoreAdminError, name).toBe(
        true,
      );
    }
    const httpRows = rows.filter((row) => /^ (\d{3}|any HTTP error status)/.test(row.rest)).map((row) => row.name);
    expect(httpRows.length).toBeGreaterThanOrEqual(9);
    for (const name of httpRows) {
      const errorClass = sdk[name as keyof typeof sdk] as unknown as { prototype: object };
      expect(
        errorClass === sdk.ApiError || errorClass.prototype instanceof sdk.ApiError,
        `${name} (an HTTP status) extends ApiError`,
      ).toBe(true);
    }
    expect(sdk.PaginationError.prototype instanceof sdk.InvalidResponseError, "PaginationError is its own class").toBe(
      false,
    );
  });

  it("fails the check for a block with a type error (a deliberately broken copy)", () => {
    const reported = checked.diagnostics.filter((diagnostic) => diagnostic.file === brokenFile);
    expect(
      reported.map((diagnostic) => diagnostic.line),
      checked.output,
    ).toContain(brokenLine);
  });
});
