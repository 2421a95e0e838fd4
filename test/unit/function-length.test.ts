/**
 * Functions a person can hold in mind: no function in src/ or scripts/ (declaration, expression, arrow,
 * method, accessor, constructor) has a body over MAX_LINES lines, unless
 * function-length.allow.json names it with a reason. A long function is split into named
 * steps over a small state object, as the request lifecycle is. An allow-list entry that no
 * longer matches a long function fails too, so the list cannot rot.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import { type Allowed, lengthProblems, longFunctions, MAX_LINES } from "./function-length.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const allowFile = fileURLToPath(new URL("./function-length.allow.json", import.meta.url));

const readAllowed = (): Allowed[] => JSON.parse(readFileSync(allowFile, "utf8")) as Allowed[];

describe("function length", () => {
  test(`no function in src/ has a body over ${MAX_LINES} lines, apart from the allow-list`, () => {
    const found = longFunctions(root, join(root, "src"));
    expect(
      lengthProblems(
        found,
        readAllowed().filter((entry) => entry.file.startsWith("src/")),
      ),
    ).toEqual([]);
  });

  test(`no function in scripts/ has a body over ${MAX_LINES} lines, apart from the allow-list`, () => {
    const found = longFunctions(root, join(root, "scripts"));
    expect(
      lengthProblems(
        found,
        readAllowed().filter((entry) => entry.file.startsWith("scripts/")),
      ),
    ).toEqual([]);
  });

  test("every allow-list entry gives a reason", () => {
    for (const entry of readAllowed()) expect(entry.reason.length, `${entry.file} ${entry.name}`).toBeGreaterThan(10);
  });

  describe("on a scratch copy", () => {
    const scratch = mkdtempSync(join(tmpdir(), "function-length-"));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    /** A function whose body spans exactly `lines` lines, its braces included. */
    const planted = (lines: number): string => {
      const statements = Array.from({ length: lines - 4 }, (_, i) => `  total += ${i};`);
      return [
        "export function planted(): number {",
        "  let total = 0;",
        ...statements,
        "  return total;",
        "}",
        "",
      ].join("\n");
    };
    const copy = (name: string, text: string): string => {
      const dir = join(scratch, name, "src", "bulk");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "planted.ts"), `// before\n\n${text}`);
      return join(scratch, name);
    };

    test("a planted function of 81 lines fails, named with its file, line and length; 80 lines pass", () => {
      const long = copy("long", planted(81));
      expect(lengthProblems(longFunctions(long, join(long, "src")), [])).toEqual([
        `src/bulk/planted.ts:3: function planted has a body of 81 lines (at most ${MAX_LINES}); split it into named steps, or allow it in test/unit/function-length.allow.json with a reason.`,
      ]);
      const fits = copy("fits", planted(80));
      expect(longFunctions(fits, join(fits, "src"))).toEqual([]);
    });

    test("arrows, methods and function expressions are measured too, by the name they are given", () => {
      const body = Array.from({ length: 81 }, (_, i) => `    void ${i};`).join("\n");
      const dir = copy(
        "kinds",
        [
          `export const arrow = () => {\n${body}\n};`,
          `export class Thing {\n  method(): void {\n${body}\n  }\n}`,
          `export const object = { step: function () {\n${body}\n} };`,
          "",
        ].join("\n"),
      );
      expect(longFunctions(dir, join(dir, "src")).map((fn) => `${fn.name}:${fn.lines}`)).toEqual([
        "arrow:83",
        "method:83",
        "step:83",
      ]);
    });

    test("an allow-listed long function passes; an entry that matches nothing fails", () => {
      const long = copy("allowed", planted(81));
      const found = longFunctions(long, join(long, "src"));
      expect(
        lengthProblems(found, [{ file: "src/bulk/planted.ts", name: "planted", reason: "a planted example" }]),
      ).toEqual([]);
      expect(
        lengthProblems(found, [
          { file: "src/bulk/planted.ts", name: "planted", reason: "a planted example" },
          { file: "src/bulk/gone.ts", name: "gone", reason: "split long ago" },
        ]),
      ).toEqual([
        `function-length.allow.json: src/bulk/gone.ts gone matches no function over ${MAX_LINES} lines; remove the entry.`,
      ]);
      const fits = copy("allowed-fits", planted(80));
      expect(
        lengthProblems(longFunctions(fits, join(fits, "src")), [
          { file: "src/bulk/planted.ts", name: "planted", reason: "a planted example" },
        ]),
      ).toEqual([
        `function-length.allow.json: src/bulk/planted.ts planted matches no function over ${MAX_LINES} lines; remove the entry.`,
      ]);
    });
  });
});
