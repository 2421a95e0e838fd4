/**
 * The operation samples: `docs/samples/<operationId>.ts`, written for operations of the
 * contract (one without a file gets a sample generated from the contract). The docs build
 * (scripts/docs.ts) puts each into the rendered reference as its operation's `x-codeSamples`
 * entry; the contract holds no copy that could drift.
 *
 * All of them are type-checked against the built package, so a sample that rots (a renamed
 * field, a changed parameter) fails CI; deliberately broken copies prove the check catches
 * errors. Each sample also runs against the Prism mock, which validates its request.
 */
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { transform } from "esbuild";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { referenceCopy } from "../../scripts/docs.js";
import { SAMPLE_LANGUAGE, SAMPLES_DIR } from "../../scripts/facts.js";
import { contractModel, type ContractModel } from "../../scripts/contract-model.js";
import { loadContractFile } from "../../scripts/load-contract.js";
import { sampleSource, writtenSamples } from "../../scripts/samples.js";
import { describeRun, ensureBuilt, ROOT, run } from "../package/tarball.js";
import { formatDiagnostic, scratchDir, typecheck, type TypecheckResult } from "./typecheck.js";
import { HTTP_METHODS } from "../../src/core/http-methods.js";

const PRELOAD = join(ROOT, "test", "docs", "sample-preload.mjs");
/** Samples run in parallel, a few at a time, each in its own Node process. */
const RUN_CONCURRENCY = 4;

interface CodeSample {
  lang?: string;
  label?: string;
  source?: string;
}
interface Operation {
  operationId: string;
  key: string;
  /** `x-codeSamples` of the operation: in the contract (none) or in the docs build's copy. */
  codeSamples: CodeSample[];
}

/**
 * Deliberate type errors, each in a copy of a real sample: the check must report an error
 * on the changed line (`code` is what TypeScript 5.9 reports, shown when it does not).
 */
const BREAKAGES = [
  {
    sample: "getUser.ts",
    find: "retrieve(42)",
    replace: 'retrieve("42")',
    code: "TS2345",
    what: "a string where an id is a number",
  },
  {
    sample: "updateGiftCard.ts",
    find: "user: 42",
    replace: "owner: 42",
    code: "TS2353",
    what: "a field the body does not have",
  },
  {
    sample: "listGiftCards.ts",
    find: 'status: "active"',
    replace: 'status: "archived"',
    code: "TS2322",
    what: "a value outside an enum",
  },
  {
    sample: "getGateway.ts",
    find: "gateway.gateway_type",
    replace: "gateway.gatewayType",
    code: "TS2551",
    what: "a misspelt response field",
  },
] as const;

let operations: Operation[];
/** The same contract as the generators read it. */
let model: ContractModel;
/** The operations of the copy that scripts/docs.ts renders. */
let rendered: Operation[];
let sampleFiles: string[];
let scratch: string;
let broken: Array<(typeof BREAKAGES)[number] & { file: string; line: number }>;
let checked: TypecheckResult;

function operationsOf(spec: { paths?: Record<string, Record<string, unknown>> }): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item[method] as { operationId?: string; "x-codeSamples"?: CodeSample[] } | undefined;
      if (!operation) continue;
      if (!operation.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      found.push({
        operationId: operation.operationId,
        key: `${method.toUpperCase()} ${path}`,
        codeSamples: operation["x-codeSamples"] ?? [],
      });
    }
  }
  return found;
}

beforeAll(async () => {
  // The contract the mock serves: openapi/store-admin.yaml, or a draft given as PRISM_SPEC.
  operations = operationsOf(parse(await readFile(inject("prismSpecPath"), "utf8")));
  model = contractModel(loadContractFile(inject("prismSpecPath")));
  rendered = operationsOf((await referenceCopy(inject("prismSpecPath"))) as Parameters<typeof operationsOf>[0]);
  sampleFiles = (await readdir(SAMPLES_DIR))
    .filter((name) => name.endsWith(".ts"))
    .sort()
    .map((name) => join(SAMPLES_DIR, name));

  // One tsc run for everything: the samples and the broken copies (a scratch directory inside
  // the project, so that their `store-admin-sdk` import resolves the same way).
  scratch = await scratchDir("samples");
  broken = [];
  for (const breakage of BREAKAGES) {
    const source = await readFile(join(SAMPLES_DIR, breakage.sample), "utf8");
    const index = source.indexOf(breakage.find);
    if (index < 0)
      throw new Error(
        `docs/samples/${breakage.sample} no longer contains ${JSON.stringify(breakage.find)}: update BREAKAGES`,
      );
    const file = join(scratch, `broken-${breakage.sample}`);
    await writeFile(file, source.slice(0, index) + breakage.replace + source.slice(index + breakage.find.length));
    broken.push({ ...breakage, file, line: source.slice(0, index).split("\n").length });
  }
  checked = await typecheck([...sampleFiles, ...broken.map((copy) => copy.file)]);
}, 300_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("operation samples", () => {
  it("are each of an operation of the contract, one file per operationId", () => {
    const expected = operations.map((operation) => `${operation.operationId}.ts`).sort();
    const actual = sampleFiles.map((file) => basename(file)).sort();
    expect(
      actual.filter((name) => !expected.includes(name)),
      "samples of no operation",
    ).toEqual([]);
    expect(
      operations.map((operation) => operation.key),
      "the operations this test reads",
    ).toEqual(model.operations.map((op) => op.key));
  });

  it("are in the rendered reference, each as its operation's only code sample, word for word, and not in the contract", async () => {
    expect(
      operations.filter((operation) => operation.codeSamples.length > 0).map((operation) => operation.key),
      "x-codeSamples in the contract: the docs build injects docs/samples/ instead (no copy to drift)",
    ).toEqual([]);
    expect(rendered.map((operation) => operation.key)).toEqual(operations.map((operation) => operation.key));
    const problems: string[] = [];
    const written = await writtenSamples(pathToFileURL(SAMPLES_DIR + "/"));
    for (const operation of rendered) {
      const op = model.operations.find((candidate) => candidate.key === operation.key)!;
      const file = sampleSource(written, model, op);
      const expected = [{ lang: SAMPLE_LANGUAGE, label: SAMPLE_LANGUAGE, source: file.trimEnd() + "\n" }];
      if (JSON.stringify(operation.codeSamples) !== JSON.stringify(expected)) {
        problems.push(
          `${operation.key} (${operation.operationId}): ${JSON.stringify(operation.codeSamples).slice(0, 200)}`,
        );
      }
    }
    expect(
      problems,
      "the page's x-codeSamples must be docs/samples/<operationId>.ts, else the generated sample",
    ).toEqual([]);
  });

  it("win over a generated one; an operation without its sample file shows one generated from the contract", async () => {
    const draft = join(scratch, "draft-without-sample.yaml");
    const source = await readFile(inject("prismSpecPath"), "utf8");
    await writeFile(draft, source.replace("operationId: getGateway", "operationId: getGatewayWithoutSample"));
    const copy = (await referenceCopy(draft)) as {
      paths: Record<string, Record<string, { "x-codeSamples": Array<{ source: string }> }>>;
    };
    const generated = copy.paths["/gateways/{id}/"]!.get!["x-codeSamples"][0]!.source;
    expect(generated).toContain('import { createStoreAdminClient } from "store-admin-sdk";');
    expect(generated).toMatch(/const result = await store\.gateways\.retrieve\(\d+\);/);
    const written = await readFile(join(SAMPLES_DIR, "getUser.ts"), "utf8");
    expect(copy.paths["/users/{id}/"]!.get!["x-codeSamples"][0]!.source).toBe(written.trimEnd() + "\n");
  });

  it("each use the SDK: they import from store-admin-sdk and create a client", async () => {
    const missing: string[] = [];
    for (const file of sampleFiles) {
      const source = await readFile(file, "utf8");
      if (!/from "store-admin-sdk";/.test(source) || !source.includes("createStoreAdminClient("))
        missing.push(basename(file));
    }
    expect(missing).toEqual([]);
  });

  it("all type-check against the built package", () => {
    const sampleErrors = checked.diagnostics.filter((diagnostic) => diagnostic.file.startsWith(SAMPLES_DIR));
    expect(sampleErrors.map((diagnostic) => formatDiagnostic(diagnostic))).toEqual([]);
    // Nothing else may fail either (a broken tsconfig, a missing dist/): only the deliberate errors below.
    const elsewhere = checked.diagnostics.filter((diagnostic) => !broken.some((copy) => copy.file === diagnostic.file));
    expect(elsewhere.map((diagnostic) => formatDiagnostic(diagnostic))).toEqual([]);
  });

  it("fail the check when they contain a type error (a deliberately broken copy of each of 4 samples)", () => {
    expect(checked.exitCode, checked.output).not.toBe(0);
    for (const copy of broken) {
      const reported = checked.diagnostics.filter((diagnostic) => diagnostic.file === copy.file);
      expect(
        reported.map((diagnostic) => diagnostic.line),
        `${copy.what} (${copy.code}) in a copy of ${copy.sample}, line ${copy.line}; reported: ${reported.map((d) => formatDiagnostic(d)).join("; ") || "nothing"}`,
      ).toContain(copy.line);
    }
  });

  it("all run against the Prism mock without an HTTP error", async () => {
    await ensureBuilt();
    // Types stripped by esbuild (as tsx would), written next to the broken copies so that
    // `store-admin-sdk` still resolves to this package; then plain Node runs each one.
    const runDir = join(scratch, "run");
    await mkdir(runDir, { recursive: true });
    const scripts: string[] = [];
    for (const file of sampleFiles) {
      const { code } = await transform(await readFile(file, "utf8"), {
        loader: "ts",
        format: "esm",
        target: "es2022",
        sourcefile: file,
      });
      const script = join(runDir, basename(file).replace(/\.ts$/, ".mjs"));
      await writeFile(script, code);
      scripts.push(script);
    }
    const env = {
      ...process.env,
      STORE_TOKEN: "sample-test-token",
      SAMPLE_MOCK_URL: inject("prismUrl"),
      NO_COLOR: "1",
    };
    const queue = [...scripts];
    const failures: string[] = [];
    let ran = 0;
    await Promise.all(
      Array.from({ length: RUN_CONCURRENCY }, async () => {
        for (let script = queue.shift(); script !== undefined; script = queue.shift()) {
          const result = await run(process.execPath, ["--import", pathToFileURL(PRELOAD).href, script], {
            env,
            timeoutMs: 60_000,
          });
          ran += 1;
          if (result.code !== 0) failures.push(describeRun(`docs/samples/${basename(script, ".mjs")}.ts`, result));
        }
      }),
    );
    expect(ran).toBe(sampleFiles.length);
    expect(failures).toEqual([]);
  }, 300_000);
});
