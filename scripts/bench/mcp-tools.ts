/**
 * How large the MCP server's `tools/list` is for a contract: what a model must read before its
 * first call. Reads only (the default) and with `--allow-writes`, and in the dynamic mode
 * (`--mode dynamic`), whose list is the same whatever the contract and the flags.
 *
 *   npx tsx scripts/bench/mcp-tools.ts [contract.yaml …]   (default: openapi/store-admin.yaml)
 */
import { fileURLToPath } from "node:url";
import { mcpTools } from "../generate-mcp.js";
import { loadContractFile } from "../load-contract.js";
import { toolListing } from "../../src/mcp/tool-list.js";
import { dynamicToolListing } from "../../src/mcp/dynamic-tools.js";

export interface ToolListSize {
  operations: number;
  reads: { tools: number; bytes: number };
  all: { tools: number; bytes: number };
  dynamic: { reads: { tools: number; bytes: number }; all: { tools: number; bytes: number } };
}

/** The size of `tools/list` for the contract at `file`. */
export function toolListSize(file: string): ToolListSize {
  const rows = mcpTools(loadContractFile(file));
  const measure = (listed: typeof rows) => ({
    tools: listed.length + 1,
    bytes: Buffer.byteLength(JSON.stringify({ tools: toolListing(listed) })),
  });
  const dynamic = (allowWrites: boolean) => ({
    tools: 4,
    bytes: Buffer.byteLength(JSON.stringify({ tools: dynamicToolListing(allowWrites) })),
  });
  return {
    operations: rows.length,
    reads: measure(rows.filter((row) => row.method === "GET")),
    all: measure(rows),
    dynamic: { reads: dynamic(false), all: dynamic(true) },
  };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files =
    process.argv.length > 2
      ? process.argv.slice(2)
      : [fileURLToPath(new URL("../../openapi/store-admin.yaml", import.meta.url))];
  for (const file of files) {
    const { operations, reads, all, dynamic } = toolListSize(file);
    console.log(
      `${file}: ${operations} operations; reads only: ${reads.tools} tools, ${reads.bytes} B; --allow-writes: ${all.tools} tools, ${all.bytes} B; --mode dynamic: ${dynamic.reads.tools} tools, ${dynamic.reads.bytes} B, with --allow-writes ${dynamic.all.bytes} B`,
    );
  }
}
