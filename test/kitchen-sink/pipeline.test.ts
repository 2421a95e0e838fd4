/**
 * The whole pipeline on a contract that is not ours: test/kitchen-sink/kitchen-sink.yaml holds
 * every construct the generators must serve beyond what openapi/store-admin.yaml happens to
 * use (responses without content, 0, 2 and alternative scopes, `security: []`, JSON + form +
 * multipart bodies, the version header declared inline, a schema shared by request and
 * response with read-only and write-only fields, schema names that are no identifiers,
 * operations without summary, x-sdk-method or sample, responses without examples, query plus
 * body, a cursor list).
 *
 * Run once for all the assertions below, in a copy of the project whose contract is the
 * kitchen sink: `npm run generate`, `npm run build` (which lints the contract and checks
 * generated/), `npm pack`, a consumer that installs the tarball and compiles its calls and
 * every generated sample under TypeScript 5.9 and 7, then calls every operation through the
 * testing kit and through Prism serving the same contract.
 */
import { cp, mkdir, readFile, rm, symlink, writeFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { contractModel } from "../../scripts/contract-model.js";
import { referenceCopy } from "../../scripts/docs.js";
import { startMock, type MockServer } from "../../scripts/mock.js";
import { generatedSample, isPaginated } from "../../scripts/samples.js";
import {
  describeRun,
  npmEnv,
  pinnedVersion,
  ROOT,
  run,
  runOrThrow,
  TSC,
  TSC7,
  type RunResult,
} from "../package/tarball.js";
import { methodReturnTypes, type MethodReturn } from "./return-types.js";
import { KITCHEN_SINK_PATH } from "../../scripts/facts.js";

const HERE = fileURLToPath(new URL("./", import.meta.url));
const CONTRACT = KITCHEN_SINK_PATH;

/** What of the project a build needs: copied, so that every path resolves inside the copy. */
const COPIED = [
  "src",
  "scripts",
  "package.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "README.md",
  "CHANGELOG.md",
  "LICENSE",
];

let scratch: string;
let consumer: string;
let prism: MockServer | undefined;
const results: {
  generate?: RunResult;
  build?: RunResult;
  compile?: Record<"typescript" | "typescript7", RunResult>;
  kit?: Record<string, any>;
  prism?: Record<string, any>;
  returns?: MethodReturn[];
  methods?: string;
} = {};

/** `npm run <script>` in the copy, without what the `npm test` running this exported about this project. */
const npmRun = (script: string) => run("npm", ["run", script], { cwd: scratch, env: npmEnv(), timeoutMs: 600_000 });

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "store-admin-kitchen-sink-"));
  for (const name of COPIED) await cp(join(ROOT, name), join(scratch, name), { recursive: true });
  await symlink(join(ROOT, "node_modules"), join(scratch, "node_modules"));
  await mkdir(join(scratch, "openapi"));
  await mkdir(join(scratch, "docs"));
  await cp(CONTRACT, join(scratch, "openapi", "store-admin.yaml"));
  await cp(join(HERE, "redocly.yaml"), join(scratch, "openapi", "redocly.yaml"));
  for (const doc of ["reference-intro.md", "guide.md", "architecture.md"])
    await cp(join(ROOT, "docs", doc), join(scratch, "docs", doc));

  // The generators, without `npm run generate`'s last step (scripts/docs-code.ts): that compiles
  // the project's own guide and README, written for our contract, not for the kitchen sink.
  // (scripts/doc-figures.ts writes the copied guide's table of methods for the kitchen sink.)
  results.generate = await run(
    "sh",
    [
      "-c",
      "npx tsx scripts/generate.ts && npx tsx scripts/generate-testing.ts && npx tsx scripts/generate-mcp.ts && npx tsx scripts/generate-code-mode.ts && npx tsx scripts/doc-figures.ts",
    ],
    { cwd: scratch, env: npmEnv(), timeoutMs: 600_000 },
  );
  if (results.generate.code !== 0) return;
  results.methods = await readFile(join(scratch, "generated", "methods.ts"), "utf8");
  results.returns = methodReturnTypes(join(scratch, "generated", "methods.ts"));
  results.build = await npmRun("build");
  if (results.build.code !== 0) return;

  consumer = join(scratch, "consumer");
  await mkdir(join(consumer, "samples"), { recursive: true });
  const packed = await runOrThrow("npm pack", "npm", ["pack", "--json", "--pack-destination", consumer], {
    cwd: scratch,
    env: npmEnv(),
  });
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
  await writeFile(
    join(consumer, "package.json"),
    JSON.stringify({ name: "kitchen-sink-consumer", private: true, type: "module" }, null, 2),
  );
  await runOrThrow(
    "npm install",
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--no-package-lock",
      join(consumer, filename),
      `@types/node@${await pinnedVersion("@types/node")}`,
    ],
    {
      cwd: consumer,
      env: npmEnv(),
      timeoutMs: 300_000,
    },
  );
  await cp(join(HERE, "consumer"), consumer, { recursive: true });
  // Every generated sample, as the reference and the JSDoc show it.
  const model = contractModel(parse(await readFile(CONTRACT, "utf8")) as Record<string, unknown>);
  for (const op of model.operations)
    await writeFile(
      join(consumer, "samples", `${op.operationId}.ts`),
      generatedSample(model, op, isPaginated(model, op)),
    );

  const tsc = (compiler: string) =>
    run(process.execPath, [compiler, "-p", "tsconfig.json", "--pretty", "false"], {
      cwd: consumer,
      timeoutMs: 300_000,
    });
  const [five, seven] = await Promise.all([tsc(TSC), tsc(TSC7)]);
  results.compile = { typescript: five!, typescript7: seven! };

  const calls = async (target: string) => {
    const result = await run(process.execPath, ["run.mjs", target], { cwd: consumer, timeoutMs: 120_000 });
    if (result.code !== 0) throw new Error(describeRun(`node run.mjs ${target}`, result));
    return JSON.parse(result.stdout.trim().split("\n").at(-1)!) as Record<string, any>;
  };
  results.kit = await calls("kit");
  prism = await startMock({ specPath: join(scratch, "openapi", "store-admin.yaml") });
  results.prism = await calls(prism.url);
}, 900_000);

afterAll(async () => {
  await prism?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("the kitchen-sink contract through the whole pipeline", () => {
  it("generates, lints and builds, with no note about an earlier naming rule", () => {
    expect(results.generate?.code, results.generate && describeRun("npm run generate", results.generate)).toBe(0);
    expect(results.generate!.stdout).not.toMatch(/former rule|→/);
    expect(results.build?.code, results.build && describeRun("npm run build", results.build)).toBe(0);
  });

  it("never returns any, resolves to void without content, and prints no `undefined` in the docs", () => {
    expect(results.returns?.length).toBe(10);
    expect(results.returns!.filter((r) => r.isAny).map((r) => `${r.name}: ${r.text}`)).toEqual([]);
    const of = (name: string) => results.returns!.find((r) => r.name === name)?.text;
    expect(of("widgets.delete")).toBe("ResponsePromise<void>");
    expect(of("widgets.rebuild")).toBe("ResponsePromise<void>");
    expect(of("products.retrieve")).toBe("ResponsePromise<Product>");
    expect(results.methods).not.toMatch(/undefined\./);
    expect(results.methods).toContain(
      "Requires the scopes `widgets:write` and `audit:write`. `POST /widgets/` (`createWidget`).",
    );
    expect(results.methods).toContain(
      "Requires the scope `widgets:read` or `admin`. `GET /widgets/{id}/` (`getWidget`).",
    );
    expect(results.methods).toContain(
      "Requires an access token (no scope). `POST /widgets/{id}/rebuild/` (`rebuildWidget`).",
    );
    expect(results.methods).toContain("Requires no authentication. `GET /status/` (`get-status`).");
  });

  for (const compiler of ["typescript", "typescript7"] as const) {
    it(`a consumer of the tarball compiles its calls and every generated sample under ${compiler}, refusing what it must`, () => {
      const result = results.compile?.[compiler];
      expect(result?.code, result && describeRun(`${compiler} tsc`, result)).toBe(0);
    });
  }

  it("calls every operation through the testing kit, in the media type the contract offers", () => {
    const kit = results.kit!;
    expect(kit.created).toMatchObject({ id: expect.any(Number), name: expect.any(String) });
    expect(kit.created).not.toHaveProperty("secret");
    expect(kit.widget).toEqual({ id: 7, name: "Sprocket", created_at: "2030-01-01T00:00:00Z", tags: ["small"] });
    expect([kit.deleted, kit.rebuilt, kit.pathStyleData]).toEqual(["(undefined)", "(undefined)", "(undefined)"]);
    expect(kit.commentJson).toEqual({ sku: "comment", quantity: 1 });
    expect(kit.preferences).toEqual({ colour: "red" });
    expect(kit.upload).toEqual({ id: 1 });
    expect(kit.product).toEqual({ title: "example", lines: [] });
    expect(kit.status).toEqual({ ok: false });
    expect(kit.listed).toEqual([]);
    const sent = Object.fromEntries(
      kit.requests.map((r: { operation: string; contentType: string; status: number }, i: number) => [
        `${i} ${r.operation}`,
        `${r.contentType} ${r.status}`,
      ]),
    );
    expect(sent).toEqual({
      "0 POST /widgets/": "application/json 201",
      "1 GET /widgets/{id}/": " 200",
      "2 DELETE /widgets/{id}/": " 204",
      "3 POST /widgets/{id}/rebuild/": " 202",
      "4 POST /widgets/{id}/comments/": "application/json 201",
      "5 POST /widgets/{id}/comments/": "multipart/form-data 201",
      "6 PUT /preferences/": "application/x-www-form-urlencoded 200",
      "7 POST /uploads/": "multipart/form-data 201",
      "8 GET /products/{sku}/": " 200",
      "9 GET /status/": " 200",
      "10 DELETE /widgets/{id}/": " 204",
      "11 GET /widgets/": " 200",
    });
    expect(kit.forbidden).toEqual({
      name: "PermissionDeniedError",
      message: expect.stringContaining(
        'The access token lacks the scopes this operation requires ("widgets:write" and "audit:write")',
      ),
      scope: null,
      requiredScopes: [["widgets:write", "audit:write"]],
    });
  });

  it("renders in the reference with a generated sample per operation and its version header said to be set by the SDK", async () => {
    const copy = (await referenceCopy(CONTRACT)) as Record<string, any>;
    const model = contractModel(parse(await readFile(CONTRACT, "utf8")) as Record<string, unknown>);
    for (const op of model.operations) {
      const operation = copy.paths[op.path][op.method];
      expect(operation["x-codeSamples"][0].source, op.key).toContain(`store.${op.methodName}(`);
      const header = operation.parameters.find((p: { in: string }) => p.in === "header");
      expect(header.description, op.key).toMatch(/^\*\*Set by the SDK:\*\* the client sends this header/);
    }
  });

  it("calls every operation through Prism serving the same contract", () => {
    const served = results.prism!;
    const failed = Object.entries(served).filter(
      ([, value]) => value !== null && typeof value === "object" && "error" in value,
    );
    expect(failed).toEqual([]);
    expect([served.deleted, served.rebuilt, served.pathStyleData]).toEqual([
      "(undefined)",
      "(undefined)",
      "(undefined)",
    ]);
    expect(served.widget).toMatchObject({ id: 7, name: "Sprocket" });
    expect(served.commentJson).toEqual({ sku: "comment", quantity: 1 });
  });
});
