/**
 * Every example a tool shows works where it is shown: each TypeScript example of code mode's
 * `search_docs` (generated/code-mode-docs.ts) type-checks against the sandbox's declarations, for
 * our contract and the kitchen sink's (test/kitchen-sink/); the SDK's error classes the examples
 * catch are declared and defined in the sandbox; and every JSON example `describe_operation`
 * shows passes `validate_call`, for both contracts (the kitchen sink's in a copy of the project
 * generated for it, with its own tools and validators). Each list is the contract's operations.
 */
import { cp, mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeModeParts } from "../../scripts/generate-code-mode.js";
import { contractModel } from "../../scripts/contract-model.js";
import { loadContractFile } from "../../scripts/load-contract.js";
import { KITCHEN_SINK_PATH as KITCHEN_SINK } from "../../scripts/facts.js";
import { codeModeDocs } from "../../generated/code-mode-docs.js";
import { mcpTools } from "../../generated/mcp-tools.js";
import { createStoreAdminMcpServer } from "../../src/mcp/index.js";
import { loadTypeScript, snippetChecker } from "../../src/mcp/code/typecheck.js";
import { loadQuickJS, runInSandbox } from "../../src/mcp/code/sandbox.js";
import { prelude } from "../../src/mcp/code/prelude.js";
import { describeRun, ROOT, run } from "../package/tarball.js";
import { exampleVerdicts, type ExampleVerdict } from "./json-examples.js";

const ts = await loadTypeScript();
const OURS = join(ROOT, "openapi", "store-admin.yaml");
/** Each contract's operation methods, in the contract's order: the lists every check must cover. */
const methodsOf = (contract: string) => contractModel(loadContractFile(contract)).operations.map((op) => op.methodName);

/** Each example that does not type-check, with its errors. */
function failing(
  docs: ReadonlyArray<readonly [string, string, string]>,
  declarations?: Readonly<Record<string, string>>,
): string[] {
  const checker = snippetChecker(ts, declarations);
  const failures: string[] = [];
  for (const [name, , example] of docs) {
    const outcome = checker.check(example);
    if (!outcome.ok)
      failures.push(
        `${name}: ${outcome.errors.map((e) => `${e.line}:${e.column} TS${e.code} ${e.message}`).join("; ")}`,
      );
  }
  return failures;
}

describe("search_docs' TypeScript examples", () => {
  it("every one of our contract's type-checks in the sandbox", () => {
    expect(codeModeDocs.map(([name]) => name)).toEqual(methodsOf(OURS));
    expect(codeModeDocs.some(([, , example]) => example.includes("instanceof NotFoundError"))).toBe(true);
    expect(failing(codeModeDocs)).toEqual([]);
  });

  it("every one of the kitchen sink's type-checks against its own declarations", async () => {
    const { files, docs } = await codeModeParts(loadContractFile(KITCHEN_SINK));
    expect(docs.map(([name]) => name)).toEqual(methodsOf(KITCHEN_SINK));
    expect(failing(docs, files)).toEqual([]);
  }, 120_000);

  it("show a file as the JSON the sandbox takes, never a Blob or a File", async () => {
    const { docs } = await codeModeParts(loadContractFile(KITCHEN_SINK));
    for (const examples of [codeModeDocs, docs]) {
      // Each contract has an operation whose body takes a file.
      expect(examples.filter(([, , example]) => /\bbase64: "/.test(example)).length).toBeGreaterThan(0);
      expect(examples.filter(([, , example]) => /new (Blob|File)\(/.test(example)).map(([name]) => name)).toEqual([]);
    }
  }, 120_000);

  it("the error classes they catch are the ones a failed call throws in the sandbox", async () => {
    const code = `async function __codeModeMain() {
      try { await store.users.retrieve(404); return "no error"; }
      catch (error) { return [error instanceof NotFoundError, error instanceof ApiError, error instanceof StoreAdminError, error instanceof Error, error.name, error.status]; }
    }`;
    const outcome = await runInSandbox(
      await loadQuickJS(),
      code,
      async () => ({ error: { name: "NotFoundError", message: "Not found.", status: 404 } }),
      { cpuMs: 10_000, memoryBytes: 32 * 1024 * 1024, stackBytes: 256 * 1024, logChars: 1_000 },
    );
    expect(prelude()).toContain("NotFoundError");
    expect(outcome.error).toBeUndefined();
    expect(JSON.parse(outcome.value!)).toEqual([true, true, true, true, "NotFoundError", 404]);
  }, 60_000);
});

describe("describe_operation's JSON examples", () => {
  let scratch: string | undefined;
  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  /** The verdicts, or why they could not be had; every operation of the contract valid. */
  const expectAllValid = (verdicts: ExampleVerdict[], contract: string) => {
    expect(verdicts.map((v) => v.method)).toEqual(methodsOf(contract));
    expect(
      verdicts.filter((v) => !v.valid).map((v) => `${v.method} ${JSON.stringify(v.example)}: ${v.problem}`),
    ).toEqual([]);
  };

  it("every one of our contract's passes validate_call", async () => {
    expectAllValid(await exampleVerdicts({ createStoreAdminMcpServer, rows: mcpTools }), OURS);
  }, 120_000);

  describe("the kitchen sink's", () => {
    let verdicts: ExampleVerdict[] | undefined;
    let failure: string | undefined;
    beforeAll(async () => {
      // A copy of the project generated for the kitchen sink: its tools, its client, its validators.
      scratch = await mkdtemp(join(tmpdir(), "store-admin-json-examples-"));
      for (const name of ["src", "scripts", "package.json", "tsconfig.json"])
        await cp(join(ROOT, name), join(scratch, name), { recursive: true });
      await symlink(join(ROOT, "node_modules"), join(scratch, "node_modules"));
      await mkdir(join(scratch, "openapi"));
      await cp(KITCHEN_SINK, join(scratch, "openapi", "store-admin.yaml"));
      const tsx = (...args: string[]) =>
        run(process.execPath, ["--import", "tsx", ...args], { cwd: scratch, timeoutMs: 300_000 });
      for (const generator of ["generate", "generate-testing", "generate-mcp", "generate-code-mode"]) {
        const generated = await tsx(`scripts/${generator}.ts`);
        if (generated.code !== 0) return void (failure = describeRun(generator, generated));
      }
      const checked = await tsx(fileURLToPath(new URL("./json-examples.ts", import.meta.url)), scratch);
      if (checked.code !== 0) return void (failure = describeRun("json-examples.ts", checked));
      verdicts = JSON.parse(checked.stdout.trim().split("\n").at(-1)!) as ExampleVerdict[];
    }, 600_000);

    it("every one passes validate_call, checked by the kitchen sink's own validators", () => {
      expect(failure).toBeUndefined();
      expectAllValid(verdicts!, KITCHEN_SINK);
      // The kitchen sink's own: a file field as { filename, base64 }, an operation ours does not have.
      expect(verdicts!.find((v) => v.method === "uploads.create")?.example).toMatchObject({
        arguments: { body: { file: { filename: expect.any(String), base64: expect.any(String) } } },
      });
    });
  });
});
