/**
 * The Model Context Protocol server: the generated tools (generated/mcp-tools.ts), filtered,
 * each call sent through the SDK's own client, and `validate_call`, which checks a proposed
 * call against the contract with the testing kit and sends nothing. In the dynamic mode the
 * operations are reached through three tools instead (dynamic-tools.ts); both modes call an
 * operation through one function (operation-call.ts).
 *
 * Built on the official SDK's low-level `Server` (`@modelcontextprotocol/sdk`, an optional
 * peer dependency): the tools carry JSON Schema derived from the contract, which its
 * higher-level `McpServer` would want as zod schemas.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  checkBoolean,
  createStoreAdminClient,
  loadOnce,
  mustBe,
  ownOptions,
  redact,
  type StoreAdminClient,
  type StoreAdminClientOptions,
  tokenSourceOf,
  unknownOptions,
  VERSION,
} from "#shared";
import { listedTools, toolListing, VALIDATE_CALL, type ToolFilter } from "./tool-list.js";
import { errorResult, type ToolResult } from "./tool-call.js";
import { operationCalls, type OperationCalls } from "./operation-call.js";
import { dynamicToolListing, dynamicTools } from "./dynamic-tools.js";
import { quoted, withinCap } from "./result-size.js";
import { mcpTools, type McpToolRow } from "../../generated/mcp-tools.js";
import { codeModeLimits, type CodeModeLimits } from "./code/limits.js";
import { serveCodeMode } from "./code/serve.js";

/** How the server offers the operations: one tool each, or three tools that search, describe and call them. */
const MODES = ["per-operation", "dynamic", "code"] as const;
export type McpMode = (typeof MODES)[number];

export interface StoreAdminMcpServerOptions extends ToolFilter {
  /** How to reach the store: the options of `createStoreAdminClient` (`baseUrl` or `apiUrl`, `accessToken`, …). */
  store: StoreAdminClientOptions;
  /** The most a result may hold, in bytes: the whole result as the JSON-RPC response carries it (text, `structuredContent`, every note). @default 32768 */
  maxResultBytes?: number | undefined;
  /**
   * `"per-operation"`: one tool per operation the filters allow. `"dynamic"`: `search_operations`,
   * `describe_operation` and `call_operation` (and `validate_call`), a list that does not grow
   * with the contract. `"code"`: `search_docs` and `execute`, typed SDK code run in a sandbox
   * (needs `typescript` 5 and `quickjs-emscripten`; docs/mcp.md). @default "per-operation"
   */
  mode?: McpMode | undefined;
  /** Code mode's limits per `execute`. */
  code?: CodeModeLimits | undefined;
}

/** Default result cap: well under the 64 KB at which stdio clients break, text and structured copy together. */
export const DEFAULT_MAX_RESULT_BYTES = 32_768;
/** The smallest cap: one short page and its note must fit. */
const MIN_RESULT_BYTES = 1_024;

/** The names of {@link StoreAdminMcpServerOptions}. */
const OPTION_NAMES: readonly string[] = [
  "store",
  "allowWrites",
  "scopes",
  "tools",
  "maxResultBytes",
  "mode",
  "code",
] satisfies ReadonlyArray<keyof StoreAdminMcpServerOptions>;

interface Checked {
  store: StoreAdminClientOptions;
  filter: ToolFilter;
  maxBytes: number;
  listed: McpToolRow[];
  mode: McpMode;
}

/** The server's options, each checked: what is wrong is refused by name, before a client is made. */
function checkedOptions(given: StoreAdminMcpServerOptions, rows: readonly McpToolRow[]): Checked {
  // Own properties only, here and in `store`: a key on a polluted Object.prototype (`fetch`,
  // `allowWrites`) must neither receive the token nor switch writes on.
  const options = ownOptions(given);
  if (options === null || typeof options !== "object" || options.store === null || typeof options.store !== "object") {
    throw new TypeError(
      "createStoreAdminMcpServer() takes { store: { baseUrl | apiUrl, accessToken }, allowWrites?, scopes?, tools?, maxResultBytes?, mode? }.",
    );
  }
  const store = ownOptions(options.store);
  checkBoolean("allowWrites", options.allowWrites, JSON.stringify);
  // A misspelt option would be ignored: `scope: [...]` would list every tool the `scopes` it meant would hide.
  const unknown = unknownOptions(options, OPTION_NAMES);
  if (unknown.length > 0) {
    throw new TypeError(
      `createStoreAdminMcpServer(): ${unknown.map((name) => JSON.stringify(name)).join(", ")} ${unknown.length > 1 ? "are not options" : "is not an option"}; the options are ${OPTION_NAMES.join(", ")}.`,
    );
  }
  const maxBytes = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < MIN_RESULT_BYTES)
    mustBe("maxResultBytes", `a whole number ≥ ${MIN_RESULT_BYTES}`, options.maxResultBytes, JSON.stringify);
  const mode = options.mode ?? "per-operation";
  if (!(MODES as readonly unknown[]).includes(mode))
    mustBe("mode", MODES.map((m) => JSON.stringify(m)).join(" or "), options.mode, JSON.stringify);
  const filter: ToolFilter = { allowWrites: options.allowWrites, scopes: options.scopes, tools: options.tools };
  for (const name of ["scopes", "tools"] as const) {
    const value = filter[name];
    if (
      value !== undefined &&
      (!Array.isArray(value) || !value.every((item) => typeof item === "string" && item !== ""))
    ) {
      mustBe(name, "an array of non-empty strings", value, JSON.stringify);
    }
  }
  const listed = listedTools(filter, rows);
  if (filter.tools !== undefined && listed.length === 0)
    throw new TypeError(`tools (${filter.tools.join(", ")}) names no tool this server may list.`);
  return { store: store as StoreAdminClientOptions, filter, maxBytes, listed, mode };
}

/**
 * Builds the server; connect it to a transport (`StdioServerTransport`, a Streamable HTTP one)
 * with `server.connect(transport)`.
 */
export function createStoreAdminMcpServer(given: StoreAdminMcpServerOptions): Server {
  return mcpServerOver(mcpTools, given);
}

/**
 * The server over `rows`: generated/mcp-tools.ts's, or another contract's to measure the list
 * and the search at any size (test/mcp/dynamic-size.test.ts). Calls are checked against our
 * contract, whatever the rows.
 */
export function mcpServerOver(rows: readonly McpToolRow[], given: StoreAdminMcpServerOptions): Server {
  const { store, filter, maxBytes, listed, mode } = checkedOptions(given, rows);
  const limits = codeModeLimits(ownOptions(given), mode);

  const client = createStoreAdminClient(store);
  // Every token the client's source handed out is scrubbed from what leaves the server, in every encoding the SDK's redaction knows.
  const tokens = tokenSourceOf(client)!;
  const clean = (text: string) => redact(text, tokens.secrets);
  // The testing kit's client: the contract's validators answer, nothing leaves the process. Loaded on first use.
  const contractChecker = loadOnce(
    (): Promise<StoreAdminClient> =>
      import("../testing/mock-store.js").then(({ mockStoreClient }) => mockStoreClient("contract-check")),
  );
  // The dynamic mode names an operation by its method name, which call_operation takes.
  const nameOf =
    mode === "dynamic"
      ? (tool: McpToolRow) => tool.methodName
      : mode === "code"
        ? (tool: McpToolRow) => `store.${tool.methodName}`
        : (tool: McpToolRow) => tool.name;
  const calls = operationCalls({ client, filter, maxBytes, clean, contractChecker, nameOf });

  const server = new Server({ name: "store-admin-sdk", version: VERSION }, { capabilities: { tools: {} } });
  // Code mode: search_docs and execute, whose store.* calls go through `calls` (src/mcp/code/).
  if (mode === "code") return serveCodeMode(server, { calls, filter, clean }, limits, maxBytes);
  const tools = mode === "dynamic" ? dynamicToolListing(filter.allowWrites === true) : toolListing(listed);
  const callTool =
    mode === "dynamic"
      ? dynamicTools({ rows, listed, calls, filter, maxBytes, clean })
      : perOperationTools(rows, listed, calls, clean);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  // Every result, whatever made it, within the cap.
  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<ToolResult> => withinCap(await callTool(request.params, extra.signal), maxBytes),
  );
  return server;
}

/** The per-operation mode's tools: an operation's own tool, or `validate_call { tool, arguments }`. */
function perOperationTools(
  rows: readonly McpToolRow[],
  listed: readonly McpToolRow[],
  calls: OperationCalls,
  clean: (text: string) => string,
) {
  return async (
    { name, arguments: input }: { name: string; arguments?: Record<string, unknown> | undefined },
    signal: AbortSignal,
  ): Promise<ToolResult> => {
    if (name === VALIDATE_CALL) {
      const named = input?.tool;
      const tool = typeof named === "string" ? rows.find((row) => row.name === named) : undefined;
      if (!tool)
        return errorResult(
          `validate_call takes { tool, arguments }: tool must name one of ${rows.map((t) => t.name).join(", ")}, got ${quoted(named)}.`,
          clean,
        );
      return calls.validate(tool, input?.arguments);
    }
    const tool = rows.find((row) => row.name === name);
    if (!tool)
      return errorResult(
        `There is no tool ${quoted(name)}. The tools: ${[...listed.map((t) => t.name), VALIDATE_CALL].join(", ")}.`,
        clean,
      );
    return calls.call(tool, input, signal);
  };
}
