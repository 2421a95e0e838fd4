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
import {
  createConsumerProject,
  describeRun,
  npmEnv,
  pinnedVersion,
  ROOT,
  run,
  runOrThrow,
  type ConsumerProject,
} from "../package/tarball.js";
import { startFaultServer, type Fault, type FaultServer } from "../helpers/fault-server.js";

let project: ConsumerProject | undefined;
let server: FaultServer;

/** A Retry-After of 12,000 characters (15 KB on the wire; fetch reads 16 KB of headers at most) with C1 control characters (CSI, OSC). */
const LONG_RETRY_AFTER = `1${"\u009b31m\u009d0;x".repeat(2_000)}`.slice(0, 12_000);
let echoing: FaultServer;
let retried = false;

beforeAll(async () => {
  server = await startFaultServer(() => ({ body: { id: 42 }, headers: { "x-request-id": "req-pkg" } }));
  // Echoes the call's token in the next cursor; names a cursor it is sent back in a 400 and in its request id.
  echoing = await startFaultServer((received): Fault => {
    const cursor = received.query.get("cursor");
    if (cursor !== null)
      return {
        status: 400,
        headers: { "x-request-id": `req-${cursor}` },
        body: { detail: `The cursor ${cursor} is not valid.` },
      };
    if (received.path.endsWith("/users/")) {
      const token = String(received.headers.authorization).replace(/^Bearer /, "");
      return { body: { next: `${echoing.url}/users/?cursor=${token}`, previous: null, results: [{ id: 1 }] } };
    }
    if (retried) return { body: { id: 429 } };
    retried = true;
    return { status: 429, headers: { "retry-after": LONG_RETRY_AFTER }, body: { detail: "Slow down." } };
  });
  project = await createConsumerProject();
  await cp(join(ROOT, "test", "production", "fixtures", "telemetry-consumer.mjs"), join(project.dir, "consumer.mjs"));
  await cp(join(ROOT, "test", "production", "fixtures", "telemetry-tokens.mjs"), join(project.dir, "tokens.mjs"));
}, 300_000);

afterAll(async () => {
  await server?.close();
  await echoing?.close();
  await project?.remove();
});

const runConsumer = async (env: Record<string, string> = {}) => {
  const result = await run(process.execPath, ["consumer.mjs"], {
    cwd: project!.dir,
    env: { ...process.env, SERVER_URL: server.url, ...env },
    timeoutMs: 60_000,
  });
  expect(result.code, describeRun("consumer.mjs", result)).toBe(0);
  return result.stdout.trim().split("\n");
};

describe("@opentelemetry/api, an optional peer dependency", () => {
  it("is declared optional, with the range the OpenTelemetry SDK 2.x accepts", async () => {
    const pkg = (
      await import(join(project!.dir, "node_modules", "store-admin-sdk", "package.json"), { with: { type: "json" } })
    ).default as {
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
      stdin: {
        contents:
          'import { createStoreAdminClient } from "store-admin-sdk"; import { telemetry } from "store-admin-sdk/plugins"; export const store = createStoreAdminClient({ apiUrl: "http://127.0.0.1:1", accessToken: "t", plugins: [telemetry()] });',
        resolveDir: project!.dir,
      },
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
    const packages = await Promise.all(
      ["@opentelemetry/api", "@opentelemetry/sdk-trace-base"].map(
        async (name) => `${name}@${await pinnedVersion(name)}`,
      ),
    );
    await runOrThrow(
      "npm install OpenTelemetry",
      "npm",
      ["install", "--no-audit", "--no-fund", "--no-package-lock", ...packages],
      { cwd: project!.dir, env: npmEnv(), timeoutMs: 300_000 },
    );
    server.enqueue(
      { body: { id: 42 }, headers: { "x-request-id": "req-pkg" } },
      { body: { id: 42 }, headers: { "x-request-id": "req-pkg" } },
      { body: { id: 42 } },
    );
    server.enqueue({ status: 429, headers: { "retry-after": "0.3" }, body: { detail: "Slow down." } });
    expect(await runConsumer({ WITH_OTEL: "1" })).toEqual([
      "plain: 42 req-pkg; raw: 200 false 42",
      "spans: GET /users/{id}/, users.retrieve",
      // Held by the client's pause after the 429; `network.protocol.version` only where the runtime records the protocol.
      "pause: waited; protocol: undefined, 2",
    ]);
  }, 300_000);
});

describe("what telemetry, errors and logs show of a server's echoes", () => {
  type Span = {
    name: string;
    attributes: Record<string, unknown>;
    events: Array<{ name: string; attributes: Record<string, unknown> }>;
  };
  let seen: { tokens: string[]; error: { message: string; requestId: string }; events: unknown[]; spans: Span[] };
  beforeAll(async () => {
    const packages = await Promise.all(
      ["@opentelemetry/api", "@opentelemetry/sdk-trace-base"].map(
        async (name) => `${name}@${await pinnedVersion(name)}`,
      ),
    );
    await runOrThrow(
      "npm install OpenTelemetry",
      "npm",
      ["install", "--no-audit", "--no-fund", "--no-package-lock", ...packages],
      { cwd: project!.dir, env: npmEnv(), timeoutMs: 300_000 },
    );
    const result = await run(process.execPath, ["tokens.mjs"], {
      cwd: project!.dir,
      env: { ...process.env, SERVER_URL: echoing.url },
      timeoutMs: 60_000,
    });
    if (result.code !== 0) throw new Error(describeRun("tokens.mjs", result));
    seen = JSON.parse(result.stdout) as typeof seen;
  }, 300_000);

  it("scrubs every token the function handed out, not only the call's own: errors, request ids, log events, spans", () => {
    const { tokens, error, events, spans } = seen;
    // Page 1, page 2 (the 400 naming the cursor), then the 429 and its retry: a token per call.
    expect(tokens).toHaveLength(3);
    expect(error.message).toContain("is not valid");
    expect(error.message).toContain("[REDACTED]");
    expect(error.requestId).toBe("req-[REDACTED]");
    const page2 = spans.find(
      (span) => span.name === "GET /users/" && String(span.attributes["url.full"]).includes("cursor="),
    )!;
    expect(page2.attributes["url.full"]).toMatch(/cursor=(\[REDACTED\]|%5BREDACTED%5D)$/);
    const everything = JSON.stringify({ error, events, spans }).toLowerCase();
    for (const token of tokens) expect(everything, token).not.toContain(token.toLowerCase());
  });

  it("records a Retry-After clipped and without control characters, as the log does", () => {
    const retry = seen.spans.flatMap((span) => span.events).find((event) => event.name === "retry")!;
    const [retryAfter] = retry.attributes["http.response.header.retry-after"] as string[];
    expect(retryAfter!.length).toBeLessThanOrEqual(101);
    expect(retryAfter).toMatch(/^1\S/);
    expect(retryAfter).not.toMatch(/[\0-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
  });
});
