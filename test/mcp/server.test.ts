/**
 * The MCP server as an agent's host runs it: `store-admin-sdk mcp` from the packed tarball,
 * started and driven by the official MCP client (`Client` over `StdioClientTransport`),
 * against a loopback store that counts what it receives.
 */
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import type { ReceivedRequest } from "../helpers/fault-server.js";
import { prismUrl } from "../helpers/prism.js";
import { formFileFields, toolCalls } from "../helpers/contract-calls.js";
import { operations } from "../../generated/operation-facts.js";
import { mcpTools } from "../../generated/mcp-tools.js";
import { npmEnv, pinnedVersion, ROOT, run, runOrThrow } from "../package/tarball.js";
import { useStdioFixture } from "./stdio-fixture.js";

/** The operations of generated/: one tool each (the reads without --allow-writes), beside validate_call. */
const OPERATION_KEYS = Object.keys(operations);

const TOKEN = "sk_live_Mcp7Secret9Token42";
const CAP = 32_768;

/** 500 gift cards on one page: far over the result cap. */
const CARDS = Array.from({ length: 500 }, (_, i) => ({
  id: i + 1,
  code: `CARD-${String(i + 1).padStart(5, "0")}`,
  balance: "25.00",
  note: "x".repeat(80),
}));

/** A page whose items 0 and 2 are each over the cap alone. */
const BIG_ITEMS = [9001, 2, 9003, 4].map((id) => ({
  id,
  email: `u${id}@example.com`,
  first_name: id > 9000 ? "x".repeat(40_000) : "Ada",
}));

/** An answer that is a whole array (no cursor): over the cap in all, its item 2 over it alone. */
const FULFILLMENT_ORDERS = Array.from({ length: 6 }, (_, i) => ({
  id: i + 1,
  status: "open",
  note: "y".repeat(i === 2 ? 40_000 : 12_000),
}));

function answer(received: ReceivedRequest) {
  const request = { ...received, path: received.path.replace(/^\/api\/admin/, "") };
  const auth = String(request.headers.authorization ?? "");
  if (received.url === "/api/admin/users/?email=big%40example.com")
    return { body: { next: null, previous: null, results: BIG_ITEMS } };
  if (request.path === "/gift-cards/")
    return {
      body: { next: "http://127.0.0.1/api/admin/gift-cards/?cursor=cD01MDA%3D", previous: null, results: CARDS },
    };
  if (request.path === "/orders/BIG-1/fulfillment-orders/") return { body: FULFILLMENT_ORDERS };
  if (request.path === "/users/42/") return { body: { id: 42, email: "ada@example.com" } };
  if (request.path === "/users/404/") return { status: 404, body: { detail: "Not found." } };
  if (request.path === "/users/400/")
    return {
      status: 400,
      body: { detail: "\u001b]52;c;QUFB\u0007 \u202e reversed \u0000 nul \u0085 \u2067", "\u001b[31mred": ["\u200f"] },
    };
  if (request.path === "/users/429/")
    return { status: 429, headers: { "retry-after": "0" }, body: { detail: "Slow down." } };
  if (request.path === "/users/7/") {
    // A hostile store echoing the token, as it is and encoded.
    const secret = auth.replace(/^Bearer /, "");
    return {
      body: {
        id: 7,
        email: `${secret}@example.com`,
        first_name: secret.toUpperCase(),
        last_name: Buffer.from(`t=${secret}`).toString("base64"),
      },
    };
  }
  if (request.path === "/users/401/") return { status: 401, body: { detail: `Invalid token ${auth}` } };
  if (request.path === "/disputes/5/resolve/")
    return { status: 422, body: { resolution: ["Not a valid choice for this dispute."] } };
  if (request.method === "PATCH" && request.path === "/gift-cards/1/")
    return { body: { id: 1, ...JSON.parse(request.body || "{}") } };
  return { status: 200, body: { id: 1 } };
}

const mcp = useStdioFixture({ answer, token: TOKEN, clientName: "store-admin-sdk-test" });
const env = mcp.env;
const connect = (...flags: string[]): Promise<Client> => mcp.connect(flags);
const connectTo = (environment: Record<string, string>, flags: string[]): Promise<Client> =>
  mcp.connect(flags, { env: environment });

type Json = Record<string, any>;

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join("\n");
const requestsTo = (path: string) => mcp.store.requests.filter((r) => r.path === path);

describe("without @modelcontextprotocol/sdk", () => {
  it("says which package to install and exits 2", async () => {
    const result = await run(process.execPath, [mcp.bin, "mcp"], { env: env(), cwd: mcp.project.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("npm install @modelcontextprotocol/sdk@^1.32");
    // No `npx -p store-admin-sdk@<this version>`: between releases that version has no `mcp` command on the registry.
    expect(result.stderr).not.toContain("npx");
  });
});

let sdkInstalled: Promise<unknown> | undefined;
/** `npm install @modelcontextprotocol/sdk` in the consumer project, once. */
const installSdk = (): Promise<unknown> =>
  (sdkInstalled ??= pinnedVersion("@modelcontextprotocol/sdk").then((version) =>
    runOrThrow(
      "npm install @modelcontextprotocol/sdk",
      "npm",
      ["install", "--no-audit", "--no-fund", "--no-package-lock", `@modelcontextprotocol/sdk@${version}`],
      {
        cwd: mcp.project.dir,
        env: npmEnv(),
        timeoutMs: 300_000,
      },
    ),
  ));

describe("store-admin-sdk mcp", () => {
  beforeAll(installSdk, 600_000);

  it("lists only reads by default, each annotated read-only, with validate_call", async () => {
    const { tools } = await (await connect()).listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain("users_retrieve");
    expect(names).toContain("validate_call");
    expect(names).not.toContain("giftCards_update");
    expect(tools.filter((t) => t.name !== "validate_call").every((t) => t.annotations?.readOnlyHint === true)).toBe(
      true,
    );
    expect(tools).toHaveLength(OPERATION_KEYS.filter((key) => key.startsWith("GET ")).length + 1);
    const retrieve = tools.find((t) => t.name === "users_retrieve")!;
    expect(retrieve.description).toContain("Retrieve a customer");
    expect(retrieve.description).toContain("Needs the scope users:read.");
    expect(retrieve.inputSchema.required).toEqual(["path"]);
  });

  it("--allow-writes adds the writes, with MCP's hints", async () => {
    const { tools } = await (await connect("--allow-writes")).listTools();
    expect(tools).toHaveLength(OPERATION_KEYS.length + 1);
    const hints = (name: string) => tools.find((t) => t.name === name)!.annotations;
    expect(hints("users_replace")).toMatchObject({ readOnlyHint: false, idempotentHint: true, destructiveHint: true });
    expect(hints("giftCards_update")).toMatchObject({
      readOnlyHint: false,
      idempotentHint: false,
      destructiveHint: true,
    });
    expect(hints("disputes_resolve")).toMatchObject({
      readOnlyHint: false,
      idempotentHint: false,
      destructiveHint: true,
    });
    expect(hints("subscriptions_renew")).toMatchObject({ destructiveHint: true });
    expect(hints("products_create")).toMatchObject({
      readOnlyHint: false,
      idempotentHint: false,
      destructiveHint: false,
    });
    expect(hints("disputes_notes_create")).toMatchObject({ destructiveHint: false });
  });

  it("--scopes and --tools narrow the list", async () => {
    const scoped = (
      await (await connect("--allow-writes", "--scopes", "gift_cards:read,users:write")).listTools()
    ).tools
      .map((t) => t.name)
      .sort();
    // The tools whose operation the scopes satisfy, as generated/ lists them.
    const held = new Set(["gift_cards:read", "users:write"]);
    expect(scoped).toEqual(
      [
        ...mcpTools
          .filter((t) => t.scopes.some((alternative) => alternative.every((s) => held.has(s))))
          .map((t) => t.name),
        "validate_call",
      ].sort(),
    );
    expect(scoped).toEqual(
      expect.arrayContaining([
        "giftCards_list",
        "users_addresses_update",
        "users_replace",
        "users_update",
        "validate_call",
      ]),
    );
    const named = (await (await connect("--tools", "giftCards_*,Payments")).listTools()).tools
      .map((t) => t.name)
      .sort();
    // The reads named by the pattern or the tag.
    expect(named).toEqual(
      [
        ...mcpTools
          .filter((t) => t.method === "GET" && (t.name.startsWith("giftCards_") || t.tags.includes("Payments")))
          .map((t) => t.name),
        "validate_call",
      ].sort(),
    );
    expect(named).toEqual(
      expect.arrayContaining(["disputes_retrieve", "gateways_retrieve", "giftCards_list", "validate_call"]),
    );
  });

  it("sends each call as the contract says, with the token and the version header", async () => {
    const client = await connect("--allow-writes");
    const before = mcp.store.requests.length;
    const read = await client.callTool({ name: "users_retrieve", arguments: { path: { id: 42 } } });
    expect(read.isError).toBeFalsy();
    expect(read.structuredContent).toEqual({ id: 42, email: "ada@example.com" });
    expect(JSON.parse(textOf(read))).toEqual({ id: 42, email: "ada@example.com" });
    const write = await client.callTool({
      name: "giftCards_update",
      arguments: { path: { id: 1 }, body: { expired_at: "2027-01-31T00:00:00Z" } },
    });
    expect(write.isError).toBeFalsy();
    const received = mcp.store.requests.slice(before);
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET /api/admin/users/42/",
      "PATCH /api/admin/gift-cards/1/",
    ]);
    expect(JSON.parse(received[1]!.body)).toEqual({ expired_at: "2027-01-31T00:00:00Z" });
    for (const r of received) {
      expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(r.headers["x-store-api-version"]).toBe("2024-04-01");
    }
  });

  it("makes each tool's request: method, path and body as the store received them", async () => {
    const client = await connect("--allow-writes");
    const calls = await toolCalls();
    expect(calls).toHaveLength(OPERATION_KEYS.length);
    for (const { tool, args, call } of calls) {
      const before = mcp.store.requests.length;
      const result = await client.callTool({ name: tool, arguments: args });
      expect(result.isError, `${tool}: ${textOf(result)}`).toBeFalsy();
      const received = mcp.store.requests.slice(before);
      expect(
        received.map((r) => `${r.method} ${r.path}`),
        tool,
      ).toEqual([`${call.method} /api/admin${call.url.pathname}`]);
      if (call.mediaType === "multipart/form-data") {
        expect(formFileFields(call.body).length, tool).toBeGreaterThan(0);
        for (const field of formFileFields(call.body))
          expect(received[0]!.body, tool).toContain(`filename="${field}.txt"`);
      } else if (call.body !== undefined) expect(JSON.parse(received[0]!.body), tool).toEqual(call.body);
      else expect(received[0]!.body, tool).toBe("");
    }
  });

  it("every tool's call passes Prism's check of the contract", async () => {
    const client = await connectTo(env({ STORE_ADMIN_API_URL: prismUrl() }), ["--allow-writes"]);
    for (const { tool, args } of await toolCalls()) {
      const result = await client.callTool({ name: tool, arguments: args });
      expect(result.isError, `${tool}: ${textOf(result)}`).toBeFalsy();
    }
  });

  it("refuses a wrong argument before any request, naming the field", async () => {
    const client = await connect("--allow-writes");
    const before = mcp.store.requests.length;
    const wrongType = await client.callTool({
      name: "giftCards_update",
      arguments: { path: { id: 1 }, body: { expired_at: 12 } },
    });
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toContain("expired_at");
    const unknownField = await client.callTool({
      name: "giftCards_update",
      arguments: { path: { id: 1 }, body: { balance: "1000.00" } },
    });
    expect(unknownField.isError).toBe(true);
    expect(textOf(unknownField)).toContain("balance");
    // Nothing beyond { path, query, body } reaches the request: no URL, no header.
    const smuggled = await client.callTool({
      name: "users_retrieve",
      arguments: { path: { id: 42 }, headers: { authorization: "x" }, baseUrl: "http://127.0.0.2/" },
    });
    expect(smuggled.isError).toBe(true);
    expect(textOf(smuggled)).toMatch(/"headers", "baseUrl" are not one of them/);
    const pathEscape = await client.callTool({
      name: "users_retrieve",
      arguments: { path: { id: "../../gift-cards" } },
    });
    expect(pathEscape.isError).toBe(true);
    expect(mcp.store.requests.length).toBe(before);
  });

  it("refuses a query or path parameter the contract does not declare, or an object for a scalar, naming it; validate_call agrees", async () => {
    const client = await connect();
    const before = mcp.store.requests.length;
    const cases: Array<[string, Json, string]> = [
      ["users_list", { query: { bogus: "x", _method: "DELETE" } }, "query.bogus"],
      ["users_list", JSON.parse('{"query":{"__proto__":{"email":"x"}}}'), "query.__proto__"],
      ["users_list", { query: { email: { a: "x" } } }, "query.email"],
      ["orders_fulfillmentOrders_list", { path: { number: "x", extra: "../" } }, "path.extra"],
      ["users_retrieve", { path: { id: [1, 2] } }, "path.id"],
    ];
    for (const [tool, args, named] of cases) {
      const result = await client.callTool({ name: tool, arguments: args });
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(result)).toContain(named);
      const verdict = await client.callTool({ name: "validate_call", arguments: { tool, arguments: args } });
      expect(verdict.structuredContent, `${tool} ${JSON.stringify(args)}`).toMatchObject({ valid: false });
      expect(String((verdict.structuredContent as { problem: string }).problem)).toContain(named);
    }
    expect(mcp.store.requests.length).toBe(before);
  });

  it("refuses a tool it does not list and sends nothing", async () => {
    const client = await connect();
    const before = mcp.store.requests.length;
    const result = await client.callTool({ name: "giftCards_update", arguments: { path: { id: 1 }, body: {} } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("--allow-writes");
    const scoped = await (await connect("--scopes", "users:read")).callTool({ name: "giftCards_list", arguments: {} });
    expect(scoped.isError).toBe(true);
    expect(textOf(scoped)).toContain("gift_cards:read");
    expect(mcp.store.requests.length).toBe(before);
  });

  it("answers API errors as tool results: a 404, a 422 and a 429", async () => {
    const client = await connect("--allow-writes");
    const notFound = await client.callTool({ name: "users_retrieve", arguments: { path: { id: 404 } } });
    expect(notFound.isError).toBe(true);
    expect(textOf(notFound)).toMatch(/404/);
    const invalid = await client.callTool({
      name: "disputes_resolve",
      arguments: { path: { id: 5 }, body: { resolution: "won" } },
    });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/422/);
    expect(textOf(invalid)).toContain("resolution");
    expect(requestsTo("/api/admin/disputes/5/resolve/")).toHaveLength(1); // a POST is never resent
    const limited = await client.callTool({ name: "users_retrieve", arguments: { path: { id: 429 } } });
    expect(limited.isError).toBe(true);
    expect(textOf(limited)).toMatch(/429/);
  });

  it("an error's text carries no control or bidi character of the store's body", async () => {
    const result = await (await connect()).callTool({ name: "users_retrieve", arguments: { path: { id: 400 } } });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain("reversed");
    expect(text).toContain("The store answered:");
    // The one line break is the result's own, between the SDK's message and the store's body.
    expect(text.split("\n")).toHaveLength(2);
    expect(text).not.toMatch(/[\0-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
  });

  it("cuts a 500-item page under the cap, with the rest of the page and the next cursor reachable", async () => {
    const client = await connect();
    const seen: number[] = [];
    let offset = 0;
    for (let call = 0; call < 100 && offset < CARDS.length; call++) {
      const result = await client.callTool({ name: "giftCards_list", arguments: offset === 0 ? {} : { offset } });
      expect(result.isError).toBeFalsy();
      const size = Buffer.byteLength(textOf(result)) + Buffer.byteLength(JSON.stringify(result.structuredContent));
      expect(size).toBeLessThanOrEqual(CAP);
      const page = result.structuredContent as {
        results: Array<{ id: number }>;
        page_items: number;
        offset: number;
        next_cursor: string;
        note?: string;
      };
      expect(page).toMatchObject({ page_items: 500, offset, next_cursor: "cD01MDA=" });
      seen.push(...page.results.map((card) => card.id));
      offset += page.results.length;
      if (offset < CARDS.length) expect(page.note).toContain(`offset ${offset}`);
      else expect(page.note).toBeUndefined();
      expect(page.results.length).toBeGreaterThan(0);
    }
    expect(seen).toEqual(CARDS.map((card) => card.id));
  });

  it("replaces a list item over the cap alone by a marker naming the tool that reads it, and every call moves on", async () => {
    const client = await connect();
    const seen: Json[] = [];
    let offset = 0;
    for (let call = 0; call < 10 && offset < BIG_ITEMS.length; call++) {
      const result = await client.callTool({
        name: "users_list",
        arguments: { query: { email: "big@example.com" }, ...(offset > 0 ? { offset } : {}) },
      });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(
        Buffer.byteLength(textOf(result)) + Buffer.byteLength(JSON.stringify(result.structuredContent)),
      ).toBeLessThanOrEqual(CAP);
      const page = result.structuredContent as { results: Json[]; note?: string };
      expect(page.results.length, `offset ${offset}`).toBeGreaterThan(0);
      seen.push(...page.results);
      offset += page.results.length;
      if (offset < BIG_ITEMS.length) expect(page.note).toContain(`offset ${offset} `);
    }
    expect(seen).toHaveLength(4);
    expect(seen[0]!.omitted).toMatch(
      /^Item 0 of this page is 400\d\d bytes, over the 32768-byte result cap, and is not shown: read it with users_retrieve, path\.id 9001 /,
    );
    expect(seen[2]!.omitted).toMatch(/^Item 2 of this page is 400\d\d bytes.*users_retrieve, path\.id 9003 /);
    expect([seen[1], seen[3]]).toEqual([BIG_ITEMS[1], BIG_ITEMS[3]]);
  });

  it("reads an answer that is a whole array over the cap in parts, by offset, an item over the cap alone replaced by a marker", async () => {
    const client = await connect();
    const seen: Json[] = [];
    let offset = 0;
    for (let call = 0; call < 10 && offset < FULFILLMENT_ORDERS.length; call++) {
      const result = await client.callTool({
        name: "orders_fulfillmentOrders_list",
        arguments: { path: { number: "BIG-1" }, ...(offset > 0 ? { offset } : {}) },
      });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(
        Buffer.byteLength(textOf(result)) + Buffer.byteLength(JSON.stringify(result.structuredContent)),
      ).toBeLessThanOrEqual(CAP);
      const part = result.structuredContent as { results: Json[]; answer_items: number; offset: number; note?: string };
      expect(part).toMatchObject({ answer_items: 6, offset });
      expect(part.results.length, `offset ${offset}`).toBeGreaterThan(0);
      seen.push(...part.results);
      offset += part.results.length;
      if (offset < FULFILLMENT_ORDERS.length)
        expect(part.note).toContain(`offset ${offset} for the rest of this answer`);
      else expect(part.note).toBeUndefined();
    }
    expect(seen).toHaveLength(6);
    expect(seen[2]!.omitted).toMatch(
      /^Item 2 of this answer is 400\d\d bytes, over the 32768-byte result cap, and is not shown: a server started with a larger maxResultBytes/,
    );
    expect(seen.filter((_, i) => i !== 2)).toEqual(FULFILLMENT_ORDERS.filter((_, i) => i !== 2));
  });

  it("STORE_ADMIN_LOG=debug logs one line per request the store received, none for the contract check", async () => {
    const client = await connectTo(env({ STORE_ADMIN_LOG: "debug" }), ["--allow-writes"]);
    const log = mcp.logOf(client);
    const lines = (text: string) =>
      log
        .join("")
        .split("\n")
        .filter((line) => line.includes(text));
    const before = requestsTo("/api/admin/gift-cards/1/").length;
    expect(
      (await client.callTool({ name: "giftCards_update", arguments: { path: { id: 1 }, body: { expired_at: null } } }))
        .isError,
    ).toBeFalsy();
    // A read after it, logged after it: once its line is in, the write's lines are too.
    expect((await client.callTool({ name: "users_retrieve", arguments: { path: { id: 42 } } })).isError).toBeFalsy();
    for (let i = 0; i < 200 && lines("GET /users/{id}/").length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(requestsTo("/api/admin/gift-cards/1/").length - before).toBe(1);
    expect(lines("PATCH /gift-cards/{id}/")).toHaveLength(1);
    expect(lines("GET /users/{id}/")).toHaveLength(1);
  });

  it("never lets the token out: results, errors and descriptions, in any case or base64", async () => {
    const client = await connect("--allow-writes");
    const outputs = [
      JSON.stringify(await client.listTools()),
      JSON.stringify(await client.callTool({ name: "users_retrieve", arguments: { path: { id: 7 } } })),
      JSON.stringify(await client.callTool({ name: "users_retrieve", arguments: { path: { id: 401 } } })),
    ];
    expect(outputs[1]).toContain("[REDACTED]");
    outputs.push(mcp.logOf(client).join(""));
    expect(outputs.at(-1)).toContain("serving http://127.0.0.1:");
    for (const output of outputs) {
      expect(output.toLowerCase()).not.toContain(TOKEN.toLowerCase());
      expect(output).not.toContain(Buffer.from(`t=${TOKEN}`).toString("base64").slice(4, 24));
    }
  });

  it("validate_call checks a call against the contract and sends nothing", async () => {
    const client = await connect();
    const before = mcp.store.requests.length;
    const bad = await client.callTool({
      name: "validate_call",
      arguments: { tool: "giftCards_update", arguments: { path: { id: 1 }, body: { expired_at: "soon" } } },
    });
    expect(bad.structuredContent).toMatchObject({ valid: false, available: false });
    expect(String((bad.structuredContent as { problem: string }).problem)).toContain("expired_at");
    const good = await client.callTool({
      name: "validate_call",
      arguments: { tool: "users_retrieve", arguments: { path: { id: 42 } } },
    });
    expect(good.structuredContent).toEqual({ valid: true, available: true });
    expect(mcp.store.requests.length).toBe(before);
  });
});

/**
 * docs/mcp.md's configurations, read from the page and started as an MCP client starts them
 * (command, args, env), with the placeholders filled: each must serve at any commit, not only
 * at a release whose version the registry has.
 */
describe("the MCP client configurations docs/mcp.md gives", () => {
  const page = readFileSync(join(ROOT, "docs/mcp.md"), "utf8");
  const blocks = [...page.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  const server = JSON.parse(blocks[0] as string).mcpServers["store-admin"] as {
    command: string;
    args: string[];
    env: Record<string, string>;
  };
  const argsOf = (block: string): string[] => (JSON.parse(`{${block}}`) as { args: string[] }).args;
  beforeAll(installSdk, 600_000);

  async function listToolsWith(command: string, args: string[]): Promise<string[]> {
    // The page's variables, with the test store's address and token.
    expect(Object.keys(server.env).sort()).toEqual(["STORE_ADMIN_TOKEN", "STORE_ADMIN_URL"]);
    const environment = { PATH: process.env.PATH ?? "", STORE_ADMIN_URL: mcp.store.url, STORE_ADMIN_TOKEN: TOKEN };
    const client = await mcp.connectTo({ command, args, env: environment, cwd: tmpdir() });
    return (await client.listTools()).tools.map((t) => t.name);
  }

  it("from a project that depends on the package: its bin by absolute path, started from another folder", async () => {
    expect(server.command).toBe("/path/to/your/project/node_modules/.bin/store-admin-sdk");
    const names = await listToolsWith(server.command.replace("/path/to/your/project", mcp.project.dir), server.args);
    expect(names).toContain("users_retrieve");
  });

  it("from a packed tarball with `npx -y`: the package and the MCP SDK from npx's cache", async () => {
    const args = argsOf(blocks.find((b) => b.includes(".tgz")) ?? "").map((a) =>
      a.replace("/path/to/store-admin-sdk-<version>.tgz", mcp.project.pack.tarball),
    );
    expect(args).toContain(mcp.project.pack.tarball);
    // npx installs on its first start; do that outside the client's initialize timeout.
    await runOrThrow("npx (first start)", "npx", [...args, "--help"], { env: npmEnv(), timeoutMs: 300_000 });
    expect(await listToolsWith("npx", args)).toContain("users_retrieve");
  }, 400_000);
});
