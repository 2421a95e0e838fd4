/**
 * Cloudflare Workers: a Worker that imports the packed package, bundled as wrangler bundles it
 * (esbuild, ESM, the `workerd`/`worker`/`browser` conditions), runs in the real `workerd` (the
 * npm package) and calls a server on 127.0.0.1: a success, a 404 (the error classes load from
 * their lazy part then) and a 503 retried into a 200, counted at the server. And every entry of
 * the package's `exports` map (enumerated, so that a new one is covered) imports in Node without
 * I/O or a timer: a Worker's global scope allows neither, and a timer at import has broken
 * other SDKs there. The testing kit runs in the Worker too: its per-operation validator modules
 * bundle with it and run there (no `eval`). And a partner app's OAuth flow (store-admin-sdk/oauth,
 * on oauth4webapi) runs in the Worker against the OAuth tests' store on 127.0.0.1.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cp, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createConsumerProject,
  describeRun,
  pinnedVersion,
  ROOT,
  run,
  type ConsumerProject,
} from "../package/tarball.js";
import { startFaultServer, type Fault, type FaultServer } from "../helpers/fault-server.js";
import { startTestStore, type TestStore } from "../oauth/authorization-server.js";
// @ts-expect-error: a plain ESM fixture without declarations
import { EXPECTED_LINES as OAUTH_LINES } from "../oauth/fixtures/oauth-flow.mjs";

const FIXTURES = join(ROOT, "test", "production", "fixtures", "worker");
// The binary itself, as the package's main export names it for this platform: `.bin/workerd` is
// a Node shim that runs it as its child, so a signal to the shim leaves workerd serving.
const WORKERD = (createRequire(import.meta.url)("workerd") as { default: string }).default;

let project: ConsumerProject | undefined;
let server: FaultServer;
let oauthStore: TestStore;
let workerd: ChildProcess | undefined;
let workerdOutput = "";
let workerUrl: string;

/** A port the OS says is free now (workerd is given a fixed address in its configuration). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  let busy = 0;
  server = await startFaultServer((request): Fault => {
    if (request.path === "/users/404/") return { status: 404, body: { detail: "Not found." } };
    if (request.path === "/users/503/" && busy++ === 0)
      return { status: 503, body: { detail: "busy" }, headers: { "retry-after": "0" } };
    return { body: { id: 42, email: "astrid@example.org" }, headers: { "x-request-id": "req-w1" } };
  });
  oauthStore = await startTestStore();
  // The optional peers of the queue, MCP and OAuth entries too, so that every entry can be imported.
  project = await createConsumerProject(
    await Promise.all(
      ["bullmq", "ioredis", "@modelcontextprotocol/sdk", "oauth4webapi"].map(
        async (name) => `${name}@${await pinnedVersion(name)}`,
      ),
    ),
  );
  await cp(join(FIXTURES, "worker.mjs"), join(project.dir, "worker.mjs"));
  await cp(join(ROOT, "test", "oauth", "fixtures", "oauth-flow.mjs"), join(project.dir, "oauth-flow.mjs"));
  // As wrangler bundles a Worker: one ESM file, the workers' export conditions.
  await build({
    entryPoints: [join(project.dir, "worker.mjs")],
    outfile: join(project.dir, "worker.js"),
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    target: "es2022",
    logLevel: "silent",
  });
  const port = await freePort();
  const config = (await readFile(join(FIXTURES, "config.capnp.template"), "utf8")).replace("__PORT__", String(port));
  await writeFile(join(project.dir, "config.capnp"), config);
  workerd = spawn(WORKERD, ["serve", "config.capnp"], { cwd: project.dir, stdio: ["ignore", "pipe", "pipe"] });
  workerd.stdout!.on("data", (chunk: Buffer) => (workerdOutput += chunk.toString("utf8")));
  workerd.stderr!.on("data", (chunk: Buffer) => (workerdOutput += chunk.toString("utf8")));
  workerUrl = `http://127.0.0.1:${port}`;
  // Ready when the Worker answers (a bounded wait: workerd starts in well under a second).
  for (let i = 0; ; i++) {
    const ready = await fetch(workerUrl).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (i === 300 || workerd.exitCode !== null) throw new Error(`workerd did not start:\n${workerdOutput}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 300_000);

afterAll(async () => {
  if (workerd && workerd.exitCode === null) {
    const exited = new Promise((resolve) => workerd!.once("exit", resolve));
    workerd.kill("SIGTERM");
    await exited;
  }
  await server?.close();
  await oauthStore?.close();
  await project?.remove();
});

describe("in workerd (Cloudflare Workers)", () => {
  it("a Worker bundled as wrangler does makes calls: a success, a typed 404 from the lazy error classes, a retried 503", async () => {
    const response = await fetch(`${workerUrl}/run?api=${encodeURIComponent(server.url)}`);
    const text = await response.text();
    expect(response.status, `${text}\n${workerdOutput}`).toBe(200);
    expect(JSON.parse(text)).toEqual({
      ok: "astrid@example.org",
      notFound: expect.stringMatching(/^NotFoundError true 404 /),
      retried: "astrid@example.org req-w1",
    });
    expect(server.count("GET", "/users/42/")).toBe(1);
    expect(server.count("GET", "/users/404/")).toBe(1);
    expect(server.count("GET", "/users/503/")).toBe(2);
    expect(server.requests.every((request) => request.headers["x-store-api-version"] === "2024-04-01")).toBe(true);
  });

  it("the testing kit runs in the Worker: each operation's precompiled validators load on its first request", async () => {
    const response = await fetch(`${workerUrl}/kit`);
    const text = await response.text();
    expect(response.status, `${text}\n${workerdOutput}`).toBe(200);
    expect(JSON.parse(text)).toEqual({
      example: "string",
      refused: expect.stringMatching(/^\w+Error 4\d\d$/),
      operations: ["GET /users/{id}/", "PATCH /users/{id}/"],
    });
  });
});

describe("store-admin-sdk/oauth in workerd", () => {
  it("a partner app installs on a store, calls it, refreshes once for five calls due and once for five meeting a 401, and refuses a forged callback", async () => {
    const response = await fetch(`${workerUrl}/oauth?origin=${encodeURIComponent(oauthStore.origin)}`);
    const text = await response.text();
    expect(response.status, `${text}\n${workerdOutput}`).toBe(200);
    expect(JSON.parse(text)).toEqual(OAUTH_LINES);
    expect(oauthStore.tokenRequests.map((seen) => seen.body.grant_type)).toEqual([
      "authorization_code",
      "refresh_token",
      "refresh_token",
    ]);
  });
});

describe("every entry of the package's exports map", () => {
  it("imports without I/O or a timer (a trap records fetch, sockets, DNS, processes, file writes and timers)", async () => {
    const installed = join(project!.dir, "node_modules", "store-admin-sdk");
    const pkg = JSON.parse(await readFile(join(installed, "package.json"), "utf8")) as {
      name: string;
      exports: Record<string, unknown>;
    };
    const entries = Object.keys(pkg.exports)
      .filter((key) => key !== "./package.json")
      .map((key) => pkg.name + key.slice(1));
    expect(entries).toContain("store-admin-sdk");
    expect(entries.length).toBeGreaterThanOrEqual(4);
    await cp(join(ROOT, "test", "production", "fixtures", "import-trap.mjs"), join(project!.dir, "import-trap.mjs"));
    await cp(join(ROOT, "test", "production", "fixtures", "import-entry.mjs"), join(project!.dir, "import-entry.mjs"));
    const reports = [];
    for (const entry of entries) {
      const result = await run(process.execPath, ["--import", "./import-trap.mjs", "import-entry.mjs", entry], {
        cwd: project!.dir,
        timeoutMs: 60_000,
      });
      expect(result.code, describeRun(`import ${entry}`, result)).toBe(0);
      reports.push(
        JSON.parse(result.stdout.trim().split("\n").at(-1)!) as { entry: string; exports: number; seen: string[] },
      );
    }
    expect(reports.map(({ entry, seen }) => [entry, seen])).toEqual(entries.map((entry) => [entry, []]));
    for (const report of reports) expect(report.exports, report.entry).toBeGreaterThan(0);
  }, 120_000);

  it("the trap catches a timer started at import (so the check above can fail)", async () => {
    await writeFile(
      join(project!.dir, "starts-a-timer.mjs"),
      "export const timer = setTimeout(() => {}, 1); clearTimeout(timer);\n",
    );
    const result = await run(
      process.execPath,
      ["--import", "./import-trap.mjs", "import-entry.mjs", "./starts-a-timer.mjs"],
      { cwd: project!.dir, timeoutMs: 60_000 },
    );
    expect(JSON.parse(result.stdout.trim()).seen).toEqual(["setTimeout"]);
  }, 60_000);
});
