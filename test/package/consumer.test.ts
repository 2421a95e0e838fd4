/**
 * The package as a user gets it: packed, installed from the tarball into a fresh project
 * outside this checkout (openapi-fetch from the registry), type-checked by a consumer
 * under `"moduleResolution": "nodenext"` (a Node app: no DOM lib) and `"bundler"` (a
 * browser app: no Node types), with `skipLibCheck: false` so the package's own `.d.ts`
 * files are checked too, then run with Node against the Prism mock. openapi-react-query and
 * swr-openapi (with their peers) are installed too: the client must be assignable to
 * openapi-fetch's `Client<paths>` for them, and one query runs through React Query.
 *
 * The consumer lives in test/package/fixtures/consumer/.
 */
import { existsSync } from "node:fs";
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  createConsumerProject,
  describeRun,
  pinnedVersion,
  ROOT,
  run,
  typecheckProject,
  type Compiler,
  type ConsumerProject,
} from "./tarball.js";

const FIXTURE_DIR = join(ROOT, "test", "package", "fixtures", "consumer");
/** Packing and `npm install` from a warm cache take ~10 s; a cold cache on a slow link more. */
const SETUP_TIMEOUT_MS = 300_000;
/** A full type-check including every package's declarations (React's too): ~30 s alone, minutes on a busy 2-core machine. */
const TSC_TIMEOUT_MS = 300_000;
/** The ecosystem libraries the consumer uses, at the versions this project pins. */
const ECOSYSTEM = [
  "openapi-react-query",
  "swr-openapi",
  "@tanstack/react-query",
  "swr",
  "react",
  "@types/react",
] as const;

let project: ConsumerProject | undefined;

beforeAll(async () => {
  // The Node consumer has @types/node, at the version this project pins.
  const extra = await Promise.all(
    ["@types/node", ...ECOSYSTEM].map(async (name) => `${name}@${await pinnedVersion(name)}`),
  );
  project = await createConsumerProject(extra);
  await cp(FIXTURE_DIR, project.dir, { recursive: true });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await project?.remove();
  if (project) expect(existsSync(project.dir), `${project.dir} should be removed`).toBe(false);
});

const typecheck = (tsconfig: string, compiler: Compiler = "typescript") =>
  typecheckProject(project, tsconfig, TSC_TIMEOUT_MS, compiler);

describe("a consumer project with the tarball installed", () => {
  it("has the package from the tarball, not a link to this checkout", () => {
    const installed = join(project!.dir, "node_modules", "store-admin-sdk");
    expect(existsSync(join(installed, "dist", "src", "index.js"))).toBe(true);
    expect(existsSync(join(installed, "src")), "src/ must not be in the package").toBe(false);
    expect(
      existsSync(join(project!.dir, "node_modules", "openapi-fetch", "package.json")),
      "openapi-fetch installed as a dependency",
    ).toBe(true);
  });

  it(
    'type-checks under "moduleResolution": "nodenext" (and emits the Node entry)',
    async () => {
      const result = await typecheck("tsconfig.nodenext.json");
      expect(result.code, describeRun("tsc -p tsconfig.nodenext.json", result)).toBe(0);
    },
    TSC_TIMEOUT_MS,
  );

  it(
    'type-checks under "moduleResolution": "bundler"',
    async () => {
      const result = await typecheck("tsconfig.bundler.json");
      expect(result.code, describeRun("tsc -p tsconfig.bundler.json", result)).toBe(0);
    },
    TSC_TIMEOUT_MS,
  );

  // TypeScript 7 (the native compiler) type-checks the same files, the @ts-expect-error lines included.
  for (const tsconfig of ["tsconfig.nodenext.json", "tsconfig.bundler.json"]) {
    it(
      `type-checks ${tsconfig} with TypeScript 7`,
      async () => {
        const result = await typecheck(tsconfig, "typescript7");
        expect(result.code, describeRun(`typescript7 tsc -p ${tsconfig}`, result)).toBe(0);
      },
      TSC_TIMEOUT_MS,
    );
  }

  for (const compiler of ["typescript", "typescript7"] as const) {
    it(
      `names the wrong key in the compiler message (${compiler}): a misspelt body field, a misspelt option, by path and by method`,
      async () => {
        const result = await typecheck("tsconfig.diagnostics.json", compiler);
        expect(result.code, describeRun("tsc -p tsconfig.diagnostics.json (must fail)", result)).not.toBe(0);
        const diagnostics = result.stdout.split("\n").filter((line) => line.includes("error TS"));
        expect(diagnostics, result.stdout).toHaveLength(5);
        const excess = (key: string) =>
          new RegExp(`Object literal may only specify known properties, (and|but) '${key}' does not exist in type`);
        expect(diagnostics[0]).toMatch(excess("frist_name"));
        expect(diagnostics[1]).toMatch(excess("singal"));
        expect(diagnostics[2]).toMatch(excess("frist_name"));
        expect(diagnostics[3]).toMatch(excess("singal"));
        expect(diagnostics[3]).toMatch(/MethodOptions/);
        // A method's body is named by its contract type, not printed expanded.
        expect(diagnostics[2]).toMatch(/does not exist in type 'UserUpdate'/);
        expect(diagnostics[4]).toMatch(excess("expird_at"));
        expect(diagnostics[4]).toMatch(/does not exist in type 'GiftCardUpdate'/);
      },
      TSC_TIMEOUT_MS,
    );
  }

  it("runs with Node against the Prism mock", async () => {
    const entry = join(project!.dir, "out", "main.js");
    expect(existsSync(entry), "out/main.js is emitted by the nodenext type-check above").toBe(true);
    const result = await run(process.execPath, [entry, inject("prismUrl")], { cwd: project!.dir, timeoutMs: 60_000 });
    expect(result.code, describeRun("node out/main.js", result)).toBe(0);
    expect(result.stdout.trim().split("\n")).toEqual([
      "GET user 42: astrid@example.org",
      "PATCH gift card 88: balance 35.00",
      "paginate /users/: astrid@example.org",
      "page 1 of /gift-cards/: 1 card(s)",
      "404: NotFoundError status 404 for GET /users/{id}/",
      "openapi-react-query queryOptions user 42: astrid@example.org",
      "operation methods: 20 of 20 answered",
    ]);
  }, 60_000);
});
