/**
 * What code mode's type check sees: `store` declares only the methods the server's flags allow
 * (a write without --allow-writes, a method --tools leaves out, fail the type check and nothing
 * runs). Driven by the official MCP client over an in-memory transport against a loopback store
 * that counts what it receives.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { inMemoryMcp } from "./in-memory-fixture.js";
import { storeAnswer, TOKEN } from "./code-mode-store.js";

const mcp = inMemoryMcp(storeAnswer, { token: TOKEN, name: "code-mode-declarations-test", options: { mode: "code" } });
const connect = mcp.connect.bind(mcp);

type Json = Record<string, any>;
const execute = async (client: Client, code: string) => {
  const result = await client.callTool({ name: "execute", arguments: { code } }, undefined, { timeout: 110_000 });
  const text = (result.content as Array<{ text: string }>).map((c) => c.text).join("\n");
  return { result, text, structured: result.structuredContent as Json };
};

const WRITE = 'const card = await store.giftCards.update(1, { expired_at: "2027-01-01T00:00:00Z" });\nreturn card.id;';
const READ =
  "const cards = [];\nfor await (const card of store.giftCards.list()) cards.push(card.id);\nreturn cards.length;";

describe("store's declarations follow the server's flags", () => {
  it("without --allow-writes a write method is not declared: the type check fails, naming the flag, and nothing runs", async () => {
    const reads = await connect();
    const { result, text, structured } = await execute(reads, WRITE);
    expect(result.isError).toBe(true);
    expect(structured.compiled).toBe(false);
    expect(structured.errors[0]).toMatchObject({ line: 1, code: 2339 });
    expect(text).toContain("Property 'update' does not exist");
    expect(text).toContain("--allow-writes");
    expect(mcp.store.requests).toHaveLength(0);
    // Reads stay declared and run.
    const read = await execute(reads, READ);
    expect(read.result.isError, read.text).toBeFalsy();
  }, 120_000);

  it("with --allow-writes the same write type-checks and is sent", async () => {
    const writes = await connect({ allowWrites: true });
    const { result, text } = await execute(writes, WRITE);
    expect(text).not.toContain("does not type-check");
    expect(result.isError, text).toBeFalsy();
    expect(mcp.store.requests.map((r) => r.method)).toEqual(["PATCH"]);
  }, 120_000);

  it("--tools narrows what is declared: a method it leaves out fails the type check", async () => {
    const users = await connect({ tools: ["users.*"] });
    const { structured, text } = await execute(users, READ);
    expect(structured.compiled).toBe(false);
    expect(text).toContain("Property 'giftCards' does not exist");
    expect(mcp.store.requests).toHaveLength(0);
    const ok = await execute(users, "const user = await store.users.retrieve(42);\nreturn user.id;");
    expect(ok.text).not.toContain("does not type-check");
  }, 120_000);
});
