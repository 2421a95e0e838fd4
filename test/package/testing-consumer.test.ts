/**
 * `store-admin-sdk/testing` as a user gets it: the packed tarball installed into a fresh
 * project outside this checkout, a user's code importing the subpath type-checked under
 * `"moduleResolution": "nodenext"` (Node: no DOM lib) and `"bundler"` (browser: no Node
 * types) with `skipLibCheck: false`, so the kit's own `.d.ts` files are checked too, then run
 * with Node: the kit answers in process, with no server.
 *
 * The user's code is test/package/fixtures/testing-consumer/.
 */
import { existsSync, readFileSync } from "node:fs";
import { cp } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileKey } from "../../scripts/file-keys.js";
import {
  createConsumerProject,
  describeRun,
  pinnedVersion,
  ROOT,
  run,
  typecheckProject,
  type ConsumerProject,
} from "./tarball.js";

const FIXTURE_DIR = join(ROOT, "test", "package", "fixtures", "testing-consumer");
const SETUP_TIMEOUT_MS = 300_000;
const TSC_TIMEOUT_MS = 180_000;

let project: ConsumerProject | undefined;

beforeAll(async () => {
  project = await createConsumerProject([`@types/node@${await pinnedVersion("@types/node")}`]);
  await cp(FIXTURE_DIR, project.dir, { recursive: true });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await project?.remove();
});

const typecheck = (tsconfig: string) => typecheckProject(project, tsconfig, TSC_TIMEOUT_MS);

describe("store-admin-sdk/testing from the tarball", () => {
  it("ships the kit and its compiled validators, and no validator library as a dependency", async () => {
    const installed = join(project!.dir, "node_modules", "store-admin-sdk");
    expect(existsSync(join(installed, "dist", "src", "testing", "index.js"))).toBe(true);
    // dist/ is bundled per entry (scripts/build.ts): the validators are compiled into chunks the
    // kit imports, one per operation, loaded on its first request.
    const entry = join(installed, "dist", "src", "testing", "index.js");
    const files = [entry];
    for (const file of files) {
      for (const [, specifier] of readFileSync(file, "utf8").matchAll(/(?:from |import\()"(\.[^"]+)"/g)) {
        const next = join(dirname(file), specifier!);
        if (!files.includes(next)) files.push(next);
      }
    }
    // Those chunks, generated minified, have no source map (scripts/build.ts); each is named after its operation.
    const getUser = files.filter((file) => file.includes(`${fileKey("getUser", "getUser")}-`) && file.endsWith(".js"));
    expect(getUser, files.join("\n")).toHaveLength(1);
    expect(readFileSync(getUser[0]!, "utf8")).toMatch(/ as validators\b/);
    expect(existsSync(`${getUser[0]}.map`)).toBe(false);
    expect(existsSync(join(project!.dir, "node_modules", "ajv")), "ajv is a build-time tool, not a dependency").toBe(
      false,
    );
  });

  it(
    'type-checks under "moduleResolution": "nodenext" (and emits the Node program)',
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

  it(
    "a misspelt or mistyped field of a handler's reply is an error at that field",
    async () => {
      const result = await typecheck("tsconfig.diagnostics.json");
      expect(result.code, describeRun("tsc -p tsconfig.diagnostics.json (must fail)", result)).not.toBe(0);
      const diagnostics = result.stdout.split("\n").filter((line) => line.includes("error TS"));
      expect(diagnostics, result.stdout).toHaveLength(2);
      // diagnostics.ts line 9 is `    emial: "x@y.z",`, line 16 `    email: 5,`: the errors sit on the fields, not on the handler.
      expect(diagnostics[0]).toMatch(
        /^diagnostics\.ts\(9,5\): error TS2322: Type 'string' is not assignable to type '"emial is not in the contract"'\.$/,
      );
      // A wrong value names the type the contract expects there, not `never`.
      expect(diagnostics[1]).toMatch(
        /^diagnostics\.ts\(16,5\): error TS2322: Type 'number' is not assignable to type 'number & Expected<string \| null \| undefined>'\.$/,
      );
    },
    TSC_TIMEOUT_MS,
  );

  it("runs with Node, in process", async () => {
    const entry = join(project!.dir, "out", "run-testing.js");
    expect(existsSync(entry), "out/run-testing.js is emitted by the nodenext type-check above").toBe(true);
    const result = await run(process.execPath, [entry], { cwd: project!.dir, timeoutMs: 60_000 });
    expect(result.code, describeRun("node out/run-testing.js", result)).toBe(0);
    expect(result.stdout.trim().split("\n")).toEqual([
      "GET user 42: ada@example.com",
      "paginate /users/: customer1@example.org, customer2@example.org, customer3@example.org",
      "422: body.first_name",
      "drift: [GET /disputes/{id}/] the handler's 200 reply breaks the contract: body.id: must be integer.",
      "bug in the test: [GET /stockrecords/{id}/] the handler threw: Error: kaboom. To fail the request as a network error would, return Response.error(). (cause: kaboom)",
      "PATCH body first_name: 256 characters",
      "requests: GET /users/{id}/ 200; GET /users/ 200; GET /users/ 200; PATCH /users/{id}/ 422; GET /disputes/{id}/ -; GET /stockrecords/{id}/ -",
    ]);
  }, 60_000);
});
