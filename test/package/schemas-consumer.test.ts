/**
 * `store-admin-sdk/schemas` as a user gets it: the packed tarball installed into a fresh
 * project with `@standard-schema/spec` and a real consumer of Standard Schema, Hono's
 * validator middleware (`@hono/standard-validator`). The user's code
 * (test/package/fixtures/schemas-consumer/) is type-checked under "nodenext" and "bundler" with
 * TypeScript 5 and 7: each schema's `InferOutput` is the SDK's generated type, and the misuses
 * are refused (`@ts-expect-error`); then Hono validates requests with the schemas under Node.
 */
import { existsSync } from "node:fs";
import { cp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createConsumerProject,
  describeRun,
  pinnedVersion,
  ROOT,
  run,
  typecheckProject,
  type ConsumerProject,
} from "./tarball.js";

const FIXTURE_DIR = join(ROOT, "test", "package", "fixtures", "schemas-consumer");
const TSC7 = join(ROOT, "node_modules", "typescript7", "bin", "tsc");
const SETUP_TIMEOUT_MS = 300_000;
const TSC_TIMEOUT_MS = 180_000;

let project: ConsumerProject | undefined;

beforeAll(async () => {
  const packages = ["@types/node", "@standard-schema/spec", "hono", "@hono/standard-validator"];
  project = await createConsumerProject(
    await Promise.all(packages.map(async (name) => `${name}@${await pinnedVersion(name)}`)),
  );
  await cp(FIXTURE_DIR, project.dir, { recursive: true });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await project?.remove();
});

describe("store-admin-sdk/schemas from the tarball", () => {
  it("declares no dependency on @standard-schema/spec: users install nothing to type it", async () => {
    const manifest = JSON.parse(
      await readFile(join(project!.dir, "node_modules", "store-admin-sdk", "package.json"), "utf8"),
    ) as Record<string, Record<string, string> | undefined>;
    for (const field of ["dependencies", "peerDependencies"])
      expect(Object.keys(manifest[field] ?? {}), field).not.toContain("@standard-schema/spec");
    const declarations = await readFile(
      join(project!.dir, "node_modules", "store-admin-sdk", "dist", "src", "schemas", "standard-schema.d.ts"),
      "utf8",
    );
    expect(declarations).not.toContain('@standard-schema/spec"');
  });

  it.each(["tsconfig.nodenext.json", "tsconfig.bundler.json"])(
    "type-checks %s with TypeScript 5 (the generated types inferred, misuses refused)",
    async (tsconfig) => {
      const result = await typecheckProject(project, tsconfig, TSC_TIMEOUT_MS);
      expect(result.code, describeRun(`tsc -p ${tsconfig}`, result)).toBe(0);
    },
    TSC_TIMEOUT_MS,
  );

  it.each(["tsconfig.nodenext.json", "tsconfig.bundler.json"])(
    "type-checks %s with TypeScript 7 (the generated types inferred, misuses refused)",
    async (tsconfig) => {
      const result = await run(process.execPath, [TSC7, "-p", tsconfig, "--noEmit", "--pretty", "false"], {
        cwd: project!.dir,
        timeoutMs: TSC_TIMEOUT_MS,
      });
      expect(result.code, describeRun(`tsc7 -p ${tsconfig}`, result)).toBe(0);
    },
    TSC_TIMEOUT_MS,
  );

  it("Hono's Standard Schema validator accepts and refuses request bodies with the schemas, under Node", async () => {
    const entry = join(project!.dir, "out", "serve.js");
    expect(existsSync(entry), "out/serve.js is emitted by the nodenext type-check").toBe(true);
    const result = await run(process.execPath, [entry], { cwd: project!.dir, timeoutMs: 60_000 });
    expect(result.code, describeRun("node out/serve.js", result)).toBe(0);
    const { valid, invalid, webhook, webhookInvalid } = JSON.parse(result.stdout) as Record<
      "valid" | "invalid" | "webhook" | "webhookInvalid",
      [number, Record<string, unknown>]
    >;
    expect(valid).toEqual([200, { updated: 42, firstName: "Ada" }]);
    expect(invalid[0]).toBe(400);
    expect(invalid[1]).toMatchObject({
      success: false,
      error: [
        { message: "is not a property of this schema", path: ["nickname"] },
        { message: "must be at most 255 characters long", path: ["first_name"] },
      ],
    });
    expect(webhook).toEqual([200, { received: 7 }]);
    expect(webhookInvalid[0]).toBe(400);
    expect(webhookInvalid[1]).toMatchObject({
      error: [
        { message: "must be integer", path: ["id"] },
        { message: "must be string or null", path: ["tags", 0] },
      ],
    });
  });
});
