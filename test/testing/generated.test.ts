/**
 * The kit derives everything from the contract: `scripts/generate-testing.ts` compiles the
 * validators and collects the examples from `openapi/store-admin.yaml`, `--check` fails when
 * `generated/testing/` is stale (as `npm run build` runs it), and a change to the contract
 * reaches the kit's behaviour through a regenerate alone.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { fileKey } from "../../scripts/file-keys.js";
import { describeRun, ROOT, run } from "../package/tarball.js";
import { scratchDir } from "../docs/typecheck.js";
import { mockOperations, type MockOperationModule } from "../../generated/testing/operations.js";
import { CONTRACT_PATH } from "../../scripts/facts.js";

const TSX = join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const GENERATOR = join(ROOT, "scripts", "generate-testing.ts");
const TIMEOUT_MS = 120_000;

type Json = Record<string, any>;

let scratch: string;
let changedSpec: string;

beforeAll(async () => {
  scratch = await scratchDir("generate-testing");
  // The contract with two changes: a tighter limit on a request field, and another example.
  const doc = parse(await readFile(CONTRACT_PATH, "utf8")) as Json;
  doc.components.schemas.UserUpdate.properties.first_name.maxLength = 10;
  doc.components.examples.User.value.email = "changed@example.org";
  changedSpec = join(scratch, "changed.yaml");
  await writeFile(changedSpec, stringify(doc));
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const generate = (...args: string[]) => run(process.execPath, [TSX, GENERATOR, ...args], { timeoutMs: TIMEOUT_MS });

describe("generated/testing/", () => {
  it(
    "is what the contract produces (--check passes)",
    async () => {
      const result = await generate("--check");
      expect(result.code, describeRun("generate-testing --check", result)).toBe(0);
    },
    TIMEOUT_MS,
  );

  it(
    "is reported stale against a changed contract (--check exits 1, naming the files)",
    async () => {
      const result = await generate("--check", "--spec", changedSpec);
      expect(result.code, describeRun("generate-testing --check --spec changed.yaml", result)).toBe(1);
      expect(result.stderr).toContain("generated/testing/ is stale");
      expect(result.stderr).toContain(`ops/${fileKey("updateUser", "updateUser")}.ts`);
      expect(result.stderr).toContain(`ops/${fileKey("getUser", "getUser")}.ts`);
    },
    TIMEOUT_MS,
  );

  it(
    "carries a contract change into the kit's validators and examples by a regenerate alone",
    async () => {
      const out = join(scratch, "out");
      const result = await generate("--spec", changedSpec, "--out", out);
      expect(result.code, describeRun("generate-testing --spec --out", result)).toBe(0);

      // The operation's own module: its validators and its facts (the kit loads it on first use).
      const { validators } = (await import(
        pathToFileURL(join(out, "ops", `${fileKey("updateUser", "updateUser")}.ts`)).href
      )) as MockOperationModule;
      const body = { first_name: "Astrid Anna" };
      expect(validators.updateUser_body!(body), "11 characters, over the new limit of 10").toBe(false);
      expect(validators.updateUser_body!.errors).toEqual([
        expect.objectContaining({ instancePath: "/first_name", keyword: "maxLength" }),
      ]);
      const current = await mockOperations["PATCH /users/{id}/"]();
      expect(current.validators.updateUser_body!(body), "valid under the committed contract (limit 255)").toBe(true);

      const { operation } = (await import(
        pathToFileURL(join(out, "ops", `${fileKey("getUser", "getUser")}.ts`)).href
      )) as MockOperationModule;
      expect(operation.responses["200"]?.example).toMatchObject({ email: "changed@example.org" });
    },
    TIMEOUT_MS,
  );
});
