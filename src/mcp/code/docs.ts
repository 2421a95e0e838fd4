/**
 * Code mode's `search_docs`: words in; the methods the server would let the code call out,
 * ranked by the dynamic mode's search (operation-search.ts), each with its signature as the
 * sandbox declares it, summary, the scopes it needs, whether it writes, and an example; paged
 * like other results.
 */
import { codeModeDocs } from "../../../generated/code-mode-docs.js";
import {
  createOperationSearch,
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  operationDocument,
  SearchArgumentError,
  type SearchDocument,
} from "../operation-search.js";
import { listedTools, type ToolFilter } from "../tool-list.js";
import { withinCap, type ToolResult } from "../result-size.js";
import { searchNotes } from "../search-notes.js";

export const SEARCH_DOCS_TOOL = {
  name: "search_docs",
  title: "Search the SDK's methods",
  description:
    'Finds the `store.*` methods for a task, in words ("gift cards of a customer", "resolve a dispute"): each with its TypeScript signature as code in execute sees it, its summary, the scopes it needs, whether it changes data, and an example. Only methods this server lets the code call are found.',
  inputSchema: {
    type: "object" as const,
    properties: {
      query: { type: "string", description: "What you want to do, in words." },
      limit: {
        type: "integer",
        minimum: 1,
        maximum: MAX_SEARCH_LIMIT,
        description: `How many methods a page shows (default ${DEFAULT_SEARCH_LIMIT}).`,
      },
      cursor: { type: "string", description: "The next_cursor of a previous result, for its next page." },
    },
    required: ["query"],
    additionalProperties: false,
  },
  annotations: { title: "Search the SDK's methods", readOnlyHint: true, openWorldHint: false },
};

interface Found extends SearchDocument {
  signature: string;
  example: string;
}

/**
 * What the other modes' `select` argument does, as code: shown beside the methods found when one
 * of them answers a list (named in it), since code keeps the fields it needs itself.
 */
function selectInCode(method: string): string {
  return `To keep a result small (what select does in the other modes), return only the fields the task needs, from each item of a list: const kept = []; for await (const item of store.${method}(…)) kept.push({ id: item.id, email: item.email }); return kept;`;
}

const docsByName = new Map(codeModeDocs.map(([name, signature, example]) => [name, { signature, example }]));

/** `search_docs` over the methods `filter` lets the code call. */
export function docsSearch(
  filter: ToolFilter,
  maxBytes: number,
): (input: Record<string, unknown> | undefined) => ToolResult {
  const index = createOperationSearch<Found>(
    listedTools(filter).map((row) => ({ ...operationDocument(row), ...docsByName.get(row.methodName)! })),
  );
  const notes = searchNotes(filter);
  return (input) => {
    let page;
    try {
      page = index.search(input?.query as string, {
        limit: input?.limit as number | undefined,
        cursor: input?.cursor as string | undefined,
      });
    } catch (error) {
      if (!(error instanceof SearchArgumentError)) throw error;
      return { content: [{ type: "text", text: `search_docs: ${error.message}` }], isError: true };
    }
    const methods = page.results.map((doc) => ({
      method: `store.${doc.name}`,
      signature: doc.signature,
      summary: doc.summary,
      scopes: doc.scopes,
      writes: doc.writes,
      example: doc.example,
    }));
    const list = page.results.find((doc) => doc.signature.includes("AsyncGenerator<"));
    const said = [
      methods.length === 0 ? "No method this server allows matches those words; try other words." : undefined,
      notes(String(input?.query), page.results[0]),
    ]
      .filter(Boolean)
      .join(" ");
    const structured = {
      methods,
      total: page.total,
      next_cursor: page.next_cursor,
      ...(said ? { note: said } : {}),
      ...(list ? { select: selectInCode(list.name) } : {}),
    };
    return withinCap(
      { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured },
      maxBytes,
    );
  };
}
