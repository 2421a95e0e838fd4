/**
 * Which of the generated tools a server lists: reads only unless writes are allowed, those the
 * token's scopes satisfy, those a pattern names. A tool that is not listed is not callable.
 */
import { mcpTools, VALIDATE_CALL, type McpToolRow } from "../../generated/mcp-tools.js";
import { SELECT_SCHEMA } from "./select.js";

export { VALIDATE_CALL };

export interface ToolFilter {
  /** List the POST, PUT, PATCH and DELETE tools too. @default false */
  allowWrites?: boolean | undefined;
  /** The scopes the token holds: list only the tools that one of their operation's alternatives is satisfied by. */
  scopes?: readonly string[] | undefined;
  /** Tool names, method names or tags, `*` matching any run of characters: list only the tools one of them names. */
  tools?: readonly string[] | undefined;
}

/** `"giftCards_*"` as a whole-string regular expression. */
const glob = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
    "i",
  );

/** Why `tool` is not listed under `filter`, or `undefined` when it is; the reason names it `name`. */
export function whyNotListed(tool: McpToolRow, filter: ToolFilter, name = tool.name): string | undefined {
  if (tool.method !== "GET" && filter.allowWrites !== true) {
    return `${name} changes data (${tool.operation}), and this server lists only reads: start it with --allow-writes (allowWrites: true) to allow writes.`;
  }
  if (filter.scopes !== undefined && tool.scopes.length > 0) {
    const held = new Set(filter.scopes);
    if (!tool.scopes.some((alternative) => alternative.every((scope) => held.has(scope)))) {
      return `${name} needs the scope ${tool.scopes.map((a) => a.join(" and ")).join(" or ")}, which the scopes this server was given (${filter.scopes.join(", ") || "none"}) do not include.`;
    }
  }
  if (filter.tools !== undefined) {
    const patterns = filter.tools.map(glob);
    if (!patterns.some((p) => p.test(tool.name) || p.test(tool.methodName) || tool.tags.some((tag) => p.test(tag)))) {
      return `${name} is not among the tools this server was started with (${filter.tools.join(", ")}).`;
    }
  }
  return undefined;
}

/** The listed tools (of `rows`: another contract's, to measure). */
export function listedTools(filter: ToolFilter, rows: readonly McpToolRow[] = mcpTools): McpToolRow[] {
  return rows.filter((tool) => whyNotListed(tool, filter) === undefined);
}

/** The generated tool named `name`, listed or not. */
export function toolNamed(name: string): McpToolRow | undefined {
  return mcpTools.find((tool) => tool.name === name);
}

/** `tool`'s input schema as a server shows it: the generated one, and `select` (select.ts). */
export function inputSchemaOf(tool: McpToolRow): McpToolRow["inputSchema"] {
  const properties = tool.inputSchema.properties as Record<string, unknown> | undefined;
  return { ...tool.inputSchema, properties: { ...properties, select: SELECT_SCHEMA } };
}

/** What `tools/list` answers for `rows`: each tool as MCP describes it, and `validate_call`. */
export function toolListing(rows: readonly McpToolRow[]) {
  return [
    ...rows.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: inputSchemaOf(tool),
      annotations: tool.annotations,
    })),
    {
      name: VALIDATE_CALL,
      title: "Check a call against the contract",
      description:
        "Checks a proposed call of one of this server's tools against the API's contract (parameters, body fields, types, limits) and sends nothing. Answers whether it is valid and, if not, what to fix.",
      inputSchema: {
        type: "object" as const,
        properties: {
          tool: { type: "string", description: "The tool's name, e.g. giftCards_update." },
          arguments: {
            type: "object",
            description: "The arguments you would pass: { path?, query?, body?, select? }.",
          },
        },
        required: ["tool"],
        additionalProperties: false,
      },
      annotations: { title: "Check a call against the contract", readOnlyHint: true, openWorldHint: false },
    },
  ];
}
