/**
 * The dynamic mode (`--mode dynamic`): three tools whose list does not grow with the contract,
 * beside `validate_call`. `search_operations` finds the operations this server would call
 * (operation-search.ts, over the listed operations only), `describe_operation` gives one's
 * arguments, scopes, limits, description and an example call, and `call_operation` calls it
 * through the very function the per-operation tools use (operation-call.ts).
 */
import { ownOptions, unknownOptions } from "#shared";
import {
  createOperationSearch,
  MAX_SEARCH_LIMIT,
  DEFAULT_SEARCH_LIMIT,
  operationDocument,
  SearchArgumentError,
  type OperationSearch,
  type SearchDocument,
} from "./operation-search.js";
import { exampleArguments } from "./example-call.js";
import { inputSchemaOf, whyNotListed, VALIDATE_CALL, type ToolFilter } from "./tool-list.js";
import { SELECT_SCHEMA } from "./select.js";
import { errorResult, type ToolResult } from "./tool-call.js";
import type { OperationCalls } from "./operation-call.js";
import { quoted } from "./result-size.js";
import { searchNotes } from "./search-notes.js";
import { MAX_UPLOAD_BYTES, type McpToolRow } from "../../generated/mcp-tools.js";

const SEARCH = "search_operations";
const DESCRIBE = "describe_operation";
const CALL = "call_operation";

const METHOD = {
  type: "string",
  description: "The operation's method name, as search_operations gives it, e.g. giftCards.update.",
};
const ARGUMENTS = {
  type: "object",
  properties: { select: SELECT_SCHEMA },
  description:
    "The operation's arguments { path?, query?, body?, select? } as describe_operation gives their schema (list operations also take offset); select keeps only the fields named, from each item of a list.",
};

/**
 * What `tools/list` answers in the dynamic mode: the same four tools whatever the contract's
 * size. `call_operation` is read-only (MCP's `readOnlyHint`) on a server that does not allow
 * writes, so that a client may treat it as it treats reads.
 */
export function dynamicToolListing(allowWrites: boolean) {
  const object = (properties: Record<string, unknown>, required: string[]) => ({
    type: "object" as const,
    properties,
    required,
    additionalProperties: false,
  });
  return [
    {
      name: SEARCH,
      title: "Find the API's operations",
      description:
        "Finds the store API's operations this server can call, by words (\"cancel a customer's gift card\", \"list a customer's notes\"). Answers the best matches first: each one's method name, one-line summary, the scopes it needs (alternatives, each a set of scopes) and whether it changes data, with the total and next_cursor for more. Then describe_operation for its arguments, and call_operation to call it.",
      inputSchema: object(
        {
          query: { type: "string", description: "What to do, in words." },
          limit: {
            type: "integer",
            minimum: 1,
            maximum: MAX_SEARCH_LIMIT,
            description: `How many results (default ${DEFAULT_SEARCH_LIMIT}).`,
          },
          cursor: { type: "string", description: "The next_cursor of a previous answer to the same query." },
        },
        ["query"],
      ),
      annotations: { title: "Find the API's operations", readOnlyHint: true, openWorldHint: false },
    },
    {
      name: DESCRIBE,
      title: "Describe an operation",
      description:
        "One operation of the store API in full: the JSON Schema of its arguments { path?, query?, body? }, the scopes it needs, whether it changes data, its limits, the contract's description, and an example call_operation call.",
      inputSchema: object({ method: METHOD }, ["method"]),
      annotations: { title: "Describe an operation", readOnlyHint: true, openWorldHint: false },
    },
    {
      name: CALL,
      title: "Call an operation",
      description:
        "Calls one operation of the store API with its arguments, checked against the API's contract first (nothing is sent if they do not match). Answers the store's data as JSON (a list answers one page, with next_cursor), or isError with what to fix. A call that changes data is refused unless the server allows writes.",
      inputSchema: object({ method: METHOD, arguments: ARGUMENTS }, ["method"]),
      annotations: allowWrites
        ? {
            title: "Call an operation",
            readOnlyHint: false,
            destructiveHint: true,
            idempotentHint: false,
            openWorldHint: true,
          }
        : { title: "Call an operation", readOnlyHint: true, openWorldHint: true },
    },
    {
      name: VALIDATE_CALL,
      title: "Check a call against the contract",
      description:
        "Checks a proposed call_operation call against the API's contract (parameters, body fields, types, limits) and sends nothing. Answers whether it is valid and, if not, what to fix, and whether this server would run it.",
      inputSchema: object({ method: METHOD, arguments: ARGUMENTS }, ["method"]),
      annotations: { title: "Check a call against the contract", readOnlyHint: true, openWorldHint: false },
    },
  ];
}

interface DynamicContext {
  /** Every operation's row, listed or not: a call of one the policy refuses says why. */
  rows: readonly McpToolRow[];
  /** The operations the server lists: the only ones a search finds. */
  listed: readonly McpToolRow[];
  calls: OperationCalls;
  filter: ToolFilter;
  maxBytes: number;
  clean: (text: string) => string;
}

type Found = SearchDocument & { row: McpToolRow };

/** The answer as a result: its JSON as text and as `structuredContent`, redacted. */
function structured(value: Record<string, unknown>, clean: (text: string) => string): ToolResult {
  const text = clean(JSON.stringify(value));
  return { content: [{ type: "text", text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
}

/** `input`'s own fields, or why not: only `allowed` ones. */
function fieldsOf(tool: string, input: unknown, allowed: readonly string[]): Record<string, unknown> | string {
  const given = input ?? {};
  if (typeof given !== "object" || Array.isArray(given))
    return `${tool} takes an object { ${allowed.join(", ")} }, got ${quoted(given)}.`;
  const fields = ownOptions(given as Record<string, unknown>);
  const unknown = unknownOptions(fields, allowed);
  if (unknown.length > 0)
    return `${tool} takes ${allowed.join(", ")}; ${unknown.map((key) => quoted(key)).join(", ")} ${unknown.length > 1 ? "are" : "is"} not one of them.`;
  return fields;
}

/** The operation `name` names (a method name, or its tool's name), or a refusal that suggests some. */
function namedOperation(
  rows: readonly McpToolRow[],
  index: OperationSearch<Found>,
  clean: (text: string) => string,
  tool: string,
  name: unknown,
): { row: McpToolRow } | { refusal: ToolResult } {
  const row = typeof name === "string" ? rows.find((r) => r.methodName === name || r.name === name) : undefined;
  if (row !== undefined) return { row };
  if (typeof name !== "string" || name.trim() === "")
    return {
      refusal: errorResult(
        `${tool} takes { method }: the operation's method name, e.g. giftCards.update; got ${quoted(name)}.`,
        clean,
      ),
    };
  const near = index.search(name.slice(0, 200), { limit: 3 }).results.map((doc) => doc.name);
  return {
    refusal: errorResult(
      `There is no operation ${quoted(name)}.${near.length > 0 ? ` Did you mean ${near.join(", ")}?` : ""} search_operations finds operations by words.`,
      clean,
    ),
  };
}

/** What describe_operation answers for `row`: its arguments, scopes, limits, description and an example call. */
function described(row: McpToolRow, maxBytes: number): Record<string, unknown> {
  const { summary, description } = operationDocument(row);
  const limits = {
    result_bytes: maxBytes,
    ...(row.list
      ? {
          paging:
            "One page a call: next_cursor in the answer is the next page's query.cursor; offset reads the rest of a page a result had to cut.",
        }
      : {}),
    ...(row.multipart
      ? { upload_bytes: MAX_UPLOAD_BYTES, files: "A file field takes { filename, contentType?, base64 }." }
      : {}),
    fields: "The lengths, ranges and enumerations the contract states are in arguments.",
  };
  return {
    method: row.methodName,
    summary,
    description,
    operation: row.operation,
    writes: row.method !== "GET",
    ...(row.method !== "GET"
      ? {
          idempotent: row.annotations.idempotentHint === true,
          destructive: row.annotations.destructiveHint === true,
        }
      : {}),
    scopes: row.scopes,
    arguments: inputSchemaOf(row),
    limits,
    example: { method: row.methodName, arguments: exampleArguments(row.inputSchema as Record<string, unknown>) },
  };
}

/** The dynamic mode's tools: a call of one of them, answered. */
export function dynamicTools({ rows, listed, calls, filter, maxBytes, clean }: DynamicContext) {
  const index = createOperationSearch<Found>(listed.map((row) => ({ ...operationDocument(row), row })));
  const notes = searchNotes(filter, rows);
  /** {@link namedOperation} over this server's rows and search. */
  const operationNamed = (tool: string, name: unknown) => namedOperation(rows, index, clean, tool, name);

  function search(input: unknown): ToolResult {
    const fields = fieldsOf(SEARCH, input, ["query", "limit", "cursor"]);
    if (typeof fields === "string") return errorResult(fields, clean);
    try {
      const page = index.search(fields.query as string, {
        limit: fields.limit as number | undefined,
        cursor: fields.cursor as string | undefined,
      });
      const results = page.results.map((doc) => ({
        method: doc.name,
        summary: doc.summary,
        scopes: doc.scopes,
        writes: doc.writes,
      }));
      const note =
        [
          page.total === 0
            ? `No operation this server can call matches; try other words (it can call ${listed.length}).`
            : undefined,
          notes(String(fields.query), page.results[0]),
        ]
          .filter(Boolean)
          .join(" ") || undefined;
      return structured(
        { results, total: page.total, next_cursor: page.next_cursor, ...(note ? { note } : {}) },
        clean,
      );
    } catch (error) {
      if (error instanceof SearchArgumentError) return errorResult(`${SEARCH}: ${error.message}`, clean);
      throw error;
    }
  }

  function describe(input: unknown): ToolResult {
    const fields = fieldsOf(DESCRIBE, input, ["method"]);
    if (typeof fields === "string") return errorResult(fields, clean);
    const named = operationNamed(DESCRIBE, fields.method);
    if ("refusal" in named) return named.refusal;
    const { row } = named;
    const refused = whyNotListed(row, filter, row.methodName);
    if (refused !== undefined) return errorResult(`Not available: ${refused}`, clean);
    return structured(described(row, maxBytes), clean);
  }

  async function callOrValidate(tool: string, input: unknown, signal: AbortSignal): Promise<ToolResult> {
    const fields = fieldsOf(tool, input, ["method", "arguments"]);
    if (typeof fields === "string") return errorResult(fields, clean);
    const named = operationNamed(tool, fields.method);
    if ("refusal" in named) return named.refusal;
    return tool === CALL
      ? calls.call(named.row, fields.arguments, signal)
      : calls.validate(named.row, fields.arguments);
  }

  return async (
    { name, arguments: input }: { name: string; arguments?: Record<string, unknown> | undefined },
    signal: AbortSignal,
  ): Promise<ToolResult> => {
    if (name === SEARCH) return search(input);
    if (name === DESCRIBE) return describe(input);
    if (name === CALL || name === VALIDATE_CALL) return callOrValidate(name, input, signal);
    return errorResult(
      `There is no tool ${quoted(name)}. The tools: ${SEARCH}, ${DESCRIBE}, ${CALL}, ${VALIDATE_CALL}.`,
      clean,
    );
  };
}
