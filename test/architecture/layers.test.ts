/**
 * The layers of docs/architecture.md, held over the import graph of src/, generated/ and
 * scripts/ (type-only imports included): no import against the direction, none of the main entry's
 * modules reached around the door, no cycle. And the check refuses each of those, planted in a
 * scratch copy, naming both files.
 */
import { appendFileSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fileKey } from "../../scripts/file-keys.js";
import { importGraph, layerProblems, projectRoot } from "./import-graph.js";

describe("the import graph of src/ and generated/", () => {
  it("reads one way, with no cycle", () => {
    expect(layerProblems(projectRoot)).toEqual([]);
  });

  it("holds type-only imports, the door by its name and generated/testing/", () => {
    const { edges } = importGraph(projectRoot);
    const has = (from: string, to: string) => edges.some((edge) => edge.from === from && edge.to === to);
    expect(has("generated/methods.ts", "src/core/call-types.ts")).toBe(true); // `import type`
    expect(has("src/bulk/run.ts", "src/shared.ts")).toBe(true); // `#shared`
    expect(has("src/testing/incoming.ts", "generated/testing/operations.ts")).toBe(true);
    expect(has("src/client/tables.ts", "src/client/operation-tables.ts")).toBe(true); // `import()`
  });

  it("keeps the precompiled validators free of src/: the client, the kit and the schemas entry all load them", () => {
    const { edges } = importGraph(projectRoot);
    expect(
      edges.filter((edge) => edge.from.startsWith("generated/validators/") && !edge.to.startsWith("generated/")),
    ).toEqual([]);
    const getUser = fileKey("getUser", "getUser");
    expect(
      edges.some(
        (edge) =>
          edge.from === `generated/testing/ops/${getUser}.ts` &&
          edge.to === `generated/validators/responses/${getUser}.ts`,
      ),
    ).toBe(true);
  });
});

describe("the import graph of scripts/", () => {
  it("holds the scripts, on floors above the package: the contract model, then the generators and the diff, then the bench", () => {
    const { edges } = importGraph(projectRoot);
    const has = (from: string, to: string) => edges.some((edge) => edge.from === from && edge.to === to);
    expect(has("scripts/generate.ts", "scripts/contract-model.ts")).toBe(true);
    expect(has("scripts/contract-model.ts", "src/core/http-methods.ts")).toBe(true);
    expect(has("scripts/method-names.ts", "scripts/operation-model.ts")).toBe(true); // `import type`
    expect(has("scripts/bench/mcp-tools.ts", "scripts/generate-mcp.ts")).toBe(true);
    expect(edges.some((edge) => edge.from.startsWith("src/") && edge.to.startsWith("scripts/"))).toBe(false);
  });
});

describe("on a scratch copy with a fault planted", () => {
  let scratch: string | undefined;
  const copy = (): string => {
    scratch = mkdtempSync(join(tmpdir(), "layers-"));
    for (const dir of ["src", "generated", "scripts"])
      cpSync(join(projectRoot, dir), join(scratch, dir), { recursive: true });
    return scratch;
  };
  const plant = (root: string, file: string, line: string) => appendFileSync(join(root, file), `\n${line}\n`);
  afterEach(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    scratch = undefined;
  });

  it("fails on a cycle, naming the files on it", () => {
    const root = copy();
    plant(root, "src/core/call-types.ts", 'import type { StoreAdminClient } from "./types.js";');
    const problems = layerProblems(root);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^import cycle: /);
    expect(problems[0]).toContain("src/core/call-types.ts");
    expect(problems[0]).toContain("src/core/types.ts");
  });

  it("fails on an import against the direction, type-only too, naming both files", () => {
    const root = copy();
    plant(root, "src/core/sleep.ts", 'import type { TokenSource } from "../client/auth.js";');
    expect(layerProblems(root)).toEqual([
      "src/core/sleep.ts imports src/client/auth.ts: the leaves (src/core/, generated/) may not import the client (src/client/), a floor above it",
    ]);
  });

  it("fails on a subsystem importing a sibling, or the core around the door", () => {
    const root = copy();
    plant(root, "src/mcp/result-size.ts", 'import { memoryLedger } from "../bulk/memory-ledger.js";');
    plant(root, "src/bulk/budget.ts", 'import { redact } from "../core/redact.js";');
    expect(layerProblems(root)).toEqual([
      'src/bulk/budget.ts imports src/core/redact.ts (../core/redact.js): the bulk runner (src/bulk/) takes the main entry\'s modules through the door, "#shared"',
      "src/mcp/result-size.ts imports src/bulk/memory-ledger.ts: the MCP server (src/mcp/) may not import the bulk runner (src/bulk/), beside it",
    ]);
  });

  it("fails on a cycle among the scripts, naming the files on it", () => {
    const root = copy();
    plant(root, "scripts/contract-json.ts", 'import type { ContractModel } from "./contract-model.js";');
    const problems = layerProblems(root);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^import cycle: /);
    expect(problems[0]).toContain("scripts/contract-json.ts");
    expect(problems[0]).toContain("scripts/contract-model.ts");
  });

  it("fails on a script importing a floor above it or beside it, naming both files", () => {
    const root = copy();
    plant(root, "scripts/contract-model.ts", 'import { GOAL_GZIP_BYTES } from "./size.js";');
    plant(root, "scripts/generate.ts", 'import { bumpOf } from "./contract-diff/kinds.js";');
    plant(root, "src/core/sleep.ts", 'import type { Json } from "../../scripts/contract-json.js";');
    expect(layerProblems(root)).toEqual([
      "src/core/sleep.ts imports scripts/contract-json.ts: the leaves (src/core/, generated/) may not import the contract model (scripts/), a floor above it",
      "scripts/contract-model.ts imports scripts/size.ts: the contract model (scripts/) may not import the build and the local tools (scripts/), a floor above it",
      "scripts/generate.ts imports scripts/contract-diff/kinds.ts: the generators (scripts/) may not import the contract diff (scripts/contract-diff*, scripts/release*), beside it",
    ]);
  });
});
