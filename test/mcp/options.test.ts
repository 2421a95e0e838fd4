/**
 * `createStoreAdminMcpServer`'s options, in process: a name it does not know is refused, naming
 * it; options and tool arguments are read as own properties, so a polluted `Object.prototype`
 * neither receives the token nor lists write tools (requests counted at a loopback server).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../generated/mcp-tools.js";
import { checkArguments } from "../../src/mcp/tool-call.js";
import { createStoreAdminMcpServer } from "../../src/mcp/index.js";

const store = { apiUrl: "http://127.0.0.1:9/api/admin", accessToken: "test-token" };

describe("createStoreAdminMcpServer options", () => {
  it("refuses an unknown option name, naming it and the options there are", () => {
    expect(() => createStoreAdminMcpServer({ store, scope: ["users:read"] } as never)).toThrow(
      new TypeError(
        'createStoreAdminMcpServer(): "scope" is not an option; the options are store, allowWrites, scopes, tools, maxResultBytes, mode, code.',
      ),
    );
    expect(() => createStoreAdminMcpServer({ store, allowWrite: true, maxBytes: 2048 } as never)).toThrow(
      /"allowWrite", "maxBytes" are not options/,
    );
  });

  it("takes every option it documents", () => {
    expect(() =>
      createStoreAdminMcpServer({
        store,
        allowWrites: true,
        scopes: ["users:read"],
        tools: ["users_*"],
        maxResultBytes: 4096,
      }),
    ).not.toThrow();
    expect(() =>
      createStoreAdminMcpServer({
        store,
        mode: "code",
        code: { cpuMs: 1000, memoryBytes: 8 * 1024 * 1024, stackBytes: 128 * 1024, maxCalls: 10 },
      }),
    ).not.toThrow();
  });

  it("refuses code mode's limits out of range, unknown, or without mode code, naming them", () => {
    expect(() => createStoreAdminMcpServer({ store, mode: "code", code: { cpuMs: 0 } })).toThrow(
      new TypeError("code.cpuMs must be a whole number from 10 to 600000, got 0."),
    );
    expect(() => createStoreAdminMcpServer({ store, mode: "code", code: { stackBytes: 1024 * 1024 } })).toThrow(
      new TypeError("code.stackBytes must be a whole number from 65536 to 393216, got 1048576."),
    );
    expect(() => createStoreAdminMcpServer({ store, mode: "code", code: { wallMs: 5 } as never })).toThrow(
      new TypeError(
        "code.wallMs is not a limit; the limits are cpuMs, memoryBytes, stackBytes, maxCalls, timeoutMs, maxExecutes, checkMs, workerMemoryBytes.",
      ),
    );
    expect(() => createStoreAdminMcpServer({ store, mode: "code", code: { timeoutMs: 5 } })).toThrow(
      new TypeError("code.timeoutMs must be a whole number from 100 to 3600000, got 5."),
    );
    expect(() => createStoreAdminMcpServer({ store, mode: "code", code: { maxExecutes: 0 } })).toThrow(
      new TypeError("code.maxExecutes must be a whole number from 1 to 64, got 0."),
    );
    expect(() => createStoreAdminMcpServer({ store, mode: "code", code: { checkMs: 1.5 } })).toThrow(
      new TypeError("code.checkMs must be a whole number from 100 to 600000, got 1.5."),
    );
    expect(() => createStoreAdminMcpServer({ store, mode: "code", code: { workerMemoryBytes: 1024 } })).toThrow(
      new TypeError("code.workerMemoryBytes must be a whole number from 134217728 to 17179869184, got 1024."),
    );
    expect(() => createStoreAdminMcpServer({ store, code: { maxCalls: 5 } })).toThrow(
      new TypeError('code (the limits of code mode) is given, but mode is not "code".'),
    );
  });
});

describe("a polluted Object.prototype", () => {
  const polluted = (key: string, value: unknown) =>
    Object.defineProperty(Object.prototype, key, { value, configurable: true, writable: true });
  const clean = (key: string) => delete (Object.prototype as Record<string, unknown>)[key];

  it("gives the server no fetch to send the token to, and switches no writes on", async () => {
    const requests: string[] = [];
    const server = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`);
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ id: 1, email: "a@example.com" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const stolen: Array<string | null> = [];
    const evilFetch = async (input: Request | string | URL, init?: RequestInit) => {
      stolen.push(new Headers(input instanceof Request ? input.headers : init?.headers).get("authorization"));
      return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
    };
    let mcp: Server;
    polluted("fetch", evilFetch);
    polluted("allowWrites", true);
    try {
      mcp = createStoreAdminMcpServer({
        store: {
          apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/admin`,
          accessToken: "sk_polluted_token",
          maxRetries: 0,
        },
      });
    } finally {
      clean("fetch");
      clean("allowWrites");
    }
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "pollution-test", version: "1.0.0" });
    try {
      await mcp.connect(serverSide);
      await client.connect(clientSide);
      const { tools } = await client.listTools();
      expect(
        tools.filter((tool) => tool.annotations?.readOnlyHint !== true),
        "write tools listed",
      ).toEqual([]);
      const result = await client.callTool({ name: "users_retrieve", arguments: { path: { id: 1 } } });
      expect(result.isError).toBeFalsy();
      expect(stolen, "the polluter's fetch").toEqual([]);
      expect(requests).toEqual(["GET /api/admin/users/1/"]);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("reads a tool's arguments as own properties", () => {
    const tool = mcpTools.find((row) => row.name === "users_retrieve")!;
    polluted("query", { email: "attacker@example.com" });
    polluted("body", { email: "attacker@example.com" });
    try {
      const args = checkArguments(tool, { path: { id: 1 } });
      expect(args.query).toBeUndefined();
      expect(args.body).toBeUndefined();
      expect(Object.keys(args)).toEqual(["path"]);
    } finally {
      clean("query");
      clean("body");
    }
  });

  it("refuses an allowWrites that is not a boolean", () => {
    expect(() => createStoreAdminMcpServer({ store, allowWrites: "yes" } as never)).toThrow(
      new TypeError('allowWrites must be true or false, got "yes".'),
    );
  });
});
