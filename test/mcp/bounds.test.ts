/**
 * What the MCP server keeps and what one result may carry, from the packed tarball, driven by
 * the official MCP client over stdio: the contract check keeps nothing of the calls it checks
 * (1,000 checks of 1 MB in a 64 MB heap), and no result is over the cap, the whole serialized
 * result counted, whatever the store puts in a page or an argument holds.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import type { ReceivedRequest } from "../helpers/fault-server.js";
import { mcpSdk, useStdioFixture } from "./stdio-fixture.js";

const TOKEN = "sk_live_Mcp7Bounds9Token42";
const CAP = 32_768;

const users = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    email: `u${i + 1}@example.com`,
    first_name: "Ada",
    last_name: "x".repeat(100),
  }));
const LONG_CURSOR = "c".repeat(40_000);
const LONG_ID = "7".repeat(50_000);

/** Pages a hostile store sends, by the `email` asked for. */
function answer(received: ReceivedRequest) {
  const email = received.query.get("email");
  if (email === "beside@example.com")
    return { body: { next: null, previous: null, results: users(300), facets: "f".repeat(100_000) } };
  if (email === "cursor@example.com")
    return {
      body: { next: `http://127.0.0.1/api/admin/users/?cursor=${LONG_CURSOR}`, previous: null, results: users(300) },
    };
  if (email === "long-id@example.com")
    return { body: { next: null, previous: null, results: [{ id: LONG_ID, email: "a@example.com" }, ...users(3)] } };
  if (received.path === "/api/admin/users/422/")
    return { status: 422, body: { detail: "d".repeat(200_000), ["k".repeat(50_000)]: ["v".repeat(50_000)] } };
  if (received.path === "/api/admin/users/1/")
    return { body: { id: 1, email: "a@example.com", first_name: "n".repeat(200_000) } };
  return { body: { id: 1 } };
}

const mcp = useStdioFixture({
  answer,
  token: TOKEN,
  clientName: "store-admin-sdk-bounds",
  packages: async () => [await mcpSdk()],
});
const connect = (nodeFlags: string[] = []): Promise<Client> => mcp.connect([], { nodeFlags });

type Result = Awaited<ReturnType<Client["callTool"]>>;
const textOf = (result: Result) =>
  (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join("\n");
/** The result as the JSON-RPC response carries it. */
const bytesOf = (result: Result) => Buffer.byteLength(JSON.stringify(result));

describe("the MCP server's memory", () => {
  it("keeps nothing of the calls it checks: 1,000 validate_call of 1 MB in a 64 MB heap, each answered", async () => {
    const client = await connect(["--max-old-space-size=64"]);
    const message = "m".repeat(1_000_000);
    const before = mcp.store.requests.length;
    const verdicts = new Map<string, number>();
    for (let i = 0; i < 1_000; i++) {
      const result = await client.callTool({
        name: "validate_call",
        arguments: { tool: "disputes_notes_create", arguments: { path: { id: i + 1 }, body: { message } } },
      });
      const verdict = JSON.stringify(result.structuredContent);
      verdicts.set(verdict, (verdicts.get(verdict) ?? 0) + 1);
    }
    // One verdict, 1,000 times: the call matches the contract (a write, which this server does not list).
    expect([...verdicts.values()]).toEqual([1_000]);
    expect(JSON.parse([...verdicts.keys()][0]!)).toMatchObject({ valid: true, available: false });
    expect(mcp.store.requests.length).toBe(before);
  }, 300_000);
});

describe("the result cap, every field counted", () => {
  it("holds whatever the store or the arguments put in a result, and clips what it echoes", async () => {
    const client = await connect();
    const emails = Array.from({ length: 4_000 }, (_, i) => `someone.${i}@example.com`);
    const calls: Array<[string, string, Record<string, unknown>]> = [
      ["a 100 KB field beside results", "users_list", { query: { email: "beside@example.com" } }],
      ["its next part", "users_list", { query: { email: "beside@example.com" }, offset: 100 }],
      ["a 40 KB next cursor", "users_list", { query: { email: "cursor@example.com" } }],
      ["an over-cap item whose id is 50 KB", "users_list", { query: { email: "long-id@example.com" } }],
      ["a refusal echoing 4,000 emails", "users_list", { query: { email: emails } }],
      ["a query name of 100 KB", "users_list", { query: { ["q".repeat(100_000)]: "x" } }],
      ["an argument name of 100 KB", "users_list", { ["a".repeat(100_000)]: 1 }],
      ["an offset of 100 KB", "users_list", { offset: "9".repeat(100_000) }],
      ["a path value of 100 KB", "users_retrieve", { path: { id: "1".repeat(100_000) } }],
      ["a store's 422 of 300 KB", "users_retrieve", { path: { id: 422 } }],
      ["a resource of 200 KB", "users_retrieve", { path: { id: 1 } }],
      ["a tool name of 100 KB", "t".repeat(100_000), {}],
      [
        "validate_call of 4,000 emails",
        "validate_call",
        { tool: "users_list", arguments: { query: { email: emails } } },
      ],
      ["validate_call of a tool name of 100 KB", "validate_call", { tool: "t".repeat(100_000) }],
      [
        "validate_call of a 100 KB argument name",
        "validate_call",
        { tool: "users_list", arguments: { ["a".repeat(100_000)]: 1 } },
      ],
    ];
    const sizes: Record<string, number> = {};
    for (const [what, name, args] of calls) {
      const result = await client.callTool({ name, arguments: args });
      sizes[what] = bytesOf(result);
    }
    console.log(`[result cap ${CAP}] serialized result sizes: ${JSON.stringify(sizes)}`);
    for (const [what, size] of Object.entries(sizes)) expect(size, what).toBeLessThanOrEqual(CAP);
  }, 120_000);

  it("a page's field beside results is replaced by a note of its size when it would not fit, and the page still moves on", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "users_list", arguments: { query: { email: "beside@example.com" } } });
    const page = result.structuredContent as { results: unknown[]; facets: string; note: string };
    expect(page.facets).toMatch(/^\[cut: 100002 bytes, over what a result shows beside its items\]$/);
    expect(page.results.length).toBeGreaterThan(10);
    expect(page.note).toContain(`offset ${page.results.length}`);
  });

  it("a next cursor too long to show is named, not quoted, and never repeated in the note", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "users_list", arguments: { query: { email: "cursor@example.com" } } });
    expect(textOf(result)).not.toContain("c".repeat(100));
    const page = result.structuredContent as { next_cursor: unknown; note: string };
    expect(page.next_cursor).toBeNull();
    expect(page.note).toMatch(/the next page's cursor is 40000 characters long, too long for a result/);
  });

  it("an over-cap item whose id is too long to quote is marked without it", async () => {
    const client = await connect();
    const result = await client.callTool({
      name: "users_list",
      arguments: { query: { email: "long-id@example.com" } },
    });
    expect(textOf(result)).not.toContain("7".repeat(100));
    const page = result.structuredContent as { results: Array<{ omitted?: string }> };
    expect(page.results[0]!.omitted).toMatch(
      /^Item 0 of this page is 500\d\d bytes, over the 32768-byte result cap, and is not shown: its id is 50000 characters long/,
    );
  });

  it("a refusal names the parameter and clips the value it echoes", async () => {
    const client = await connect();
    // A value openapi-fetch cannot write into a URL as it is (an object in the list): refused before the kit, the value echoed clipped.
    const emails = [...Array.from({ length: 4_000 }, (_, i) => `someone.${i}@example.com`), { a: 1 }];
    const refused = await client.callTool({ name: "users_list", arguments: { query: { email: emails } } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /users_list: query\.email must be a string, number or boolean, or a list of them, got \["someone\.0@example\.com",.{0,200}…\(\d+ characters\)\./,
    );
    const verdict = await client.callTool({
      name: "validate_call",
      arguments: { tool: "users_list", arguments: { query: { email: emails } } },
    });
    expect(verdict.structuredContent).toMatchObject({
      valid: false,
      problem: expect.stringContaining("query.email must be"),
    });
    // A list where the contract takes one string: the testing kit's check names it, and echoes nothing of the value.
    const list = emails.slice(0, -1);
    const kit = await client.callTool({ name: "users_list", arguments: { query: { email: list } } });
    expect(kit.isError).toBe(true);
    expect(textOf(kit)).toMatch(
      /^Not sent: the call does not match the contract \(checked here; the store was not asked\): query\.email: must be string\./,
    );
    expect(textOf(kit)).not.toContain("someone.0@example.com");
  });
});
