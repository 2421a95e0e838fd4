/**
 * The dynamic mode at the API's real size: the MCP server (src/mcp/server.ts, in process, over
 * MCP's in-memory transport) over the tools of synthetic contracts of 20 and 1,000 operations
 * (scripts/bench/synthetic-contract.ts). Its `tools/list` is under 8 KB and the same size at
 * both, and its `search_operations` finds each of the 1,000 operations in the top 5 by its
 * summary's words. The per-operation mode's sizes are printed beside it, for docs/mcp.md.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, describe, expect, it } from "vitest";
import { mcpTools as toolsOf } from "../../scripts/generate-mcp.js";
import { loadContractFile } from "../../scripts/load-contract.js";
import { syntheticContract } from "../../scripts/bench/synthetic-contract.js";
import { mcpServerOver, type StoreAdminMcpServerOptions } from "../../src/mcp/server.js";
import { mcpTools, type McpToolRow } from "../../generated/mcp-tools.js";

const LIST_CEILING = 8 * 1024;
const dir = mkdtempSync(join(tmpdir(), "mcp-dynamic-size-"));
const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  rmSync(dir, { recursive: true, force: true });
});

const base = readFileSync(new URL("../../openapi/store-admin.yaml", import.meta.url), "utf8");
function syntheticRows(operations: number): McpToolRow[] {
  const file = join(dir, `synthetic-${operations}.yaml`);
  writeFileSync(file, syntheticContract(operations, base).yaml);
  return toolsOf(loadContractFile(file)) as McpToolRow[];
}
const ROWS = { ours: mcpTools, 20: syntheticRows(20), 1000: syntheticRows(1000) };

/** A client of the server over `rows` (nothing is sent: the store's address is a closed port). */
async function serverOver(rows: readonly McpToolRow[], options: Partial<StoreAdminMcpServerOptions>): Promise<Client> {
  const server = mcpServerOver(rows, {
    store: { apiUrl: "http://127.0.0.1:9/api/admin", accessToken: "test-token" },
    ...options,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "store-admin-sdk-size", version: "1.0.0" });
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

const listBytes = async (client: Client) => Buffer.byteLength(JSON.stringify(await client.listTools()));

describe("tools/list by the contract's size", () => {
  it(`in the dynamic mode, is under ${LIST_CEILING} B and the same at 20 and 1,000 operations`, async () => {
    const sizes: Record<string, number> = {};
    for (const [name, rows] of Object.entries(ROWS)) {
      for (const allowWrites of [false, true]) {
        sizes[`dynamic ${name}${allowWrites ? " --allow-writes" : ""}`] = await listBytes(
          await serverOver(rows, { mode: "dynamic", allowWrites }),
        );
        sizes[`per-operation ${name}${allowWrites ? " --allow-writes" : ""}`] = await listBytes(
          await serverOver(rows, { allowWrites }),
        );
      }
    }
    console.info(`[mcp] tools/list bytes: ${JSON.stringify(sizes)}`);
    for (const writes of ["", " --allow-writes"]) {
      const dynamic = ["ours", "20", "1000"].map((name) => sizes[`dynamic ${name}${writes}`]!);
      expect(new Set(dynamic).size).toBe(1);
      expect(dynamic[0]).toBeLessThan(LIST_CEILING);
      // What the dynamic mode saves: the per-operation list of 1,000 operations is some hundred times larger.
      expect(sizes[`per-operation 1000${writes}`]!).toBeGreaterThan(100 * dynamic[0]!);
    }
  });
});

describe("search_operations over 1,000 operations", () => {
  it("finds every operation in the top 5 by its summary's words", async () => {
    const client = await serverOver(ROWS[1000], { mode: "dynamic", allowWrites: true });
    expect(ROWS[1000]).toHaveLength(1000);
    const misses: string[] = [];
    for (const row of ROWS[1000]) {
      const found = (await client.callTool({ name: "search_operations", arguments: { query: row.title, limit: 5 } }))
        .structuredContent as { results: Array<{ method: string }> };
      if (!found.results.some((result) => result.method === row.methodName))
        misses.push(`${row.methodName} ("${row.title}")`);
    }
    expect(misses).toEqual([]);
  });

  it("finds only reads unless writes are allowed", async () => {
    const client = await serverOver(ROWS[1000], { mode: "dynamic" });
    for (const write of ROWS[1000].filter((row) => row.method !== "GET").slice(0, 50)) {
      // Its summary's words ("Update a tax invoice") find the reads of the same resource, never a write.
      const found = (await client.callTool({ name: "search_operations", arguments: { query: write.title, limit: 50 } }))
        .structuredContent as { results: Array<{ method: string; writes: boolean }>; total: number };
      expect(found.total).toBeGreaterThan(0);
      expect(found.results.every((result) => result.writes === false)).toBe(true);
    }
  });
});
