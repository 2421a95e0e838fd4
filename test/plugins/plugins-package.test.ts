/**
 * store-admin-sdk/plugins as the package ships it, in a consumer project, against a local
 * server that counts what it receives: `idempotencyKey()` (the same key on the three attempts of
 * a POST answered 503, 503, 201, another for the next call; without the plugin a POST is sent
 * once), `rateLimit()` (20 calls at `perSecond: 5`: never more than 5 in any second at the
 * server; after a 429 with `Retry-After: 1` the held calls leave paced, not at once), and
 * `telemetry({ attributes })` with the real OpenTelemetry SDK (on every span, event and metric
 * point, the drift counter's included). And the guide's own plugin, as the guide prints it.
 */
import { readFile, writeFile, cp } from "node:fs/promises";
import { join } from "node:path";
import { transform } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createConsumerProject,
  describeRun,
  pinnedVersion,
  ROOT,
  run,
  type ConsumerProject,
} from "../package/tarball.js";
import { startFaultServer, type FaultServer, type Fault, type ReceivedRequest } from "../helpers/fault-server.js";
import { busiestWindow } from "../helpers/windows.js";

let project: ConsumerProject | undefined;
let server: FaultServer;
let seen: {
  bulk: { first: Record<string, number>; resumed: Record<string, number> };
  bothRates: string;
  keyed: number[];
  plain: number;
  limited: number[];
  paced: number[];
  spans: Array<{
    name: string;
    attributes: Record<string, unknown>;
    events: Array<{ name: string; attributes: Record<string, unknown> }>;
  }>;
  metrics: Array<{ name: string; points: Array<Record<string, unknown>> }>;
};
/** When each request arrived, by path, in ms. */
const arrivals: Array<{ path: string; atMs: number; request: ReceivedRequest }> = [];

function answer(request: ReceivedRequest): Fault {
  const sent = arrivals.filter((arrival) => arrival.path === request.path).length;
  arrivals.push({ path: request.path, atMs: performance.now(), request });
  if (request.path === "/subscriptions/1/renew/")
    return sent < 2 ? { status: 503, body: { detail: "busy" } } : { status: 201, body: { id: 1 } };
  if (request.path === "/subscriptions/5/renew/")
    return sent < 3 ? { status: 500, body: { detail: "down" } } : { status: 201, body: { id: 5 } };
  if (request.path.endsWith("/renew/"))
    return request.path === "/subscriptions/3/renew/"
      ? { status: 503, body: { detail: "busy" } }
      : { status: 201, body: { id: 2 } };
  if (request.path === "/users/200/")
    return { status: 429, headers: { "retry-after": "1" }, body: { detail: "slow down" } };
  if (request.path === "/users/300/")
    return sent === 0 ? { status: 503, body: { detail: "busy" } } : { body: { id: 300, language: "tlh" } };
  return { body: { id: Number(request.path.split("/")[2]) } };
}

beforeAll(async () => {
  server = await startFaultServer(answer);
  const packages = await Promise.all(
    ["@opentelemetry/api", "@opentelemetry/sdk-trace-base", "@opentelemetry/sdk-metrics"].map(
      async (name) => `${name}@${await pinnedVersion(name)}`,
    ),
  );
  project = await createConsumerProject(packages);
  await cp(join(ROOT, "test", "plugins", "fixtures", "plugins-consumer.mjs"), join(project.dir, "consumer.mjs"));
  const result = await run(process.execPath, ["consumer.mjs"], {
    cwd: project.dir,
    env: { ...process.env, SERVER_URL: server.url },
    timeoutMs: 120_000,
  });
  if (result.code !== 0) throw new Error(describeRun("consumer.mjs", result));
  seen = JSON.parse(result.stdout) as typeof seen;
}, 400_000);

afterAll(async () => {
  await server?.close();
  await project?.remove();
});

const requestsTo = (path: string) =>
  arrivals.filter((arrival) => arrival.path === path).map((arrival) => arrival.request);

describe("idempotencyKey() in the packed package", () => {
  it("sends one key on the three attempts of a POST answered 503, 503, 201, and another on the next call", () => {
    expect(seen.keyed).toEqual([201, 201]);
    const first = requestsTo("/subscriptions/1/renew/").map((request) => request.headers["idempotency-key"]);
    expect(first).toHaveLength(3);
    expect(new Set(first).size).toBe(1);
    expect(first[0]).toMatch(/^[0-9a-f-]{36}$/);
    const second = requestsTo("/subscriptions/2/renew/").map((request) => request.headers["idempotency-key"]);
    expect(second).toHaveLength(1);
    expect(second[0]).not.toBe(first[0]);
  });

  it("without the plugin, a POST answered 503 is sent once, with no key", () => {
    expect(seen.plain).toBe(503);
    expect(requestsTo("/subscriptions/3/renew/").map((request) => request.headers["idempotency-key"])).toEqual([
      undefined,
    ]);
  });
});

describe("idempotencyKey() with runBulk in the packed package", () => {
  it("a resume of a key left in doubt sends the key its first run sent: the run id and the item's key", () => {
    expect(seen.bulk.first).toMatchObject({ done: 0, inDoubt: 1 });
    expect(seen.bulk.resumed).toMatchObject({ done: 1 });
    const keys = requestsTo("/subscriptions/5/renew/").map((request) => request.headers["idempotency-key"]);
    expect(keys).toEqual(Array(4).fill("renewals:5:1"));
  });
});

describe("rateLimit() in the packed package", () => {
  it("runBulk refuses its own rate beside the client's rateLimit(): one budget, never two waits", () => {
    expect(seen.bothRates).toBe(
      "TypeError: rate: the client has the rateLimit() plugin, which bounds the run's calls already; pass rate or the plugin, not both.",
    );
  });

  it("20 calls fired together at perSecond 5: never more than 5 in any second at the server", () => {
    expect(seen.limited).toEqual(Array(20).fill(200));
    const times = arrivals.filter((arrival) => /^\/users\/1\d\d\/$/.test(arrival.path)).map((arrival) => arrival.atMs);
    expect(times).toHaveLength(20);
    expect(busiestWindow(times, 1000)).toBeLessThanOrEqual(5);
  });

  it("after a 429 with Retry-After: 1, the held calls leave paced by the same bound, not in one burst", () => {
    // The call that met the 429 meets it again on its retries (the server always refuses it); the others succeed.
    expect(seen.paced.filter((status) => status === 200)).toHaveLength(9);
    const first429 = arrivals.find((arrival) => arrival.path === "/users/200/")!.atMs;
    const after = arrivals
      .filter((arrival) => /^\/users\/2\d\d\/$/.test(arrival.path) && arrival.atMs > first429)
      .map((arrival) => arrival.atMs);
    expect(busiestWindow(after, 1000)).toBeLessThanOrEqual(5);
    // Not all in one millisecond.
    expect(busiestWindow(after, 1)).toBeLessThan(after.length);
  });
});

describe("telemetry({ attributes }) in the packed package, with the OpenTelemetry SDK", () => {
  it("puts the attributes on every span and every event", () => {
    expect(seen.spans.map((span) => span.name).sort()).toEqual([
      "GET /users/{id}/",
      "GET /users/{id}/",
      "users.retrieve",
    ]);
    for (const span of seen.spans) {
      expect(span.attributes["store.id"]).toBe("eu-1");
      for (const event of span.events) expect(event.attributes["store.id"]).toBe("eu-1");
    }
    const events = seen.spans.flatMap((span) => span.events.map((event) => event.name));
    expect(events).toEqual(expect.arrayContaining(["retry", "store_admin.contract.drift"]));
  });

  it("puts them on every metric point, the drift counter's included", () => {
    const names = seen.metrics.map((metric) => metric.name);
    expect(names).toEqual(expect.arrayContaining(["http.client.request.duration", "store_admin.contract.drifts"]));
    const points = seen.metrics.flatMap((metric) => metric.points);
    expect(points.length).toBeGreaterThanOrEqual(3);
    for (const point of points) expect(point["store.id"]).toBe("eu-1");
  });
});

describe("the guide's own plugin", () => {
  it("runs as the guide prints it: a header on every request, a line per attempt", async () => {
    const guide = await readFile(join(ROOT, "docs", "guide.md"), "utf8");
    const source = /<!-- plugin-example -->\s*```ts\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(source).toBeDefined();
    // The guide's TypeScript, its types stripped as a user's build would.
    const { code } = await transform(`${source}\nawait store.users.retrieve(42);\n`, { loader: "ts", format: "esm" });
    await writeFile(join(project!.dir, "guide-plugin.mjs"), code);
    const before = arrivals.length;
    const result = await run(process.execPath, ["guide-plugin.mjs"], {
      cwd: project!.dir,
      env: { ...process.env, STORE_URL: server.url, STORE_TOKEN: "sk_test_guide" },
      timeoutMs: 60_000,
    });
    if (result.code !== 0) throw new Error(describeRun("guide-plugin.mjs", result));
    const sent = arrivals.slice(before).map((arrival) => arrival.request);
    expect(sent.map((request) => [request.path, request.headers["x-team"]])).toEqual([
      ["/api/admin/users/42/", "billing"],
    ]);
    expect(result.stdout.trim().split("\n")).toEqual(["GET /users/{id}/ attempt 1: 200"]);
  });
});
