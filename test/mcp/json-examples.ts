/**
 * `describe_operation`'s example call of every operation, passed to `validate_call` over the
 * official MCP client: each one's verdict, in the rows' order. Imported for our contract; run as
 * a script in a copy of the project generated for another contract (its own rows, client and
 * validators), `tsx test/mcp/json-examples.ts <project>`, which prints the verdicts as JSON.
 */
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";

export interface ExampleVerdict {
  method: string;
  example: unknown;
  valid: boolean;
  problem?: string;
}

/** What the verdicts need of a project: its server factory and its tool rows. */
interface Project {
  createStoreAdminMcpServer(options: {
    store: { apiUrl: string; accessToken: string };
    mode: "dynamic";
    allowWrites: boolean;
  }): Server;
  rows: ReadonlyArray<{ methodName: string }>;
}

export async function exampleVerdicts({ createStoreAdminMcpServer, rows }: Project): Promise<ExampleVerdict[]> {
  // Nothing is sent: validate_call checks against the contract's validators in the process.
  const server = createStoreAdminMcpServer({
    store: { apiUrl: "http://127.0.0.1:9/api/admin", accessToken: "test-token" },
    mode: "dynamic",
    allowWrites: true,
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "json-examples", version: "1.0.0" });
  await Promise.all([server.connect(a), client.connect(b)]);
  try {
    const verdicts: ExampleVerdict[] = [];
    for (const { methodName } of rows) {
      const described = await client.callTool({ name: "describe_operation", arguments: { method: methodName } });
      if (described.isError) throw new Error(`describe_operation ${methodName}: ${JSON.stringify(described.content)}`);
      const example = (described.structuredContent as { example: Record<string, unknown> }).example;
      const verdict = (await client.callTool({ name: "validate_call", arguments: example })).structuredContent as {
        valid: boolean;
        problem?: string;
      };
      verdicts.push({ method: methodName, example, ...verdict });
    }
    return verdicts;
  } finally {
    await client.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const project = process.argv[2];
  if (project === undefined) throw new Error("usage: tsx test/mcp/json-examples.ts <project directory>");
  const { createStoreAdminMcpServer } = (await import(pathToFileURL(`${project}/src/mcp/index.ts`).href)) as Pick<
    Project,
    "createStoreAdminMcpServer"
  >;
  const { mcpTools } = (await import(pathToFileURL(`${project}/generated/mcp-tools.ts`).href)) as {
    mcpTools: Project["rows"];
  };
  console.log(JSON.stringify(await exampleVerdicts({ createStoreAdminMcpServer, rows: mcpTools })));
}
