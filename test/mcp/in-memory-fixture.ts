/**
 * The package's MCP server over an in-memory transport, driven by the official MCP client,
 * against a loopback store that counts what it receives: the store starts once per test file
 * and is closed after it, with every client connected; its requests are cleared before each test.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { createStoreAdminMcpServer, type StoreAdminMcpServerOptions } from "../../src/mcp/index.js";
import { startFaultServer, type FaultServer } from "../helpers/fault-server.js";

export interface InMemoryMcp {
  /** The loopback store (set once the file's `beforeAll` has run). */
  readonly store: FaultServer;
  /** A client connected to a new server with the fixture's options and `options` over them. */
  connect(options?: Partial<StoreAdminMcpServerOptions>): Promise<Client>;
}

export function inMemoryMcp(
  answer: Parameters<typeof startFaultServer>[0],
  {
    token,
    name,
    options: defaults = {},
  }: { token: string; name: string; options?: Partial<StoreAdminMcpServerOptions> },
): InMemoryMcp {
  let store: FaultServer | undefined;
  const clients: Client[] = [];
  beforeAll(async () => {
    store = await startFaultServer(answer);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await store?.close();
  });
  beforeEach(() => {
    if (store) store.requests.length = 0;
  });
  return {
    get store() {
      if (!store) throw new Error("the store starts in beforeAll: read it inside a test");
      return store;
    },
    async connect(options = {}) {
      const server = createStoreAdminMcpServer({
        store: { apiUrl: `${this.store.url}/api/admin`, accessToken: token, maxRetries: 0 },
        ...defaults,
        ...options,
      });
      const [a, b] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name, version: "1.0.0" });
      await Promise.all([server.connect(a), client.connect(b)]);
      clients.push(client);
      return client;
    },
  };
}
