/**
 * What each operation of the contract costs at start, on synthetic contracts of this API's
 * style (scripts/bench/synthetic-contract.ts) of 20 and 1,000 operations, each generated and
 * built in a copy of the project (scripts/bench/synthetic-build.ts, kept under `.cache/` by a
 * hash of its sources, so the 1,000-operation case is built once and reused):
 *
 * - the main entry's code loaded at start grows by at most 6 B min+gz per operation (the
 *   per-operation tables load on the first call);
 * - the testing entry's code loaded at start grows by at most 40 B per operation (each
 *   operation's validators and examples load on its first request);
 * - nothing in the built testing kit compiles code at run time (Workers refuse it).
 */
import { describe, expect, it, beforeAll } from "vitest";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { syntheticBuild, perOperation, type SyntheticFigures } from "../scripts/bench/synthetic-build.js";
import figures from "../figures.json" with { type: "json" };
import { syntheticContract } from "../scripts/bench/synthetic-contract.js";
import { CONTRACT_PATH } from "../scripts/facts.js";

const MAIN_PER_OPERATION = figures.mainEntry.perOperationGzipBytes;
const TESTING_PER_OPERATION = 40;

let small: SyntheticFigures;
let large: SyntheticFigures;

beforeAll(async () => {
  small = await syntheticBuild(20);
  large = await syntheticBuild(1000);
}, 600_000);

describe("cost per operation (synthetic contracts of 20 and 1,000 operations)", () => {
  it("the synthetic contract is of this API's style, and the same for the same seed", () => {
    const base = readFileSync(CONTRACT_PATH, "utf8");
    const contract = syntheticContract(200, base);
    expect(contract.yaml).toBe(syntheticContract(200, base).yaml);
    const doc = parse(contract.yaml) as {
      paths: Record<string, Record<string, { "x-sdk-method": string; security: unknown[] }>>;
    };
    const operations = Object.values(doc.paths).flatMap((item) =>
      Object.entries(item)
        .filter(([key]) => key !== "parameters")
        .map(([, op]) => op),
    );
    expect(operations).toHaveLength(200);
    const names = operations.map((op) => op["x-sdk-method"]);
    expect(new Set(names).size).toBe(200);
    // Words, nested resources and actions, not `r1.list`.
    expect(names.filter((name) => name.split(".").length === 3).length).toBeGreaterThan(20);
    expect(names.every((name) => /^[a-z]+[A-Za-z]*(\.[a-z][A-Za-z]*)+$/.test(name))).toBe(true);
    expect(operations.every((op) => op.security.length === 1)).toBe(true);
  });

  it(`the main entry's code loaded at start grows by at most ${MAIN_PER_OPERATION} B min+gz per operation`, () => {
    const growth = perOperation(small, large, (f) => f.main.gzipBytes);
    console.info(
      `[size] main entry at start: ${small.main.gzipBytes} B (20) → ${large.main.gzipBytes} B (1,000): ${growth.toFixed(1)} B per operation`,
    );
    // The tables are measured, only later: what the first call loads grows with the contract.
    expect(large.main.lazyGzipBytes - small.main.lazyGzipBytes).toBeGreaterThan(980 * 5);
    expect(growth).toBeGreaterThan(0);
    expect(growth).toBeLessThanOrEqual(MAIN_PER_OPERATION);
  });

  it(`the testing entry's code loaded at start grows by at most ${TESTING_PER_OPERATION} B min+gz per operation`, () => {
    const growth = perOperation(small, large, (f) => f.testing.gzipBytes);
    console.info(
      `[size] testing entry at start: ${small.testing.gzipBytes} B (20) → ${large.testing.gzipBytes} B (1,000): ${growth.toFixed(1)} B per operation`,
    );
    // The validators are built and measured: they load per operation, on its first request.
    expect(large.testing.lazyGzipBytes - small.testing.lazyGzipBytes).toBeGreaterThan(980 * 200);
    expect(growth).toBeLessThanOrEqual(TESTING_PER_OPERATION);
  });

  it("the built testing kit compiles nothing at run time (no `new Function`, no `eval`)", () => {
    expect(large.runtimeCompiled).toEqual([]);
    expect(small.runtimeCompiled).toEqual([]);
  });
});
