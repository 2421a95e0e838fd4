/// <reference types="node" />
/**
 * `store-admin-sdk mcp`: the Model Context Protocol server over stdio, for an MCP client (an AI
 * agent's host) to start. Reads only unless `--allow-writes`; see docs/mcp.md.
 *
 * Exit status: 0 when the client closes the connection, 2 when the server cannot start (the
 * environment, a flag, or `@modelcontextprotocol/sdk` not installed).
 */
import { type Command, InvalidArgumentError } from "commander";
import { storeOptionsFromEnv } from "./environment.js";
import { InputError } from "./input.js";
import { VERSION } from "#shared";
import type { McpMode } from "../mcp/server.js";

const EXIT_ERROR = 2;
/** The peer dependency the server is built on, and the range the package declares. */
const MCP_SDK = "@modelcontextprotocol/sdk";

interface McpFlags {
  allowWrites?: boolean;
  scopes?: string[];
  tools?: string[];
  maxResultBytes?: number;
  mode?: string;
  cpuMs?: number;
  memoryMb?: number;
  stackKb?: number;
  maxCalls?: number;
  timeoutMs?: number;
  maxExecutes?: number;
  checkMs?: number;
  workerMemoryMb?: number;
}

/** A whole-number flag at least `min`. */
const whole =
  (flag: string, min: number) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < min)
      throw new InvalidArgumentError(`${flag} must be a whole number ≥ ${min}, got ${JSON.stringify(value)}.`);
    return n;
  };

/** A size flag in `unit`s, in bytes. */
const inBytes = (value: number | undefined, unit: number) => (value === undefined ? undefined : value * unit);

const list =
  (flag: string) =>
  (value: string, previous: string[] | undefined): string[] => {
    const items = value
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
    if (items.length === 0)
      throw new InvalidArgumentError(`${flag} takes a comma-separated list, got ${JSON.stringify(value)}.`);
    return [...(previous ?? []), ...items];
  };

/** Adds the code mode's limits to the `mcp` command, in the order its help lists them. */
function codeModeOptions(command: Command): Command {
  return command
    .option(
      "--cpu-ms <n>",
      "code mode: CPU time one execute may run, in milliseconds (default 5000)",
      whole("--cpu-ms", 10),
    )
    .option("--memory-mb <n>", "code mode: the sandbox's memory, in megabytes (default 64)", whole("--memory-mb", 4))
    .option(
      "--stack-kb <n>",
      "code mode: the sandbox's stack, in kilobytes, 64 to 384 (default 256)",
      whole("--stack-kb", 64),
    )
    .option(
      "--max-calls <n>",
      "code mode: the most store calls one execute makes, a list's page being one (default 50)",
      whole("--max-calls", 1),
    )
    .option(
      "--timeout-ms <n>",
      "code mode: wall-clock time one execute may take, type check and store calls included (default 30000)",
      whole("--timeout-ms", 100),
    )
    .option(
      "--max-executes <n>",
      "code mode: executes run at once; 16 more wait, and one past those is refused as busy (default 4)",
      whole("--max-executes", 1),
    )
    .option(
      "--check-ms <n>",
      "code mode: wall-clock time the type check of one execute may take (default 10000)",
      whole("--check-ms", 100),
    )
    .option(
      "--worker-memory-mb <n>",
      "code mode: the heap of each worker thread that checks or runs code, in megabytes (default 512)",
      whole("--worker-memory-mb", 128),
    );
}

/** Adds the `mcp` command to `program`. */
export function mcpCommand(program: Command, io: { stderr: NodeJS.WriteStream; env: NodeJS.ProcessEnv }): Command {
  const command = program
    .command("mcp")
    .description(
      "Serve the Store Admin API to an AI agent as Model Context Protocol tools over stdio: reads only unless --allow-writes.",
    )
    .option("--allow-writes", "also list the tools that change data (POST, PUT, PATCH, DELETE)")
    .option(
      "--scopes <list>",
      "list only the tools these scopes allow, e.g. users:read,gift_cards:read",
      list("--scopes"),
    )
    .option(
      "--tools <list>",
      "list only these tools: names, method names or tags, * matches any run of characters, e.g. giftCards_*,Orders",
      list("--tools"),
    )
    .option(
      "--mode <mode>",
      "per-operation (the default): one tool per operation; dynamic: search_operations, describe_operation and call_operation, a list that does not grow with the contract; code: search_docs and execute, TypeScript run in a sandbox (needs typescript@5 and quickjs-emscripten)",
    );
  return codeModeOptions(command)
    .option(
      "--max-result-bytes <n>",
      "the most one result may hold, text and structured copy together (default 32768)",
      (value: string) => {
        const n = Number(value);
        if (!Number.isSafeInteger(n) || n < 1024)
          throw new InvalidArgumentError(
            `--max-result-bytes must be a whole number ≥ 1024, got ${JSON.stringify(value)}.`,
          );
        return n;
      },
    )
    .addHelpText(
      "after",
      `
Environment: STORE_ADMIN_URL (the store's address) or STORE_ADMIN_API_URL (an API root), and
STORE_ADMIN_TOKEN. Needs ${MCP_SDK} installed beside this package:
  npm install ${MCP_SDK}@^1.32
MCP client configurations: docs/mcp.md in this package.`,
    )
    .action(async (flags: McpFlags) => {
      process.exitCode = await serve(flags, io);
    });
}

async function serve(flags: McpFlags, io: { stderr: NodeJS.WriteStream; env: NodeJS.ProcessEnv }): Promise<number> {
  let store;
  try {
    store = storeOptionsFromEnv(io.env);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    io.stderr.write(`store-admin-sdk mcp: ${error.message}\n`);
    return EXIT_ERROR;
  }
  let modules;
  try {
    modules = await Promise.all([import("../mcp/server.js"), import("@modelcontextprotocol/sdk/server/stdio.js")]);
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND" ||
      !String((error as Error).message).includes(MCP_SDK)
    )
      throw error;
    io.stderr.write(
      `store-admin-sdk mcp: the MCP server is built on ${MCP_SDK}, which is not installed. Install it beside store-admin-sdk ` +
        `${VERSION}: npm install ${MCP_SDK}@^1.32 (MCP client configurations: docs/mcp.md in this package).\n`,
    );
    return EXIT_ERROR;
  }
  const [{ createStoreAdminMcpServer }, { StdioServerTransport }] = modules;
  const { variable, ...options } = store;
  let server;
  try {
    const limits = {
      cpuMs: flags.cpuMs,
      memoryBytes: inBytes(flags.memoryMb, 1024 * 1024),
      stackBytes: inBytes(flags.stackKb, 1024),
      maxCalls: flags.maxCalls,
      timeoutMs: flags.timeoutMs,
      maxExecutes: flags.maxExecutes,
      checkMs: flags.checkMs,
      workerMemoryBytes: inBytes(flags.workerMemoryMb, 1024 * 1024),
    };
    const code = Object.values(limits).some((value) => value !== undefined) ? limits : undefined;
    server = createStoreAdminMcpServer({
      store: options,
      allowWrites: flags.allowWrites,
      scopes: flags.scopes,
      tools: flags.tools,
      maxResultBytes: flags.maxResultBytes,
      mode: flags.mode as McpMode | undefined,
      code,
    });
    // Code mode's TypeScript and QuickJS, loaded now: a missing one is named before a client connects.
    if (flags.mode === "code") await (await import("../mcp/code/mode.js")).loadCodeMode(code);
  } catch (error) {
    // The server's option is --mode here.
    io.stderr.write(
      `store-admin-sdk mcp: ${(error as Error).message
        .replace(/^mode must be/, "--mode must be")
        .replace(
          /^code \(the limits of code mode\) is given, but mode is not "code"\./,
          "--cpu-ms, --memory-mb, --stack-kb, --max-calls, --timeout-ms, --max-executes, --check-ms and --worker-memory-mb are code mode's limits: add --mode code.",
        )
        .replace(/^code\.(\w+) must be/, "code mode's $1 must be")}\n`,
    );
    return EXIT_ERROR;
  }
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  await server.connect(new StdioServerTransport());
  // The origin only: never a URL's credentials, never the token.
  const url = new URL(String(io.env[variable]));
  io.stderr.write(
    `store-admin-sdk mcp: serving ${url.protocol}//${url.host} over stdio, ${flags.allowWrites ? "reads and writes" : "reads only"}${flags.mode === "dynamic" ? ", in the dynamic mode" : flags.mode === "code" ? ", in code mode" : ""}.\n`,
  );
  const close = () => void server.close();
  process.stdin.once("end", close);
  process.once("SIGTERM", close);
  process.once("SIGINT", close);
  await closed;
  return 0;
}
