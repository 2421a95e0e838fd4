/**
 * `.withResponse()`/`.asResponse()` and the `telemetry` option as the package ships them: `@opentelemetry/api` is an optional peer
 * dependency, so a project without it installs, bundles (esbuild, as an application would) and
 * runs the client; only a client created with `telemetry` needs it, and says so. With the API
 * and the SDK installed, the packed client records its spans.
 */
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build } from "esbuild";
import { createConsumerProject, describeRun, npmEnv, pinnedVersion, ROOT, run, runOrThrow, type ConsumerProject } from "../package/tarball.js";
import { startFaultServer, type FaultServer } from "../helpers/fault-server.js";

let project: ConsumerProject | undefined;
let server: FaultServer;

beforeAll(async () => {
  server = await startFaultServer(() => ({ body: { id: 42 }, headers: { "x-request-id": "req-pkg" } }));
  project = await createConsumerProject();
  await cp(join(ROOT, "test", "production", "fixtures", "telemetry-consumer.mjs"), join(project.dir, "consumer.mjs"));
}, 300_000);

afterAll(async () => {
  await server?.close();
  await project?.remove();
});

const runConsumer = async (env: Record<string, string> = {}) => {
  const result = await run(process.execPath, ["consumer.mjs"], { cwd: project!.dir, env: { ...process.env, SERVER_URL: server.url, ...env }, timeoutMs: 60_000 });
  expect(result.code, describeRun("consumer.mjs", result)).toBe(0);
  return result.stdout.trim().split("\n");
};

describe("@opentelemetry/api, an optional peer dependency", () => {
  it("is declared optional, with the range the OpenTelemetry SDK 2.x accepts", async () => {
    const pkg = (await import(join(project!.dir, "node_modules", "store-admin-sdk", "package.json"), { with: { type: "json" } })).default as {
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    expect(pkg.peerDependencies["@opentelemetry/api"]).toBe(">=1.3.0 <1.10.0");
    expect(pkg.peerDependenciesMeta["@opentelemetry/api"]).toEqual({ optional: true });
  });

  it("without it: a client runs, an application bundles, and a client with `telemetry` says what to install", async () => {
    expect(await runConsumer()).toEqual([
      "plain: 42 req-pkg; raw: 200 false 42",
      "telemetry: The telemetry option needs the package @opentelemetry/api (1.x): install it beside store-admin-sdk.",
    ]);
    const bundled = await build({
      stdin: { contents: 'import { createStoreAdminClient } from "store-admin-sdk"; export const store = createStoreAdminClient({ apiUrl: "http://127.0.0.1:1", accessToken: "t", telemetry: true });', resolveDir: project!.dir },
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "browser",
      outdir: join(project!.dir, "bundle"),
      write: false,
      logLevel: "silent",
    });
    expect(bundled.errors).toEqual([]);
  }, 60_000);

  it("with the API and the SDK installed: the packed client's spans", async () => {
    const packages = await Promise.all(["@opentelemetry/api", "@opentelemetry/sdk-trace-base"].map(async (name) => `${name}@${await pinnedVersion(name)}`));
    await runOrThrow("npm install OpenTelemetry", "npm", ["install", "--no-audit", "--no-fund", "--no-package-lock", ...packages], { cwd: project!.dir, env: npmEnv(), timeoutMs: 300_000 });
    expect(await runConsumer({ WITH_OTEL: "1" })).toEqual(["plain: 42 req-pkg; raw: 200 false 42", "spans: GET /users/{id}/, users.retrieve"]);
  }, 300_000);
});
