/**
 * Code mode as an agent's host runs it: `store-admin-sdk mcp --mode code` from the packed
 * tarball, started and driven by the official MCP client over stdio, against a loopback store
 * that counts what it receives. The customers-with-notes task in one execute; escapes
 * contained, the server serving afterwards, no token in any result or stderr line; what it says
 * when quickjs-emscripten is missing, or when the TypeScript installed is 7 (beside which the
 * package installs: it declares no peer on typescript).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOTES_CODE, NOTES_TASK, storeAnswer, TOKEN } from "../mcp/code-mode-store.js";
import { binOf, mcpSdk, useStdioFixture } from "../mcp/stdio-fixture.js";
import { createConsumerProject, npmEnv, pinnedVersion, run, runOrThrow, type ConsumerProject } from "./tarball.js";

let beside7: ConsumerProject | undefined;

const mcp = useStdioFixture({
  answer: storeAnswer,
  token: TOKEN,
  clientName: "code-mode-package-test",
  packages: async () => [await mcpSdk(), `typescript@${await pinnedVersion("typescript")}`],
});
const env = mcp.env;
const connect = (...flags: string[]): Promise<Client> => mcp.connect(["--mode", "code", ...flags]);

afterAll(async () => {
  await beside7?.remove();
});

type Json = Record<string, any>;
async function execute(client: Client, code: string): Promise<{ isError: boolean; structured: Json; text: string }> {
  const result = await client.callTool({ name: "execute", arguments: { code } });
  const text = (result.content as Array<{ text: string }>).map((c) => c.text).join("\n");
  return { isError: result.isError === true, structured: result.structuredContent as Json, text };
}

describe("without quickjs-emscripten", () => {
  it("says which package to install and exits 2", async () => {
    const result = await run(process.execPath, [mcp.bin, "mcp", "--mode", "code"], {
      env: env(),
      cwd: mcp.project.dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "quickjs-emscripten is not installed. Install it beside store-admin-sdk: npm install quickjs-emscripten@^0.32",
    );
  });
});

describe("code mode's flags", () => {
  it("refuses a limit without --mode code, and one out of range, naming it, exiting 2", async () => {
    const without = await run(process.execPath, [mcp.bin, "mcp", "--max-calls", "3"], {
      env: env(),
      cwd: mcp.project.dir,
    });
    expect(without.code).toBe(2);
    expect(without.stderr).toContain(
      "--cpu-ms, --memory-mb, --stack-kb, --max-calls, --timeout-ms, --max-executes, --check-ms and --worker-memory-mb are code mode's limits: add --mode code.",
    );
    const deep = await run(process.execPath, [mcp.bin, "mcp", "--mode", "code", "--stack-kb", "1024"], {
      env: env(),
      cwd: mcp.project.dir,
    });
    expect(deep.code).toBe(2);
    expect(deep.stderr).toContain("code mode's stackBytes must be a whole number from 65536 to 393216, got 1048576.");
  });
});

describe("store-admin-sdk mcp --mode code", () => {
  beforeAll(async () => {
    const version = await pinnedVersion("quickjs-emscripten");
    await runOrThrow(
      "npm install quickjs-emscripten",
      "npm",
      ["install", "--no-audit", "--no-fund", "--no-package-lock", `quickjs-emscripten@${version}`],
      { cwd: mcp.project.dir, env: npmEnv(), timeoutMs: 300_000 },
    );
  }, 600_000);

  it("lists search_docs and execute", async () => {
    const { tools } = await (await connect()).listTools();
    expect(tools.map((t) => t.name)).toEqual(["search_docs", "execute"]);
  });

  it("does the customers-with-notes task in one execute, with exactly the requests it needs", async () => {
    mcp.store.requests.length = 0;
    const { isError, structured, text } = await execute(await connect(), NOTES_CODE);
    expect(isError, text).toBe(false);
    expect(structured.result).toEqual(NOTES_TASK.answer);
    expect(mcp.store.requests.map((r) => r.path.replace(/^\/api\/admin/, ""))).toEqual(NOTES_TASK.requests);
    expect(structured.calls).toHaveLength(NOTES_TASK.requests.length);
  });

  it("contains escapes and limits, serving the next call after each; the token never leaves", async () => {
    const client = await connect("--cpu-ms", "200", "--memory-mb", "16", "--max-calls", "3");
    const attempts = [
      ["for (;;) {}", "cpu"],
      ["const f = (n: number): number => f(n + 1) + 1; return f(0);", "stack"],
      ["for (let i = 0; i < 10; i++) await store.users.retrieve(i); return 1;", "calls"],
      ["return new ArrayBuffer(64 * 1024 * 1024).byteLength;", "memory"],
    ] as const;
    for (const [code, stoppedBy] of attempts) {
      mcp.store.requests.length = 0;
      const stopped = await execute(client, code);
      expect(stopped.structured.stopped_by, code).toBe(stoppedBy);
      const after = await execute(client, "return (await store.users.retrieve(42)).id;");
      expect(after.structured.result).toBe(42);
    }
    mcp.store.requests.length = 0;
    const written = await execute(
      client,
      'return await (store as any).giftCards.update(1, { expired_at: "2027-01-01T00:00:00Z" });',
    );
    expect(written.text).toContain("Not sent: store.giftCards.update changes data");
    expect(mcp.store.requests).toHaveLength(0);
    const echoed = await execute(
      client,
      "const u = await store.users.retrieve(7); let e = ''; try { await store.users.retrieve(401); } catch (error) { e = String((error as Error).stack) + (error as Error).message; } return [u, e];",
    );
    expect(echoed.text).not.toContain(TOKEN);
    expect(echoed.text).toContain("[REDACTED]");
    const log = mcp.stderr();
    expect(log).toContain("in code mode");
    expect(log).not.toContain(TOKEN);
    // Nine executes, each type-checked, one a memory bomb that runs until QuickJS's heap limit.
  }, 180_000);
});

describe("beside TypeScript 7", () => {
  it("installs (no peer dependency on typescript) and code mode names TypeScript 5, exiting 2", async () => {
    const [sdk, quickjs, typescript7] = await Promise.all([
      pinnedVersion("@modelcontextprotocol/sdk"),
      pinnedVersion("quickjs-emscripten"),
      pinnedVersion("typescript7"),
    ]);
    beside7 = await createConsumerProject([
      `typescript@${typescript7.replace(/^npm:typescript@/, "")}`,
      `@modelcontextprotocol/sdk@${sdk}`,
      `quickjs-emscripten@${quickjs}`,
    ]);
    const installed = JSON.parse(
      await readFile(join(beside7.dir, "node_modules", "typescript", "package.json"), "utf8"),
    ) as { version: string };
    expect(installed.version).toMatch(/^7\./);
    const result = await run(process.execPath, [binOf(beside7.dir), "mcp", "--mode", "code"], {
      env: env(),
      cwd: beside7.dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `which the installed typescript ${installed.version} does not have (TypeScript 7's native compiler has none). Install TypeScript 5 beside store-admin-sdk: npm install typescript@5`,
    );
  }, 600_000);
});
