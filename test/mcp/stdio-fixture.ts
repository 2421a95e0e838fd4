/**
 * The setup the tests share that run `store-admin-sdk mcp` as an agent's host does: from the
 * packed tarball installed in a consumer project, started and driven by the official MCP client
 * over stdio, against a loopback store that counts what it receives. One file, one store, one
 * project; every client it connects is closed after the file, with the store and the project.
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll } from "vitest";
import { startFaultServer, type Fallback, type FaultServer } from "../helpers/fault-server.js";
import { createConsumerProject, pinnedVersion, type ConsumerProject } from "../package/tarball.js";

export interface StdioFixtureOptions {
  /** What the store answers. */
  answer: Fallback;
  /** The token the servers are started with (STORE_ADMIN_TOKEN). */
  token: string;
  /** The MCP client's name. */
  clientName: string;
  /** Packages installed beside the tarball (none: the project has no MCP SDK of its own). */
  packages?: () => Promise<string[]>;
}

export interface StdioFixture {
  /** The store; only inside a test or hook. */
  readonly store: FaultServer;
  /** The consumer project; only inside a test or hook. */
  readonly project: ConsumerProject;
  /** The installed CLI's main.js; only inside a test or hook. */
  readonly bin: string;
  /** PATH, the store's address and the token, with `extra` over them. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** A client connected to `node …nodeFlags bin mcp …args` (env: {@link env} unless given). */
  connect(args: string[], options?: { env?: Record<string, string>; nodeFlags?: string[] }): Promise<Client>;
  /** A client connected to a server started as given (as a host's configuration starts it). */
  connectTo(server: { command: string; args: string[]; env: Record<string, string>; cwd?: string }): Promise<Client>;
  /** What `client`'s server has written to stderr so far (its log), chunk by chunk. */
  logOf(client: Client): string[];
  /** What every server of the file has written to stderr so far, in order of arrival. */
  stderr(): string;
}

/** The installed CLI's main.js in the consumer project at `dir`. */
export const binOf = (dir: string) => join(dir, "node_modules", "store-admin-sdk", "dist", "src", "cli", "main.js");

/** The MCP SDK at the version the package pins, for {@link StdioFixtureOptions.packages}. */
export const mcpSdk = async (): Promise<string> =>
  `@modelcontextprotocol/sdk@${await pinnedVersion("@modelcontextprotocol/sdk")}`;

/** Starts the store and installs the project before the file's tests; stops them all after. */
export function useStdioFixture(options: StdioFixtureOptions): StdioFixture {
  let store: FaultServer | undefined;
  let project: ConsumerProject | undefined;
  const clients: Client[] = [];
  const logs = new Map<Client, string[]>();
  const all: string[] = [];

  beforeAll(async () => {
    store = await startFaultServer(options.answer);
    project = await createConsumerProject((await options.packages?.()) ?? []);
  }, 600_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await store?.close();
    await project?.remove();
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useStdioFixture(): the ${what} exists only inside a test or hook`);
    return value;
  };

  const fixture: StdioFixture = {
    get store() {
      return ready(store, "store");
    },
    get project() {
      return ready(project, "project");
    },
    get bin() {
      return binOf(fixture.project.dir);
    },
    env: (extra = {}) => ({
      PATH: process.env.PATH ?? "",
      STORE_ADMIN_API_URL: `${fixture.store.url}/api/admin`,
      STORE_ADMIN_TOKEN: options.token,
      ...extra,
    }),
    connect: (args, { env = fixture.env(), nodeFlags = [] } = {}) =>
      fixture.connectTo({ command: process.execPath, args: [...nodeFlags, fixture.bin, "mcp", ...args], env }),
    async connectTo(server) {
      const client = new Client({ name: options.clientName, version: "1.0.0" });
      const stderr: string[] = [];
      const transport = new StdioClientTransport({ ...server, stderr: "pipe" });
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr.push(chunk.toString());
        all.push(chunk.toString());
      });
      logs.set(client, stderr);
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    logOf: (client) => ready(logs.get(client), "client's log"),
    stderr: () => all.join(""),
  };
  return fixture;
}
