/**
 * `store-admin-sdk mcp --mode dynamic` as an agent's host runs it: from the packed tarball,
 * driven by the official MCP client over stdio, against a loopback store that counts what it
 * receives, and against Prism. The agent finds an operation with `search_operations`, reads it
 * with `describe_operation` and calls it with `call_operation`; the policy (reads only unless
 * --allow-writes, --scopes, --tools) decides what a search finds and what a call may send.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import type { ReceivedRequest } from "../helpers/fault-server.js";
import { prismUrl } from "../helpers/prism.js";
import { mcpTools } from "../../generated/mcp-tools.js";
import { run } from "../package/tarball.js";
import { mcpSdk, useStdioFixture } from "./stdio-fixture.js";

const TOKEN = "sk_live_Dyn4mic7Token91";
const DYNAMIC_TOOLS = ["call_operation", "describe_operation", "search_operations", "validate_call"];
/** The most `tools/list` may take in the dynamic mode, whatever the contract's size. */
const LIST_CEILING = 8 * 1024;

const NOTES = {
  next: null,
  previous: null,
  results: [
    { id: 3, body: "Prefers email." },
    { id: 4, body: "VIP." },
  ],
};

function answer(received: ReceivedRequest) {
  const path = received.path.replace(/^\/api\/admin/, "");
  if (path === "/users/42/notes/") return { body: NOTES };
  if (path === "/users/42/") return { body: { id: 42, email: "ada@example.com" } };
  if (path === "/users/7/")
    return { body: { id: 7, email: `${String(received.headers.authorization).replace(/^Bearer /, "")}@example.com` } };
  if (received.method === "PATCH" && path === "/gift-cards/1/")
    return { body: { id: 1, ...JSON.parse(received.body || "{}") } };
  return { body: { id: 1 } };
}

const mcp = useStdioFixture({
  answer,
  token: TOKEN,
  clientName: "store-admin-sdk-dynamic",
  packages: async () => [await mcpSdk()],
});
const connect = (flags: string[], env?: Record<string, string>): Promise<Client> =>
  mcp.connect(["--mode", "dynamic", ...flags], { env });

type Json = Record<string, any>;
type Result = Awaited<ReturnType<Client["callTool"]>>;
const textOf = (result: Result) =>
  (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join("\n");
const call = (client: Client, name: string, args: Json) => client.callTool({ name, arguments: args });
const structured = (result: Result) => result.structuredContent as Json;
/** What `work` sent the store. */
async function sentBy(work: () => Promise<unknown>): Promise<string[]> {
  const before = mcp.store.requests.length;
  await work();
  return mcp.store.requests.slice(before).map((r) => `${r.method} ${r.url}`);
}

describe("tools/list", () => {
  it(`is the same four tools under ${LIST_CEILING} B, whatever --scopes and --tools allow; call_operation is read-only unless --allow-writes`, async () => {
    const sizes = { reads: new Set<number>(), writes: new Set<number>() };
    for (const flags of [
      [],
      ["--scopes", "users:read"],
      ["--tools", "giftCards_*"],
      ["--allow-writes"],
      ["--allow-writes", "--scopes", "users:read"],
      ["--allow-writes", "--tools", "giftCards_*"],
    ]) {
      const client = await connect(flags);
      const listing = await client.listTools();
      expect(listing.tools.map((t) => t.name).sort()).toEqual(DYNAMIC_TOOLS);
      const writes = flags.includes("--allow-writes");
      expect(listing.tools.find((t) => t.name === "call_operation")!.annotations).toMatchObject(
        writes ? { readOnlyHint: false, destructiveHint: true } : { readOnlyHint: true },
      );
      expect(
        listing.tools.filter((t) => t.name !== "call_operation").every((t) => t.annotations?.readOnlyHint === true),
      ).toBe(true);
      sizes[writes ? "writes" : "reads"].add(Buffer.byteLength(JSON.stringify(listing)));
      await client.close(); // six servers: one at a time
    }
    console.info(
      `[mcp] tools/list in the dynamic mode: ${[...sizes.reads]} B, with --allow-writes ${[...sizes.writes]} B`,
    );
    expect(sizes.reads.size).toBe(1);
    expect(sizes.writes.size).toBe(1);
    expect(Math.max(...sizes.reads, ...sizes.writes)).toBeLessThan(LIST_CEILING);
  }, 120_000);
});

describe("search → describe → call", () => {
  it("finds, describes and calls an operation, and only the call reaches the store, once", async () => {
    const client = await connect([]);
    let method = "";
    let example: Json = {};
    const searching = await sentBy(async () => {
      const found = structured(
        await call(client, "search_operations", { query: "read the notes staff left on a customer", limit: 5 }),
      );
      expect(found.results[0]).toEqual({
        method: "users.notes.list",
        summary: "List a customer's notes",
        scopes: [["users:read"]],
        writes: false,
      });
      method = found.results[0].method;
      const described = await call(client, "describe_operation", { method });
      expect(described.isError).toBeFalsy();
      const about = structured(described);
      expect(about).toMatchObject({
        method,
        operation: "GET /users/{id}/notes/",
        writes: false,
        scopes: [["users:read"]],
      });
      expect(about.description).toContain("notes kept on a customer");
      expect(about.arguments.required).toEqual(["path"]);
      expect(about.arguments.properties.path.required).toEqual(["id"]);
      expect(about.limits.result_bytes).toBe(32_768);
      expect(about.limits.paging).toContain("next_cursor");
      example = about.example;
      expect(example).toEqual({ method, arguments: { path: { id: 1 } } });
    });
    expect(searching).toEqual([]);
    const sent = await sentBy(async () => {
      const result = await call(client, "call_operation", { method, arguments: { path: { id: 42 } } });
      expect(result.isError).toBeFalsy();
      expect(structured(result)).toMatchObject({ results: NOTES.results, page_items: 2, offset: 0, next_cursor: null });
    });
    expect(sent).toEqual(["GET /api/admin/users/42/notes/"]);
    expect(mcp.store.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("answers a call as the operation's own tool answers it: one function serves both modes", async () => {
    const dynamic = await connect([]);
    const perOperation = await mcp.connect([]);
    for (const id of [42, 7]) {
      const viaDynamic = await call(dynamic, "call_operation", {
        method: "users.retrieve",
        arguments: { path: { id } },
      });
      const viaTool = await call(perOperation, "users_retrieve", { path: { id } });
      expect(viaDynamic).toEqual(viaTool);
    }
    // The store echoed the token in user 7's email: redacted in both.
    const echoed = await call(dynamic, "call_operation", { method: "users.retrieve", arguments: { path: { id: 7 } } });
    expect(JSON.stringify(echoed)).not.toContain(TOKEN);
  });

  it("refuses arguments the contract refuses, naming the field, and sends nothing", async () => {
    const client = await connect(["--allow-writes"]);
    const sent = await sentBy(async () => {
      const result = await call(client, "call_operation", {
        method: "giftCards.update",
        arguments: { path: { id: 1 }, body: { expired_at: "soon" } },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(
        /^Not sent: the call does not match the contract \(checked here; the store was not asked\): (?![A-Z]+ \/).*expired_at/s,
      );
      const unknown = await call(client, "call_operation", {
        method: "giftCards.update",
        arguments: { path: { id: 1 }, body: {}, headers: { authorization: "x" } },
      });
      expect(textOf(unknown)).toContain('giftCards.update takes path, body, select; "headers" is not one of them.');
      const verdict = structured(
        await call(client, "validate_call", {
          method: "giftCards.update",
          arguments: { path: { id: 1 }, body: { expired_at: "soon" } },
        }),
      );
      expect(verdict).toMatchObject({ valid: false, available: true });
    });
    expect(sent).toEqual([]);
    const written = await sentBy(() =>
      call(client, "call_operation", {
        method: "giftCards.update",
        arguments: { path: { id: 1 }, body: { expired_at: "2027-01-31T00:00:00Z" } },
      }),
    );
    expect(written).toEqual(["PATCH /api/admin/gift-cards/1/"]);
  });

  it("names an unknown operation's nearest ones, and an unknown field of a tool", async () => {
    const client = await connect([]);
    const result = await call(client, "call_operation", { method: "giftCard.list" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^There is no operation "giftCard\.list"\. Did you mean giftCards\.list/);
    expect(textOf(await call(client, "describe_operation", {}))).toContain("describe_operation takes { method }");
    expect(textOf(await call(client, "search_operations", { query: "cards", limit: 500 }))).toContain(
      "search_operations: limit must be a whole number from 1 to 50, got 500.",
    );
    expect(textOf(await call(client, "search_operations", { query: "cards", page: 2 }))).toContain(
      'search_operations takes query, limit, cursor; "page" is not one of them.',
    );
  });

  it("gives every operation an example call the contract accepts", async () => {
    const client = await connect(["--allow-writes"]);
    const sent = await sentBy(async () => {
      for (const tool of mcpTools) {
        const { example } = structured(await call(client, "describe_operation", { method: tool.methodName }));
        const verdict = structured(await call(client, "validate_call", example));
        expect(verdict, `${tool.methodName}: ${JSON.stringify(example)}`).toEqual({ valid: true, available: true });
      }
    });
    expect(sent).toEqual([]);
  });
});

describe("the policy", () => {
  it("without --allow-writes, a search finds no write and a write is refused: 0 requests", async () => {
    const client = await connect([]);
    const sent = await sentBy(async () => {
      const found = structured(await call(client, "search_operations", { query: "update a gift card", limit: 50 }));
      expect(found.results.map((r: Json) => r.method)).not.toContain("giftCards.update");
      expect(found.results.every((r: Json) => r.writes === false)).toBe(true);
      const result = await call(client, "call_operation", {
        method: "giftCards.update",
        arguments: { path: { id: 1 }, body: { expired_at: null } },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        "Not sent: giftCards.update changes data (PATCH /gift-cards/{id}/), and this server lists only reads: start it with --allow-writes (allowWrites: true) to allow writes.",
      );
      expect(textOf(await call(client, "describe_operation", { method: "giftCards.update" }))).toContain(
        "--allow-writes",
      );
    });
    expect(sent).toEqual([]);
  });

  it("outside --scopes, a search does not find the operation and a call is refused: 0 requests", async () => {
    const client = await connect(["--allow-writes", "--scopes", "gift_cards:read"]);
    const sent = await sentBy(async () => {
      const found = structured(await call(client, "search_operations", { query: "customer", limit: 50 }));
      expect(found.results.map((r: Json) => r.method)).toEqual(["giftCards.list"]);
      const result = await call(client, "call_operation", {
        method: "users.retrieve",
        arguments: { path: { id: 42 } },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(
        "users.retrieve needs the scope users:read, which the scopes this server was given (gift_cards:read) do not include.",
      );
    });
    expect(sent).toEqual([]);
  });

  it("--tools narrows what a search finds, by tool name, method name or tag", async () => {
    const search = { query: "gift card dispute gateway customer", limit: 50 };
    // What the contract offers under the patterns (a method name or a tag), from the generated tools.
    const allowed = new Set(
      mcpTools
        .filter((tool) => tool.methodName.startsWith("giftCards.") || tool.tags.includes("Payments"))
        .map((tool) => tool.methodName),
    );
    const everything = await connect([]);
    const unfiltered: string[] = structured(await call(everything, "search_operations", search)).results.map(
      (r: Json) => r.method,
    );
    await everything.close();
    const client = await connect(["--tools", "giftCards.*,Payments"]);
    const found: string[] = structured(await call(client, "search_operations", search)).results.map(
      (r: Json) => r.method,
    );
    // The same search, narrowed to the patterns: by method name and by tag, and nothing else.
    expect(found.sort()).toEqual(unfiltered.filter((method) => allowed.has(method)).sort());
    expect(found.some((method) => method.startsWith("giftCards."))).toBe(true);
    expect(found.some((method) => !method.startsWith("giftCards."))).toBe(true);
    expect(unfiltered.some((method) => !allowed.has(method))).toBe(true);
  });
});

describe("against Prism", () => {
  it("search → describe → call answers what the contract's examples say", async () => {
    const client = await connect(["--allow-writes"], mcp.env({ STORE_ADMIN_API_URL: prismUrl() }));
    const found = structured(
      await call(client, "search_operations", { query: "move a gift card to another customer", limit: 5 }),
    );
    expect(found.results.map((r: Json) => r.method)).toContain("giftCards.update");
    const { example } = structured(await call(client, "describe_operation", { method: "giftCards.update" }));
    const result = await call(client, "call_operation", example);
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(structured(result).id).toEqual(expect.any(Number));
    const list = await call(client, "call_operation", { method: "giftCards.list" });
    expect(list.isError, textOf(list)).toBeFalsy();
    expect(Array.isArray(structured(list).results)).toBe(true);
  });
});

describe("--mode", () => {
  it("refuses a mode it does not have, naming the modes, and exits 2", async () => {
    const result = await run(process.execPath, [mcp.bin, "mcp", "--mode", "fast"], {
      env: mcp.env(),
      cwd: mcp.project.dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'store-admin-sdk mcp: --mode must be "per-operation" or "dynamic" or "code", got "fast".',
    );
  });
});
