/**
 * What keeps the client's start-up from growing with the contract: of the per-operation
 * tables, only the methods' names load at start; the rest loads on the first call
 * (src/client/tables.ts; docs/architecture.md, "Cost per operation"). scripts/generate.ts
 * writes the other tables as modules of their own.
 *
 * - `generated/method-index.ts`: the operation methods' names as a tree of resources, from
 *   which src/client/methods.ts makes `store.users.retrieve`. A list method holds its path, because
 *   it returns its async iterable at once; any other method holds 0 and finds its operation in
 *   `generated/method-table.ts` on its first call. A name costs a few bytes gzipped; a path
 *   and its facts would cost several times that, at start, for every operation.
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
