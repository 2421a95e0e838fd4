/**
 * Code mode (`mode: "code"`): `search_docs` and `execute`, driven by the official MCP client
 * over an in-memory transport against a loopback store that counts what it receives. The
 * customers-with-notes task in one execute, type errors before anything runs, and the escape
 * suite: each attempt contained, the server serving the next call, no token in any result.
 * (test/package/code-mode.test.ts runs the packed CLI over stdio.)
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { inMemoryMcp } from "./in-memory-fixture.js";
import { codeModeHost, type SentCall } from "../../src/mcp/code/host.js";
import { codeModeDocs } from "../../generated/code-mode-docs.js";
import { INVALID_ADDRESS, NOTES_CODE, NOTES_TASK, storeAnswer, TOKEN } from "./code-mode-store.js";

const mcp = inMemoryMcp(storeAnswer, { token: TOKEN, name: "code-mode-test", options: { mode: "code" } });
const connect = mcp.connect.bind(mcp);

type Json = Record<string, any>;
const execute = async (client: Client, code: string) => {
  const result = await client.callTool({ name: "execute", arguments: { code } });
  const text = (result.content as Array<{ text: string }>).map((c) => c.text).join("\n");
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain(TOKEN.slice(4, 16));
  return { result, text, structured: result.structuredContent as Json };
};

let reads: Client;
let writes: Client;
/** A memory limit and a CPU time a memory bomb does not reach first, however busy the machine (the CPU limit holds inside a long string copy too). */
let memory: Client;
beforeAll(async () => {
  reads = await connect();
  writes = await connect({ allowWrites: true, code: { maxCalls: 5, cpuMs: 300, memoryBytes: 16 * 1024 * 1024 } });
  memory = await connect({ code: { memoryBytes: 16 * 1024 * 1024, cpuMs: 60_000 } });
  // The workers' first start (TypeScript's declarations parsed, QuickJS compiled) before the tests, which then measure nothing of it.
  for (const client of [reads, writes, memory])
    await client.callTool({ name: "execute", arguments: { code: "return 1;" } }, undefined, { timeout: 110_000 });
});

describe("code mode's tools", () => {
  it("lists search_docs and execute only", async () => {
    const { tools } = await reads.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search_docs", "execute"]);
  });

  it("search_docs finds a method with its sandbox signature, scopes and an example; writes only when allowed", async () => {
    const found = (await reads.callTool({ name: "search_docs", arguments: { query: "notes of a customer" } }))
      .structuredContent as Json;
    const notes = found.methods.find((m: Json) => m.method === "store.users.notes.list");
    expect(notes.signature).toBe(
      "store.users.notes.list(id: number, query?: ListUserNotesQuery): AsyncGenerator<Note, void, undefined>",
    );
    expect(notes.scopes).toEqual([["users:read"]]);
    expect(notes.example).toContain("store.users.notes.list(");
    const update = async (client: Client) =>
      (
        (await client.callTool({ name: "search_docs", arguments: { query: "update gift card" } }))
          .structuredContent as Json
      ).methods.map((m: Json) => m.method);
    expect(await update(reads)).not.toContain("store.giftCards.update");
    expect(await update(writes)).toContain("store.giftCards.update");
  });
});

describe("search_docs' notes", () => {
  it("says when methods that change data match but are hidden, and which flag shows them; says nothing of them when writes are allowed", async () => {
    const hidden = (await reads.callTool({ name: "search_docs", arguments: { query: "update gift card" } }))
      .structuredContent as Json;
    expect(hidden.note).toMatch(
      /^\d+ methods that change data also match \(giftCards\.update[,)].*hidden: this server lists only reads\. Start it with --allow-writes \(allowWrites: true\) to see and call them\.$/,
    );
    const shown = (await writes.callTool({ name: "search_docs", arguments: { query: "update gift card" } }))
      .structuredContent as Json;
    expect(shown.note).toBeUndefined();
  });

  it("says a best hit is weak when no word of the query is in its name, summary or tags", async () => {
    const weak = (await reads.callTool({ name: "search_docs", arguments: { query: "custmer" } }))
      .structuredContent as Json;
    expect(weak.methods.length).toBeGreaterThan(0);
    expect(weak.note).toContain(
      `The best match (${weak.methods[0].method.replace(/^store\./, "")}) is weak: no word of the query is in its name, summary or tags`,
    );
    const strong = (await reads.callTool({ name: "search_docs", arguments: { query: "notes of a customer" } }))
      .structuredContent as Json;
    expect(strong.note ?? "").not.toContain("is weak");
  });
});

describe("execute", () => {
  it("does the customers-with-notes task in one execute, with exactly the requests it needs", async () => {
    const { result, structured } = await execute(reads, NOTES_CODE);
    expect(result.isError).toBeFalsy();
    expect(structured.result).toEqual(NOTES_TASK.answer);
    expect(structured.logs).toEqual(["counted 2 customers"]);
    expect(mcp.store.requests.map((r) => r.path.replace(/^\/api\/admin/, ""))).toEqual(NOTES_TASK.requests);
    expect(structured.calls).toEqual(
      NOTES_TASK.requests.map((path) => ({
        method: path === "/users/" ? "users.list" : "users.notes.list",
        status: 200,
      })),
    );
    expect(mcp.store.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it("answers type errors with line and column, and sends nothing", async () => {
    const { result, structured, text } = await execute(
      writes,
      'const user = await store.users.retrieve("42");\nawait store.giftCards.update(1, { expird_at: "2027-01-01" });\nreturn user;',
    );
    expect(result.isError).toBe(true);
    expect(structured.compiled).toBe(false);
    expect(structured.errors.map((e: Json) => [e.line, e.column, e.code])).toEqual([
      [1, 41, 2345],
      [2, 35, 2561],
    ]);
    expect(text).toContain("expird_at");
    expect(mcp.store.requests).toHaveLength(0);
  });

  it("refuses per-call options, GET, paginate and use at compile time", async () => {
    for (const code of [
      "return store.users.retrieve(1, { signal: undefined as never as AbortSignal })",
      'return (store as { GET?: unknown }).GET === undefined ? store.GET("/users/") : 0',
      "return store.paginate",
      "return store.use",
    ]) {
      const { structured } = await execute(reads, code);
      expect(structured.compiled, code).toBe(false);
    }
    expect(mcp.store.requests).toHaveLength(0);
  });

  it("throws the SDK's error inside the sandbox with its name and status, no host stack, no token", async () => {
    const { structured } = await execute(
      reads,
      "try { await store.users.retrieve(401); } catch (e) { const error = e as Error & { status: number }; return [error.name, error.status, error.message, String(error.stack)]; }",
    );
    const [name, status, message, stack] = structured.result;
    expect([name, status]).toEqual(["AuthenticationError", 401]);
    expect(message).not.toContain(TOKEN);
    expect(stack).not.toMatch(/node_modules|src\/|\.ts:|file:/);
  });
});

describe("a 422 in the sandbox", () => {
  it("is an UnprocessableEntityError whose validation lists the store's invalid fields, scrubbed of the token", async () => {
    const { structured } = await execute(
      writes,
      `try { await store.users.addresses.update(42, 7, { country: "SE", line1: "Drottninggatan 12", line4: "Stockholm" }); return "no error"; }
      catch (error) { if (error instanceof UnprocessableEntityError) return { status: error.status, validation: error.validation }; throw error; }`,
    );
    expect(structured.calls).toEqual([{ method: "users.addresses.update", status: 422 }]);
    expect(structured.result).toEqual({
      status: 422,
      validation: [
        { location: ["body", "postcode"], message: "Not a Swedish postcode.", code: "invalid" },
        { location: ["body", "line1"], message: expect.stringMatching(/^Refused for \S+\.$/) },
      ],
    });
    expect(INVALID_ADDRESS.validation[1]!.message).toContain(TOKEN);
  });

  it("runs search_docs' example for users.addresses.update as shown: it logs each invalid field", async () => {
    const example = codeModeDocs.find(([name]) => name === "users.addresses.update")![2];
    expect(example).toContain("error.validation");
    const { structured } = await execute(writes, example);
    expect(structured.error).toBeUndefined();
    expect(structured.logs).toEqual([
      "body.postcode Not a Swedish postcode.",
      expect.stringMatching(/^body\.line1 Refused for /),
    ]);
  });
});

describe("the result cap", () => {
  it("drops the log first, then cuts the value, and always lists the calls", async () => {
    const small = await connect({ maxResultBytes: 2_048 });
    const logged = await execute(
      small,
      'for (let i = 0; i < 100; i++) console.log("line", i, "x".repeat(40)); return (await store.users.retrieve(42)).id;',
    );
    expect(logged.structured.result).toBe(42);
    expect(logged.structured.logs.length).toBeLessThan(100);
    expect(logged.structured.logs_dropped_characters).toBeGreaterThan(0);
    expect(logged.structured.calls).toEqual([{ method: "users.retrieve", status: 200 }]);
    const big = await execute(small, 'await store.users.retrieve(42); return "y".repeat(10_000);');
    expect(big.structured.result).toBeUndefined();
    expect(big.structured.result_cut).toMatch(/^The returned value is 10002 bytes, over the 2048-byte result cap/);
    expect(big.structured.calls).toEqual([{ method: "users.retrieve", status: 200 }]);
    expect(Buffer.byteLength(JSON.stringify(big.result))).toBeLessThanOrEqual(2_048);
  });
});

describe("the host bridge", () => {
  it("refuses a forged method name, and arguments that are not JSON or not the method's, sending nothing", async () => {
    const calls: SentCall[] = [];
    const host = codeModeHost(
      {
        maxCalls: 50,
        clean: (text) => text,
        calls: { checkedSend: async () => ({ args: {}, data: null, status: 200 }) },
      },
      calls,
    );
    const stop = () => {};
    for (const name of [
      "users.delete",
      "__proto__",
      "constructor",
      "toString",
      "users",
      "users.list.constructor",
      "GET",
      "paginate",
      "",
    ]) {
      const answer = await host(name, "[]", undefined, stop);
      expect(answer, name).toEqual({
        error: { name: "TypeError", message: `store.${name} is not an operation method.` },
      });
    }
    expect(await host("users.retrieve", "[1,", undefined, stop)).toEqual({
      error: { name: "NotSentError", message: "Not sent: store.users.retrieve(): the arguments are not JSON." },
    });
    expect(await host("users.retrieve", "[1, 2, 3]", undefined, stop)).toEqual({
      error: { name: "NotSentError", message: "Not sent: store.users.retrieve() takes id, got 3 arguments." },
    });
    expect(
      await host("users.retrieve", JSON.stringify([`${"x".repeat(9 * 1024 * 1024)}`]), undefined, stop),
    ).toMatchObject({
      error: { message: expect.stringMatching(/arguments are \d+ characters of JSON; a call takes at most/) },
    });
    expect(calls.every((call) => call.status === "not sent")).toBe(true);
    expect(mcp.store.requests).toHaveLength(0);
  });
});

describe("the escape suite", () => {
  const cases: Record<string, string> = {
    "globalThis and Function reach no host": `const g = globalThis as any;
      const f = (store.users.retrieve as any).constructor.constructor;
      return [typeof g.process, typeof g.require, typeof g.fetch, typeof g.setTimeout, typeof f("return typeof process")(), typeof Function("return this")().process, Object.getOwnPropertyNames(g).filter((n) => n.startsWith("__codeModeB") || n.startsWith("__codeModeL"))];`,
    "module loading": `return await import("node:fs" as string);`,
    "prototype pollution aimed at the bridge": `(Object.prototype as any).allowWrites = true;
      (Object.prototype as any).method = "giftCards.update";
      (Array.prototype as any).toJSON = () => [1, { expired_at: "2027-01-01T00:00:00Z" }];
      JSON.stringify = () => '[1, {"expired_at": "2027-01-01T00:00:00Z"}]';
      return await (store.giftCards as any).update(1, { expired_at: "2027-01-01T00:00:00Z" });`,
    "a method that is not an operation": `return await (store.users as any).delete(1);`,
    "a function argument": `return await store.users.list({ email: (() => 1) as any }).next();`,
    "a cyclic argument": `const q: any = {}; q.self = q; return await store.users.list(q).next();`,
    "a getter argument": `return await store.users.list({ get email() { return "a@example.com"; } } as any).next();`,
    "a huge string": `return await store.users.list({ email: "x".repeat(7 * 1024 * 1024) }).next();`,
    "a tight loop": `for (;;) {}`,
    "a memory bomb": `const keep: object[] = []; for (;;) keep.push({ n: keep.length, list: [keep.length, "x" + keep.length] });`,
    "deep recursion": `const f = (n: number): number => f(n + 1) + 1; return f(0);`,
    "a call storm": `for (let i = 0; i < 1000; i++) await store.users.retrieve(i); return "done";`,
    "the token through errors": `try { await store.users.retrieve(401); } catch (e) { return JSON.stringify(e) + String((e as Error).message) + String((e as Error).stack); }`,
    "the token through an answer": `return await store.users.retrieve(7);`,
    "a write without the flag": `return await store.giftCards.update(1, { expired_at: "2027-01-01T00:00:00Z" });`,
    "a write past the policy through as any": `return await (store as any).giftCards.update(1, { expired_at: "2027-01-01T00:00:00Z" });`,
    "a promise that never settles": `await new Promise(() => {}); return 1;`,
  };
  /** Run on the server with small limits (and writes allowed, which none of them reaches). */
  const LIMITED = new Set(["a tight loop", "deep recursion", "a call storm"]);
  for (const [name, code] of Object.entries(cases)) {
    it(`contains ${name}, and the server serves the next call`, async () => {
      const { text, structured } = await execute(
        name === "a memory bomb" ? memory : LIMITED.has(name) ? writes : reads,
        code,
      );
      expect(text).not.toContain(TOKEN);
      // Nothing was written, whatever the attempt.
      expect(mcp.store.requests.filter((r) => r.method !== "GET")).toEqual([]);
      expect(structured, name).toMatchSnapshot();
      mcp.store.requests.length = 0;
      const after = await execute(reads, "return (await store.users.retrieve(42)).id;");
      expect(after.structured.result).toBe(42);
    });
  }
});
