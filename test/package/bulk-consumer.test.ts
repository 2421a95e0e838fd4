/**
 * `store-admin-sdk/bulk` as a user gets it: the packed tarball installed into a fresh project,
 * a sample and the misuses the types must refuse (`@ts-expect-error`) type-checked under
 * "nodenext" (Node) and "bundler" (no Node types: the subpath's declarations need none) with
 * TypeScript 5 and 7, then a dry run with Node and the `store-admin-sdk` command from the
 * installed package. The user's code is test/package/fixtures/bulk-consumer/.
 */
import { existsSync } from "node:fs";
import { cp } from "node:fs/promises";
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
import { startBulkServer } from "../bulk/server.js";

const FIXTURE_DIR = join(ROOT, "test", "package", "fixtures", "bulk-consumer");
const TSC7 = join(ROOT, "node_modules", "typescript7", "bin", "tsc");
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

describe("store-admin-sdk/bulk from the tarball", () => {
  it.each(["tsconfig.nodenext.json", "tsconfig.bundler.json"])(
    "type-checks %s with TypeScript 5 (misuses refused)",
    async (tsconfig) => {
      const result = await typecheckProject(project, tsconfig, TSC_TIMEOUT_MS);
      expect(result.code, describeRun(`tsc -p ${tsconfig}`, result)).toBe(0);
    },
    TSC_TIMEOUT_MS,
  );

  it.each(["tsconfig.nodenext.json", "tsconfig.bundler.json"])(
    "type-checks %s with TypeScript 7 (misuses refused)",
    async (tsconfig) => {
      const result = await run(process.execPath, [TSC7, "-p", tsconfig, "--noEmit", "--pretty", "false"], {
        cwd: project!.dir,
        timeoutMs: TSC_TIMEOUT_MS,
      });
      expect(result.code, describeRun(`tsc7 -p ${tsconfig}`, result)).toBe(0);
    },
    TSC_TIMEOUT_MS,
  );

  it("runs a dry run with Node: nothing sent, the refused call named", async () => {
    const entry = join(project!.dir, "out", "run-bulk.js");
    expect(existsSync(entry), "out/run-bulk.js is emitted by the nodenext type-check").toBe(true);
    const result = await run(process.execPath, [entry], { cwd: project!.dir, timeoutMs: 60_000 });
    expect(result.code, describeRun("node out/run-bulk.js", result)).toBe(0);
    expect(result.stdout.trim()).toBe("dry run: 1 done, 1 failed: 2 422");
  });

  it("installs the store-admin-sdk command", async () => {
    const bin = join(project!.dir, "node_modules", ".bin", "store-admin-sdk");
    const result = await run(bin, ["bulk", "--help"], { cwd: project!.dir, timeoutMs: 60_000 });
    expect(result.code, describeRun("store-admin-sdk bulk --help", result)).toBe(0);
    expect(result.stdout).toContain("Usage: store-admin-sdk bulk [options] <method> <path>");
  });

  it("a run stopped while a POST waited at the budget's send step reports it as not sent, and a resume sends it once", async () => {
    await cp(
      join(ROOT, "test", "package", "fixtures", "unsent", "stop-before-send.mjs"),
      join(project!.dir, "stop-before-send.mjs"),
    );
    const server = await startBulkServer();
    try {
      let limited = false;
      server.respond = (request) => {
        if (request.id !== "1" || limited) return undefined;
        limited = true;
        // Answered late: item 2 has its reservation by then (40/s: 26 ms after item 1).
        return { status: 429, headers: { "retry-after": "60" }, body: { detail: "Slow down." }, delayMs: 1_000 };
      };
      const result = await run(process.execPath, ["stop-before-send.mjs"], {
        cwd: project!.dir,
        env: { ...process.env, SERVER_URL: server.url },
        timeoutMs: 60_000,
      });
      expect(result.code, describeRun("node stop-before-send.mjs", result)).toBe(0);
      const { first, second } = JSON.parse(result.stdout) as Record<
        "first" | "second",
        { done: number; failed: number; inDoubt: number; failures: Array<{ key: string; message: string }> }
      >;
      // Item 1 was refused (429): failed. Item 2 never left the process: neither failed nor in doubt.
      expect(first).toMatchObject({ done: 0, failed: 1, inDoubt: 0 });
      expect(first.failures.map((failure) => failure.key)).toEqual(["1"]);
      expect(JSON.stringify(first)).not.toMatch(/may have the request|took effect/);
      expect(second).toMatchObject({ done: 3, failed: 0, inDoubt: 0 });
      // What the server received, per item: 1 twice (refused, then resumed), 2 and 3 once each.
      expect([1, 2, 3].map((id) => server.count("POST", id))).toEqual([2, 1, 1]);
    } finally {
      await server.close();
    }
  }, 120_000);
});
