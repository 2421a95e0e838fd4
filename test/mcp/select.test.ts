/**
 * `select` on the per-operation tools and on the dynamic mode's `call_operation`: the fields
 * named kept from the result (from each item of a page), before the result cap, the argument
 * checked with an error naming what is wrong, and declared by each tool's input schema. Driven by
 * the official MCP client over an in-memory transport against a loopback store that counts what
 * it receives.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_SELECT_PATHS } from "../../src/mcp/select.js";
import { inMemoryMcp } from "./in-memory-fixture.js";
import type { ReceivedRequest } from "../helpers/fault-server.js";

const TOKEN = "sk_live_Se1ectT0ken42";
/** A customer as the store answers one: about 1 KB, most of it fields a task does not need. */
const customer = (id: number) => ({
  id,
  email: `c${id}@example.com`,
  first_name: "Ada",
  last_name: "Lovelace",
  note: "x".repeat(600),
  addresses: [
    { id: id * 10, city: "London", street: "1 Long Street", zip: "N1" },
    { id: id * 10 + 1, city: "Paris", street: "2 Rue Longue", zip: "75001" },
  ],
  metadata: { source: "import", deep: { kept: true, dropped: "y".repeat(100) } },
});
const PAGE = { next: null, previous: null, results: Array.from({ length: 40 }, (_, i) => customer(i + 1)) };

function answer(received: ReceivedRequest) {
  const path = received.path.replace(/^\/api\/admin/, "");
  if (path === "/users/") return { body: PAGE };
  if (path === "/users/7/") return { body: customer(7) };
  return { status: 404, body: { detail: "Not found." } };
}

const mcp = inMemoryMcp(answer, { token: TOKEN, name: "select-test", options: { maxResultBytes: 8_192 } });
const connect = mcp.connect.bind(mcp);

type Json = Record<string, any>;
type Result = Awaited<ReturnType<Client["callTool"]>>;
const textOf = (result: Result) => (result.content as Array<{ text: string }>).map((c) => c.text).join("\n");

/** Each way to call an operation: its own tool, or the dynamic mode's call_operation. */
const WAYS = [
  {
    way: "the operation's own tool",
    options: {},
    call: (client: Client, method: string, args: Json) =>
      client.callTool({ name: method.replace(".", "_"), arguments: args }),
  },
  {
    way: "call_operation",
    options: { mode: "dynamic" as const },
    call: (client: Client, method: string, args: Json) =>
      client.callTool({ name: "call_operation", arguments: { method, arguments: args } }),
  },
];

describe.each(WAYS)("select through $way", ({ options, call }) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(options);
  });

  it("keeps the fields named of a resource, into nested objects and through lists", async () => {
    const result = await call(client, "users.retrieve", {
      path: { id: 7 },
      select: ["id", "email", "addresses.city", "metadata.deep.kept", "missing"],
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      id: 7,
      email: "c7@example.com",
      addresses: [{ city: "London" }, { city: "Paris" }],
      metadata: { deep: { kept: true } },
    });
    expect(mcp.store.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /api/admin/users/7/"]);
  });

  it("keeps them from each item of a page, before the cap: the whole page fits where unselected it is cut", async () => {
    const whole = (await call(client, "users.list", {})).structuredContent as Json;
    expect(whole.results.length).toBeLessThan(PAGE.results.length);
    expect(whole.note).toContain("offset");
    const result = await call(client, "users.list", { select: ["id", "email"] });
    const page = result.structuredContent as Json;
    expect(page).toMatchObject({ page_items: 40, offset: 0, next_cursor: null });
    expect(page.note).toBeUndefined();
    expect(page.results).toEqual(PAGE.results.map(({ id, email }) => ({ id, email })));
  });

  it.each([
    ["not a list", "id", 'select must be a list of field paths such as ["id", "email"], got "id".'],
    ["an empty list", [], "select must name at least one field path"],
    ["a path that is not a string", ["id", 3], "select[1] must be a field path (a string), got 3."],
    ["an empty path", ["id", ""], 'select[1] "" is not a field path: it has an empty field name'],
    ["an empty field name", ["addresses..city"], 'select[0] "addresses..city" is not a field path'],
    [
      "too many paths",
      Array.from({ length: MAX_SELECT_PATHS + 1 }, (_, i) => `f${i}`),
      `select names ${MAX_SELECT_PATHS + 1} field paths; a call selects at most ${MAX_SELECT_PATHS}.`,
    ],
  ])("refuses %s, naming what is wrong, and sends nothing", async (_what, select, message) => {
    const result = await call(client, "users.retrieve", { path: { id: 7 }, select });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("Not sent: ");
    expect(textOf(result)).toContain(message);
    expect(mcp.store.requests).toHaveLength(0);
  });
});

describe("select in the tools' schemas", () => {
  const SELECT = { type: "array", items: { type: "string" }, maxItems: MAX_SELECT_PATHS };

  it("every per-operation tool's input schema declares it", async () => {
    const client = await connect({ allowWrites: true });
    const { tools } = await client.listTools();
    const operations = tools.filter((t) => t.name !== "validate_call");
    expect(operations.length).toBeGreaterThan(10);
    for (const tool of operations) expect(tool.inputSchema.properties?.select, tool.name).toMatchObject(SELECT);
  });

  it("call_operation's arguments and describe_operation's schema declare it; validate_call checks it", async () => {
    const client = await connect({ mode: "dynamic" });
    const { tools } = await client.listTools();
    const callTool = tools.find((t) => t.name === "call_operation")!;
    expect((callTool.inputSchema.properties as Json).arguments.properties.select).toMatchObject(SELECT);
    const described = await client.callTool({ name: "describe_operation", arguments: { method: "users.list" } });
    expect((described.structuredContent as Json).arguments.properties.select).toMatchObject(SELECT);
    const valid = await client.callTool({
      name: "validate_call",
      arguments: { method: "users.retrieve", arguments: { path: { id: 7 }, select: ["id"] } },
    });
    expect(valid.structuredContent).toMatchObject({ valid: true });
    const invalid = await client.callTool({
      name: "validate_call",
      arguments: { method: "users.retrieve", arguments: { path: { id: 7 }, select: "id" } },
    });
    expect(invalid.structuredContent).toMatchObject({ valid: false });
    expect((invalid.structuredContent as Json).problem).toContain("select must be a list of field paths");
    expect(mcp.store.requests).toHaveLength(0);
  });
});

describe("select in code mode", () => {
  it("search_docs shows how to keep a list's fields in code, and that code runs as shown", async () => {
    const client = await connect({ mode: "code" });
    const found = (await client.callTool({ name: "search_docs", arguments: { query: "list customers" } }))
      .structuredContent as Json;
    expect(found.select).toContain("for await (const item of store.users.list(…))");
    const code = String(found.select).slice(String(found.select).indexOf("const kept")).replace("(…)", "()");
    const ran = await client.callTool({ name: "execute", arguments: { code } }, undefined, { timeout: 110_000 });
    expect(ran.isError, JSON.stringify(ran.content)).toBeFalsy();
    expect((ran.structuredContent as Json).result).toEqual(PAGE.results.map(({ id, email }) => ({ id, email })));
  }, 120_000);
});
