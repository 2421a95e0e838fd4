/**
 * Code mode's `search_docs`: words in; the methods the server would let the code call out,
 * each with its signature in the sandbox, summary, the scopes it needs, whether it writes,
 * and an example.
 */
import { codeModeDocs } from "../../../generated/code-mode-docs.js";
import { mcpTools } from "../../../generated/mcp-tools.js";
import { whyNotListed, type ToolFilter } from "../tool-list.js";
import { withinCap, type ToolResult } from "../result-size.js";

const DEFAULT_LIMIT = 5;
const MAX_LIMIT = 20;

export const SEARCH_DOCS_TOOL = {
  name: "search_docs",
  title: "Search the SDK's methods",
  description:
    "Finds the `store.*` methods for a task, in words (\"gift cards of a customer\", \"resolve a dispute\"): each with its TypeScript signature as code in execute sees it, its summary, the scopes it needs, whether it changes data, and an example. Only methods this server lets the code call are found.",
  inputSchema: {
    type: "object" as const,
    properties: {
      query: { type: "string", description: "What you want to do, in words." },
      limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT, description: `How many methods to show (default ${DEFAULT_LIMIT}).` },
    },
    required: ["query"],
    additionalProperties: false,
  },
  annotations: { title: "Search the SDK's methods", readOnlyHint: true, openWorldHint: false },
};

const words = (text: string): string[] => text.toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length > 1).map((word) => word.replace(/(ies|es|s)$/, (end) => (end === "ies" ? "y" : "")));

export function searchDocs(input: Record<string, unknown> | undefined, filter: ToolFilter, maxBytes: number): ToolResult {
  const query = input?.query;
  const limit = input?.limit ?? DEFAULT_LIMIT;
  if (typeof query !== "string" || query.trim() === "") return { content: [{ type: "text", text: "search_docs takes { query }: what you want to do, in words." }], isError: true };
  if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    return { content: [{ type: "text", text: `search_docs: limit must be a whole number from 1 to ${MAX_LIMIT}, got ${JSON.stringify(limit)}.` }], isError: true };
  }
  const wanted = new Set(words(query));
  const found = codeModeDocs
    .map(([name, signature, example]) => {
      const tool = mcpTools.find((row) => row.name === name.replace(/\./g, "_"))!;
      const text = new Set(words(`${name.replace(/([a-z])([A-Z])/g, "$1 $2")} ${tool.title} ${tool.description} ${tool.tags.join(" ")}`));
      const score = [...wanted].filter((word) => text.has(word)).length;
      return { name, signature, example, tool, score };
    })
    .filter(({ tool, score }) => score > 0 && whyNotListed(tool, filter) === undefined)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map(({ name, signature, example, tool }) => ({
      method: `store.${name}`,
      signature,
      summary: tool.title,
      scopes: tool.scopes,
      writes: tool.method !== "GET",
      example,
    }));
  const structured = { methods: found, ...(found.length === 0 ? { note: "No method this server allows matches those words; try other words." } : {}) };
  const text = JSON.stringify(structured);
  return withinCap({ content: [{ type: "text", text }], structuredContent: structured }, maxBytes);
}
