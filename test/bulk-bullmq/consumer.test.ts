/**
 * `store-admin-sdk/bulk/bullmq` as a user gets it: the packed tarball installed in a fresh
 * project with bullmq, ioredis and @types/node (the versions this project pins), and a worker
 * and producer (fixtures/consumer/queue.ts) type-checked with `skipLibCheck: false` under
 * TypeScript 5.x and 7.x. What must be refused is marked `@ts-expect-error`: a refused line
 * that compiles fails the check. Then the same file with one directive removed must fail,
 * which shows the check does see the refusals.
 */
import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createConsumerProject,
  describeRun,
  pinnedVersion,
  ROOT,
  run,
  TSC,
  type ConsumerProject,
} from "../package/tarball.js";

const FIXTURE_DIR = join(ROOT, "test", "bulk-bullmq", "fixtures", "consumer");
const TSC7 = join(ROOT, "node_modules", "typescript7", "bin", "tsc");
const TIMEOUT_MS = 300_000;
let project: ConsumerProject | undefined;

beforeAll(async () => {
  const extra = await Promise.all(
    ["bullmq", "ioredis", "@types/node"].map(async (name) => `${name}@${await pinnedVersion(name)}`),
  );
  project = await createConsumerProject(extra);
  await cp(FIXTURE_DIR, project.dir, { recursive: true });
}, TIMEOUT_MS);

afterAll(async () => {
  await project?.remove();
});

const compile = (compiler: string, tsconfig = "tsconfig.json") =>
  run(process.execPath, [compiler, "-p", tsconfig, "--pretty", "false"], { cwd: project!.dir, timeoutMs: TIMEOUT_MS });

describe("a consumer of store-admin-sdk/bulk/bullmq", () => {
  for (const [label, compiler] of [
    ["TypeScript 5", TSC],
    ["TypeScript 7", TSC7],
  ] as const) {
    it(
      `type-checks under ${label}, every misuse refused`,
      async () => {
        const result = await compile(compiler);
        expect(result.code, describeRun(`${label} tsc -p tsconfig.json`, result)).toBe(0);
      },
      TIMEOUT_MS,
    );
  }

  it(
    "fails when a misuse is no longer marked (the refusals are real)",
    async () => {
      const source = await readFile(join(project!.dir, "queue.ts"), "utf8");
      const marker = "  // @ts-expect-error key must return a string\n";
      expect(source).toContain(marker);
      await writeFile(join(project!.dir, "unmarked.ts"), source.replace(marker, ""));
      await writeFile(
        join(project!.dir, "tsconfig.unmarked.json"),
        JSON.stringify({ extends: "./tsconfig.json", files: ["unmarked.ts"] }),
      );
      const result = await compile(TSC, "tsconfig.unmarked.json");
      expect(result.code).not.toBe(0);
      const errors = result.stdout.split("\n").filter((line) => line.includes("error TS"));
      expect(errors, result.stdout).toHaveLength(1);
      expect(errors[0]).toMatch(
        /unmarked\.ts\(\d+,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/,
      );
    },
    TIMEOUT_MS,
  );

  it(
    "names why an item type JSON cannot carry is refused: a Date arrives as a string",
    async () => {
      const source = await readFile(join(project!.dir, "queue.ts"), "utf8");
      const marker = "  // @ts-expect-error a Date arrives as a string\n";
      expect(source).toContain(marker);
      await writeFile(join(project!.dir, "unmarked-date.ts"), source.replace(marker, ""));
      await writeFile(
        join(project!.dir, "tsconfig.unmarked-date.json"),
        JSON.stringify({ extends: "./tsconfig.json", files: ["unmarked-date.ts"] }),
      );
      const result = await compile(TSC, "tsconfig.unmarked-date.json");
      expect(result.code).not.toBe(0);
      const errors = result.stdout.split("\n").filter((line) => line.includes("error TS"));
      expect(errors, result.stdout).toHaveLength(1);
      expect(errors[0]).toMatch(
        /unmarked-date\.ts\(\d+,\d+\): error TS2344: Type '\{ when: Date; \}' does not satisfy the constraint '\{ when: NotJson<"a Date arrives as a string: send date\.toISOString\(\)">; \}'/,
      );
    },
    TIMEOUT_MS,
  );
});
