/**
 * What a search result says beside its hits, in both searches (the dynamic mode's
 * `search_operations`, code mode's `search_docs`): that methods which change data match too but
 * are hidden (and the flag that shows them), and that the best hit is a weak one.
 */
import { createOperationSearch, matchesStrongly, operationDocument, type SearchDocument } from "./operation-search.js";
import { listedTools, type ToolFilter } from "./tool-list.js";
import type { McpToolRow } from "../../generated/mcp-tools.js";

/** The notes of one search of `query`, given its best hit; `undefined` when there is nothing to say. */
type SearchNotes = (query: string, best: SearchDocument | undefined) => string | undefined;

export function searchNotes(filter: ToolFilter, rows?: readonly McpToolRow[]): SearchNotes {
  const listed = new Set(listedTools(filter, rows).map((row) => row.name));
  // The writes this server would list with --allow-writes: hidden only by that flag.
  const hidden =
    filter.allowWrites === true
      ? []
      : listedTools({ ...filter, allowWrites: true }, rows).filter((row) => !listed.has(row.name));
  const writes = createOperationSearch(hidden.map(operationDocument));
  return (query, best) => {
    const notes: string[] = [];
    if (best !== undefined && !matchesStrongly(query, best)) {
      notes.push(
        `The best match (${best.name}) is weak: no word of the query is in its name, summary or tags; it may not do what you asked. Try other words.`,
      );
    }
    if (hidden.length > 0) {
      const found = writes.search(query.slice(0, 1_000), { limit: 3 });
      if (found.total > 0) {
        notes.push(
          `${found.total} method${found.total > 1 ? "s" : ""} that change${found.total > 1 ? "" : "s"} data also match${found.total > 1 ? "" : "es"} (${found.results.map((doc) => doc.name).join(", ")}${found.total > 3 ? ", …" : ""}), hidden: this server lists only reads. Start it with --allow-writes (allowWrites: true) to see and call them.`,
        );
      }
    }
    return notes.length > 0 ? notes.join(" ") : undefined;
  };
}
