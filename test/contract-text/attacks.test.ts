/**
 * Contract text is data, never code: four contracts an attacker could write (each one passing
 * Redocly's `recommended-strict` lint before the loader refused them), each put through
 * `npm run generate && npm run build` in a copy of the project, and what was built imported.
 *
 * 1. A header name that closes a doc comment and calls `process.stdout.write` at import.
 * 2. An operationId that climbs out of docs/samples/ to /proc/self/environ: the generator's
 *    environment would be the method's `@example`, in the published declarations.
 * 3. An operationId with a line break: the rest of it a statement (a computed key) of
 *    generated/operation-facts.ts, run by whatever loads that file.
 * 4. A property and an example key `__proto__`: a JSON object written as an object literal
 *    loses that key (it sets the prototype).
 *
 * 1 to 3 are refused by the loader, naming the JSON pointer; 4 builds, and the key arrives.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { describeRun, npmEnv, ROOT, run } from "../package/tarball.js";

/** What of the project `npm run generate` and `npm run build` need. */
const COPIED = [
  "src",
  "scripts",
  "openapi",
  "docs",
  "package.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "README.md",
  "CHANGELOG.md",
  "LICENSE",
];
/** A value only the generator's environment holds: it must reach no generated or built file. */
const CANARY = `canary-${process.pid}-${Date.now()}`;

const scratches: string[] = [];
afterAll(async () => {
  for (const dir of scratches) await rm(dir, { recursive: true, force: true });
});

/** A copy of the project whose contract is ours with `replace` applied (each `[find, replacement]` must match). */
async function copyWith(replace: Array<[string, string]>): Promise<string> {
  const scratch = await mkdtemp(join(tmpdir(), "store-admin-contract-text-"));
  scratches.push(scratch);
  for (const name of COPIED)
    await cp(join(ROOT, name), join(scratch, name), {
      recursive: true,
      filter: (source) => source !== join(ROOT, "docs", "reference"),
    });
  await symlink(join(ROOT, "node_modules"), join(scratch, "node_modules"));
  let contract = await readFile(join(ROOT, "openapi", "store-admin.yaml"), "utf8");
  for (const [find, replacement] of replace) {
    if (!contract.includes(find))
      throw new Error(`The contract no longer holds ${JSON.stringify(find)}: update this test.`);
    contract = contract.replace(find, () => replacement);
  }
  await writeFile(join(scratch, "openapi", "store-admin.yaml"), contract);
  return scratch;
}

/** Lets the lint accept an example key `__proto__`: Redocly's own example check loses that property of the schema, and says the key is not allowed. */
async function lintAllowingProtoExamples(scratch: string): Promise<void> {
  const config = join(scratch, "openapi", "redocly.yaml");
  await writeFile(
    config,
    `${await readFile(config, "utf8")}  no-invalid-media-type-examples: { severity: error, allowAdditionalProperties: true }\n`,
  );
}

const npmRun = (scratch: string, script: string) =>
  run("npm", ["run", script], { cwd: scratch, env: { ...npmEnv(), STORE_ADMIN_CANARY: CANARY }, timeoutMs: 600_000 });

/** Every file under `dir` (generated/, dist/), with its text. */
async function filesUnder(dir: string): Promise<Array<[string, string]>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return Promise.all(
    entries
      .filter((e) => e.isFile())
      .map(
        async (e) =>
          [join(e.parentPath, e.name), await readFile(join(e.parentPath, e.name), "utf8")] as [string, string],
      ),
  );
}

/** Runs ES module code in the copy, with this Node (TypeScript files through tsx). */
const node = (scratch: string, code: string) =>
  run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    cwd: scratch,
    env: { ...process.env, TSX_TSCONFIG_PATH: join(scratch, "tsconfig.json") },
  });

/**
 * Generates and, when that succeeds, builds and imports the package and generated/operation-facts.ts.
 * Resolves to what each step printed; a refusal at `generate` is the expected outcome for 1 to 3.
 */
async function generateBuildImport(scratch: string) {
  const generate = await npmRun(scratch, "generate");
  if (generate.code !== 0) return { generate };
  const build = await npmRun(scratch, "build");
  const imported = await node(
    scratch,
    `await import("./dist/src/index.js"); await import("./generated/operation-facts.ts"); console.log("imported");`,
  );
  return { generate, build, imported };
}

describe("contract text that would run as code or read files", () => {
  it("1. a header name holding `*/`: refused by its JSON pointer, before anything is generated", async () => {
    const scratch = await copyWith([
      [
        "      name: X-Store-API-Version\n",
        `      name: 'X-Store-API-Version */ void globalThis.process?.stdout?.write("PWNED1\\n"); /*'\n`,
      ],
    ]);
    const { generate, build, imported } = await generateBuildImport(scratch);
    expect(imported?.stdout ?? "", build ? describeRun("build", build) : "").not.toContain("PWNED1");
    expect(generate.code, describeRun("generate", generate)).toBe(1);
    expect(generate.stderr).toContain(
      '#/components/parameters/ApiVersion/name: the header name "X-Store-API-Version */ void',
    );
    expect(generate.stderr).toContain("is not an HTTP token (RFC 9110");
  }, 600_000);

  it("2. an operationId climbing out of docs/samples/: refused, and the environment reaches no file", async () => {
    const climb = `${"../".repeat(24)}proc/self/environ#`;
    const scratch = await copyWith([["      operationId: getUser\n", `      operationId: "${climb}"\n`]]);
    const { generate } = await generateBuildImport(scratch);
    for (const [file, text] of [
      ...(await filesUnder(join(scratch, "generated"))),
      ...(await filesUnder(join(scratch, "dist"))),
    ]) {
      expect(text.includes(CANARY), `${file} holds the generator's environment`).toBe(false);
    }
    expect(generate.code, describeRun("generate", generate)).toBe(1);
    expect(generate.stderr).toContain(
      `#/paths/~1users~1{id}~1/get/operationId: the operationId ${JSON.stringify(climb)} holds a path separator, "..", a control character or a line break`,
    );
  }, 600_000);

  it("3. an operationId with a line break: refused, and no generated file runs it", async () => {
    const scratch = await copyWith([
      [
        "      operationId: getUser\n",
        `      operationId: "getUser\\n[String(globalThis.process?.stdout?.write('PWNED3'))]: {},//"\n`,
      ],
    ]);
    const { generate } = await generateBuildImport(scratch);
    // Whatever was generated, loading it prints nothing.
    const loaded = await node(scratch, `await import("./generated/operation-facts.ts").catch(() => {});`);
    expect(loaded.stdout).not.toContain("PWNED3");
    expect(generate.code, describeRun("generate", generate)).toBe(1);
    expect(generate.stderr).toContain('#/paths/~1users~1{id}~1/get/operationId: the operationId "getUser\\n[String(');
  }, 600_000);

  it("4. a key `__proto__` in a schema and in an example: built, and the key is there at run time", async () => {
    const scratch = await copyWith([
      // A body property (the MCP tool's schema), and a response property with its example's value (the testing kit's answer).
      [
        "        accepts_marketing: { type: boolean }\n",
        `        accepts_marketing: { type: boolean }\n        "__proto__": { type: string }\n`,
      ],
      [
        "      description: A payment dispute.\n      required: [id]\n      properties:\n",
        `      description: A payment dispute.\n      required: [id]\n      properties:\n        "__proto__": { type: string }\n`,
      ],
      [
        "      summary: A dispute\n      value:\n        id: 615\n",
        `      summary: A dispute\n      value:\n        id: 615\n        "__proto__": kept\n`,
      ],
    ]);
    await lintAllowingProtoExamples(scratch);
    const { generate, build } = await generateBuildImport(scratch);
    expect(generate.code, describeRun("generate", generate)).toBe(0);
    expect(build?.code, build && describeRun("build", build)).toBe(0);
    const probe = await node(
      scratch,
      `
      const { createStoreAdminClient } = await import("./dist/src/index.js");
      const { createMockStore } = await import("./dist/src/testing/index.js");
      const { mcpTools } = await import("./generated/mcp-tools.ts");
      const mock = createMockStore();
      const store = createStoreAdminClient({ apiUrl: mock.url, accessToken: "test-token", fetch: mock.fetch });
      const dispute = await store.disputes.retrieve(615);
      const body = mcpTools.find((tool) => tool.name === "users_update").inputSchema.$defs.UserUpdate;
      console.log(JSON.stringify({ answer: Object.hasOwn(dispute, "__proto__") ? dispute["__proto__"] : null, tool: Object.hasOwn(body.properties, "__proto__") ? body.properties["__proto__"] : null }));
      `,
    );
    expect(probe.code, describeRun("probe", probe)).toBe(0);
    expect(JSON.parse(probe.stdout.trim().split("\n").at(-1)!)).toEqual({ answer: "kept", tool: { type: "string" } });
  }, 900_000);
});

describe("hand-written samples", () => {
  it("are found by listing docs/samples/: a symlink or a FIFO there is not read", async () => {
    const { writtenSamples } = await import("../../scripts/samples.js");
    const dir = await mkdtemp(join(tmpdir(), "store-admin-samples-"));
    scratches.push(dir);
    await writeFile(join(dir, "getUser.ts"), "// a sample\n");
    await writeFile(join(dir, "notes.md"), "not a sample\n");
    await symlink("/proc/self/environ", join(dir, "leak.ts"));
    await mkdir(join(dir, "folder.ts"));
    const fifo = await run("mkfifo", [join(dir, "hang.ts")]);
    expect(fifo.code).toBe(0);
    const samples = await writtenSamples(new URL(`file://${dir}/`));
    expect([...samples.keys()]).toEqual(["getUser"]);
    expect(samples.get("getUser")).toBe("// a sample\n");
    expect(samples.get("../getUser")).toBeUndefined();
  });
});
