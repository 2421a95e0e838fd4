/**
 * What keeps the client's start-up from growing with the contract: of the per-operation
 * tables, only the methods' names load at start; the rest loads on the first call
 * (src/internal/tables.ts; docs/architecture.md, "Cost per operation").
 *
 * - `generated/method-index.ts`: the operation methods' names as a tree of resources, from
 *   which src/methods.ts makes `store.users.retrieve`. A list method holds its path, because
 *   it returns its async iterable at once; any other method holds 0 and finds its operation in
 *   `generated/method-table.ts` on its first call. A name costs a few bytes gzipped; a path
 *   and its facts would cost several times that, at start, for every operation.
 * - `generated/operation-facts.ts`: the table of each operation's facts, moved out of
 *   `generated/operations.ts`, whose constants and types are needed at start: a bundler
 *   splits modules, not the statements of one.
 */

import { jsonCode } from "./encode.js";

/** What the index needs of one method. */
interface IndexedMethod {
  /** Dotted name, `users.addresses.update`. */
  name: string;
  path: string;
  paginated: boolean;
}

type Tree = { [name: string]: Tree | string | 0 };

/** The source of `generated/method-index.ts` (after `header`). */
export function methodIndexModule(header: string, methods: readonly IndexedMethod[]): string {
  const top: Tree = {};
  for (const { name, path, paginated } of methods) {
    const parts = name.split(".");
    let node = top;
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Tree;
    node[parts.at(-1)!] = paginated ? path : 0;
  }
  return `${header}
/** Resources by name, each holding its methods and sub-resources: a list method's value is its path, any other method's 0. */
export interface MethodIndex {
  readonly [name: string]: MethodIndex | string | 0;
}

/** Every operation method, by resource (\`store.users.retrieve\` is \`methodIndex.users.retrieve\`). */
export const methodIndex: MethodIndex = ${jsonCode(top, 2)};
`;
}

/** The `operations` table's declaration in the source of `generated/operations.ts`: from its doc comment to its closing brace. */
const FACTS_TABLE = /\n(\/\*\*(?:(?!\*\/)[\s\S])*\*\/\n)?export const operations\b[\s\S]*?\n\};\n/;

/** `generated/operations.ts` without its `operations` table, and `generated/operation-facts.ts` holding it. */
export function splitOperationFacts(header: string, source: string): { "operations.ts": string; "operation-facts.ts": string } {
  const table = FACTS_TABLE.exec(source);
  if (!table) throw new Error("generated/operations.ts has no `export const operations` table to move to operation-facts.ts");
  return {
    "operations.ts": source.replace(table[0], "\n"),
    "operation-facts.ts": `${header}
import type { OperationFacts, OperationKey } from "./operations.js";
${table[0]}`,
  };
}
