/**
 * The Model Context Protocol server: the generated tools (generated/mcp-tools.ts), filtered,
 * each call sent through the SDK's own client, and `validate_call`, which checks a proposed
 * call against the contract with the testing kit and sends nothing.
 *
 * Built on the official SDK's low-level `Server` (`@modelcontextprotocol/sdk`, an optional
 * peer dependency): the tools carry JSON Schema derived from the contract, which its
 * higher-level `McpServer` would want as zod schemas.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { clip, createStoreAdminClient, ownOptions, redact, type StoreAdminClient, type StoreAdminClientOptions, StoreAdminError, tokenSourceOf, VERSION } from "#shared";
import { listedTools, toolListing, toolNamed, VALIDATE_CALL, whyNotListed, type ToolFilter } from "./tool-list.js";
import { checkArguments, errorResult, resultOf, send, sendWithStatus, ToolArgumentError, type CallArguments, type ToolResult } from "./tool-call.js";
import { quoted, shown, withinCap } from "./result-size.js";
import { mcpTools, type McpToolRow } from "../../generated/mcp-tools.js";
import { codeModeOptions, type CodeModeLimits } from "./code/limits.js";
import { serveCodeMode } from "./code/serve.js";

export interface StoreAdminMcpServerOptions extends ToolFilter {
  /** How to reach the store: the options of `createStoreAdminClient` (`baseUrl` or `apiUrl`, `accessToken`, …). */
  store: StoreAdminClientOptions;
  /** The most a result may hold, in bytes: the whole result as the JSON-RPC response carries it (text, `structuredContent`, every note). @default 32768 */
  maxResultBytes?: number | undefined;
  /** `"tools"`: one tool per operation; `"code"`: `search_docs` and `execute` (typed SDK code in a sandbox; needs `typescript` 5 and `quickjs-emscripten`). @default "tools" */
  mode?: "tools" | "code" | undefined;
  /** Code mode's limits per execute. */
  code?: CodeModeLimits | undefined;
}

/** Default result cap: well under the 64 KB at which stdio clients break, text and structured copy together. */
export const DEFAULT_MAX_RESULT_BYTES = 32_768;
/** The smallest cap: one short page and its note must fit. */
const MIN_RESULT_BYTES = 1_024;

/** The names of {@link StoreAdminMcpServerOptions}. */
const OPTION_NAMES: readonly string[] = ["store", "allowWrites", "scopes", "tools", "maxResultBytes", "mode", "code"] satisfies ReadonlyArray<keyof StoreAdminMcpServerOptions>;

/** Most of an error body a result quotes: enough for a model to see which field the store refused. */
const MAX_QUOTED_BODY = 2_000;

/**
 * The SDK's message, and what the store said (its body, scrubbed by the client), for a model to
 * act on: one line, without the control and bidi characters a store may put in it.
 */
function apiErrorText(error: StoreAdminError): string {
  const body = (error as { body?: unknown }).body;
  if (body === undefined || body === null || body === "") return error.message;
  return `${error.message}\nThe store answered: ${clip(typeof body === "string" ? body : JSON.stringify(body), [], MAX_QUOTED_BODY)}`;
}

/** The server's options, each checked: what is wrong is refused by name, before a client is made. */
function checkedOptions(given: StoreAdminMcpServerOptions): { store: StoreAdminClientOptions; filter: ToolFilter; maxBytes: number; listed: McpToolRow[] } {
  // Own properties only, here and in `store`: a key on a polluted Object.prototype (`fetch`,
  // `allowWrites`) must neither receive the token nor switch writes on.
  const options = ownOptions(given);
  if (options === null || typeof options !== "object" || options.store === null || typeof options.store !== "object") {
    throw new TypeError("createStoreAdminMcpServer() takes { store: { baseUrl | apiUrl, accessToken }, allowWrites?, scopes?, tools?, maxResultBytes? }.");
  }
  const store = ownOptions(options.store);
  if (options.allowWrites !== undefined && typeof options.allowWrites !== "boolean") {
    throw new TypeError(`allowWrites must be true or false, got ${JSON.stringify(options.allowWrites)}.`);
  }
  // A misspelt option would be ignored: `scope: [...]` would list every tool the `scopes` it meant would hide.
  const unknown = Object.keys(options).filter((name) => !OPTION_NAMES.includes(name));
  if (unknown.length > 0) {
    throw new TypeError(`createStoreAdminMcpServer(): ${unknown.map((name) => JSON.stringify(name)).join(", ")} ${unknown.length > 1 ? "are not options" : "is not an option"}; the options are ${OPTION_NAMES.join(", ")}.`);
  }
  const maxBytes = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < MIN_RESULT_BYTES) {
    throw new TypeError(`maxResultBytes must be a whole number ≥ ${MIN_RESULT_BYTES}, got ${JSON.stringify(options.maxResultBytes)}.`);
  }
  const filter: ToolFilter = { allowWrites: options.allowWrites, scopes: options.scopes, tools: options.tools };
  for (const name of ["scopes", "tools"] as const) {
    const value = filter[name];
    if (value !== undefined && (!Array.isArray(value) || !value.every((item) => typeof item === "string" && item !== ""))) {
      throw new TypeError(`${name} must be an array of non-empty strings, got ${JSON.stringify(value)}.`);
    }
  }
  const listed = listedTools(filter);
  if (filter.tools !== undefined && listed.length === 0) throw new TypeError(`tools (${filter.tools.join(", ")}) names no tool this server may list.`);
  return { store: store as StoreAdminClientOptions, filter, maxBytes, listed };
}

/**
 * Builds the server; connect it to a transport (`StdioServerTransport`, a Streamable HTTP one)
 * with `server.connect(transport)`.
 */
export function createStoreAdminMcpServer(given: StoreAdminMcpServerOptions): Server {
  const { store, filter, maxBytes, listed } = checkedOptions(given);
  const { mode, limits } = codeModeOptions(ownOptions(given));

  const client = createStoreAdminClient(store);
  // Every token the client's source handed out is scrubbed from what leaves the server, in every encoding the SDK's redaction knows.
  const tokens = tokenSourceOf(client)!;
  const clean = (text: string) => redact(text, tokens.secrets);
  let checker: Promise<StoreAdminClient> | undefined;
  // The testing kit's client: the contract's validators answer, nothing leaves the process. Loaded on first use.
  const contractChecker = () => (checker ??= import("../testing/mock-store.js").then(({ mockStoreClient }) => mockStoreClient("contract-check")));

  /** `undefined` when the call matches the contract, else why not (the testing kit's words). */
  async function contractProblem(tool: McpToolRow, args: CallArguments): Promise<string | undefined> {
    try {
      await send(await contractChecker(), tool, { path: args.path, query: args.query, body: args.body });
      return undefined;
    } catch (error) {
      if (error instanceof ToolArgumentError) return error.message;
      const status = (error as { status?: unknown }).status;
      if (status === 400 || status === 415 || status === 422) return (error as Error).message;
      return undefined; // the kit answers every valid call; another failure is no verdict on the call
    }
  }

  const server = new Server({ name: "store-admin-sdk", version: VERSION }, { capabilities: { tools: {} } });

  // Code mode: search_docs and execute, their calls through the checks below (src/mcp/code/).
  if (mode === "code") return serveCodeMode(server, { filter, clean, contractProblem, send: (tool, args, signal) => sendWithStatus(client, tool, args, signal) }, limits, maxBytes);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolListing(listed) }));

  // Every result, whatever made it, within the cap.
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<ToolResult> => withinCap(await callTool(request.params, extra.signal), maxBytes));

  async function callTool({ name, arguments: input }: { name: string; arguments?: Record<string, unknown> | undefined }, signal: AbortSignal): Promise<ToolResult> {
    if (name === VALIDATE_CALL) return validateCall(input);
    const tool = toolNamed(name);
    if (!tool) return errorResult(`There is no tool ${quoted(name)}. The tools: ${[...listed.map((t) => t.name), VALIDATE_CALL].join(", ")}.`, clean);
    const refused = whyNotListed(tool, filter);
    if (refused !== undefined) return errorResult(`Not sent: ${refused}`, clean);
    try {
      const args = checkArguments(tool, input);
      const problem = await contractProblem(tool, args);
      if (problem !== undefined) return errorResult(`Not sent: the call does not match the contract. ${problem}`, clean);
      const data = await send(client, tool, args, signal);
      return resultOf(tool, data, args.offset ?? 0, maxBytes, clean);
    } catch (error) {
      if (error instanceof ToolArgumentError) return errorResult(`Not sent: ${error.message}`, clean);
      if (error instanceof StoreAdminError) return errorResult(apiErrorText(error), clean);
      return errorResult(`${tool.name} failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`, clean);
    }
  }

  async function validateCall(input: Record<string, unknown> | undefined): Promise<ToolResult> {
    const name = input?.tool;
    const tool = typeof name === "string" ? toolNamed(name) : undefined;
    if (!tool) return errorResult(`validate_call takes { tool, arguments }: tool must name one of ${mcpTools.map((t) => t.name).join(", ")}, got ${quoted(name)}.`, clean);
    let problem: string | undefined;
    try {
      problem = await contractProblem(tool, checkArguments(tool, input?.arguments));
    } catch (error) {
      if (!(error instanceof ToolArgumentError)) throw error;
      problem = error.message;
    }
    // Shown in the text and in `structuredContent`: clipped, so that both fit under the cap.
    if (problem !== undefined) problem = shown(problem, MAX_QUOTED_BODY);
    const refused = whyNotListed(tool, filter);
    const verdict = { valid: problem === undefined, ...(problem !== undefined ? { problem } : {}), ...(refused !== undefined ? { available: false, why: refused } : { available: true }) };
    const text = clean(JSON.stringify(verdict));
    return { content: [{ type: "text", text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
  }

  return server;
}
