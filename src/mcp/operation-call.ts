/**
 * One operation's call and its check against the contract, whichever tool asks for them: an
 * operation's own tool (`giftCards_update`), the dynamic mode's `call_operation`, or
 * `validate_call`. Every path goes through these two functions, so the policy, the contract
 * check before sending, the error results, the result cap and the redaction are the same.
 */
import { clip, StoreAdminError, type StoreAdminClient } from "#shared";
import { whyNotListed, type ToolFilter } from "./tool-list.js";
import {
  checkArguments,
  errorResult,
  resultOf,
  send,
  sendWithStatus,
  ToolArgumentError,
  type CallArguments,
  type ToolResult,
} from "./tool-call.js";
import { shown } from "./result-size.js";
import { selected } from "./select.js";
import type { McpToolRow } from "../../generated/mcp-tools.js";

/** The request line and HTTP status that head the testing kit's refusal, as they head a store's error. */
const KIT_ANSWER = /^\[[A-Z]+ [^\]]*\] \d{3} [^:]*: /;

/** Most of an error body a result quotes: enough for a model to see which field the store refused. */
const MAX_QUOTED_BODY = 2_000;

interface OperationContext {
  client: StoreAdminClient;
  filter: ToolFilter;
  maxBytes: number;
  /** The token's redaction, applied to every text that leaves. */
  clean: (text: string) => string;
  /** The testing kit's client: the contract's validators answer, nothing leaves the process. */
  contractChecker: () => Promise<StoreAdminClient>;
  /** How results and refusals name an operation: its tool's name, or (dynamic mode) its method name. */
  nameOf: (tool: McpToolRow) => string;
}

export interface OperationCalls {
  /** Calls `tool` with `input` (`{ path?, query?, body?, offset? }`): refused, checked, sent, shaped. */
  call(tool: McpToolRow, input: unknown, signal: AbortSignal): Promise<ToolResult>;
  /** `validate_call`'s verdict on calling `tool` with `input`: nothing is sent. */
  validate(tool: McpToolRow, input: unknown): Promise<ToolResult>;
  /**
   * The same checks as {@link call}, then the call: its data and HTTP status (code mode's
   * `store.*` calls). A refusal throws a {@link ToolArgumentError} (`Not sent: …`), the
   * store's answer the SDK's typed error.
   */
  checkedSend(
    tool: McpToolRow,
    input: unknown,
    signal: AbortSignal | undefined,
  ): Promise<{ args: CallArguments; data: unknown; status: number }>;
}

/**
 * The SDK's message, and what the store said (its body, scrubbed by the client), for a model to
 * act on: one line, without the control and bidi characters a store may put in it.
 */
function apiErrorText(error: StoreAdminError): string {
  const body = (error as { body?: unknown }).body;
  if (body === undefined || body === null || body === "") return error.message;
  return `${error.message}\nThe store answered: ${clip(typeof body === "string" ? body : JSON.stringify(body), [], MAX_QUOTED_BODY)}`;
}

export function operationCalls({
  client,
  filter,
  maxBytes,
  clean,
  contractChecker,
  nameOf,
}: OperationContext): OperationCalls {
  // Messages name the operation as the agent calls it.
  const named = (tool: McpToolRow): McpToolRow => (nameOf(tool) === tool.name ? tool : { ...tool, name: nameOf(tool) });

  /** `undefined` when the call matches the contract, else why not (the testing kit's words). */
  async function contractProblem(tool: McpToolRow, args: CallArguments): Promise<string | undefined> {
    try {
      await send(await contractChecker(), tool, { path: args.path, query: args.query, body: args.body });
      return undefined;
    } catch (error) {
      if (error instanceof ToolArgumentError) return error.message;
      const status = (error as { status?: unknown }).status;
      // The kit answers as a store would ("[GET /users/] 422 Unprocessable Content: …"): only what is wrong, for a request that never left.
      if (status === 400 || status === 415 || status === 422) return (error as Error).message.replace(KIT_ANSWER, "");
      return undefined; // the kit answers every valid call; another failure is no verdict on the call
    }
  }

  async function checkedSend(tool: McpToolRow, input: unknown, signal: AbortSignal | undefined) {
    const refused = whyNotListed(tool, filter, nameOf(tool));
    if (refused !== undefined) throw new ToolArgumentError(refused);
    const shownTool = named(tool);
    const args = checkArguments(shownTool, input);
    const problem = await contractProblem(shownTool, args);
    if (problem !== undefined)
      throw new ToolArgumentError(
        `the call does not match the contract (checked here; the store was not asked): ${problem}`,
      );
    const { data, status } = await sendWithStatus(client, tool, args, signal);
    return { args, data, status };
  }

  async function call(tool: McpToolRow, input: unknown, signal: AbortSignal): Promise<ToolResult> {
    const shownTool = named(tool);
    try {
      const { args, data } = await checkedSend(tool, input, signal);
      // Selected before the cap, so that a page holds as many of the smaller items as fit.
      const kept = args.select === undefined ? data : selected(data, args.select, tool.list);
      return resultOf(shownTool, kept, args.offset ?? 0, maxBytes, clean, nameOf);
    } catch (error) {
      if (error instanceof ToolArgumentError) return errorResult(`Not sent: ${error.message}`, clean);
      if (error instanceof StoreAdminError) return errorResult(apiErrorText(error), clean);
      return errorResult(
        `${shownTool.name} failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
        clean,
      );
    }
  }

  async function validate(tool: McpToolRow, input: unknown): Promise<ToolResult> {
    const shownTool = named(tool);
    let problem: string | undefined;
    try {
      problem = await contractProblem(shownTool, checkArguments(shownTool, input));
    } catch (error) {
      if (!(error instanceof ToolArgumentError)) throw error;
      problem = error.message;
    }
    // Shown in the text and in `structuredContent`: clipped, so that both fit under the cap.
    if (problem !== undefined) problem = shown(problem, MAX_QUOTED_BODY);
    const refused = whyNotListed(tool, filter, nameOf(tool));
    const verdict = {
      valid: problem === undefined,
      ...(problem !== undefined ? { problem } : {}),
      ...(refused !== undefined ? { available: false, why: refused } : { available: true }),
    };
    const text = clean(JSON.stringify(verdict));
    return { content: [{ type: "text", text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
  }

  return { call, validate, checkedSend };
}
