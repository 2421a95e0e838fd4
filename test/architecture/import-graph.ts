/**
 * The import graph of `src/`, `generated/` and `scripts/` (type-only imports included), and what
 * is wrong with it by docs/architecture.md's layers: an import against the direction, an import
 * of the main entry's modules around the door (`#shared`) from another entry, or a cycle. Read with TypeScript's own
 * scanner, from any copy of the project (test/architecture/layers.test.ts plants faults in one).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import ts from "typescript";

/** A floor of the house, lowest first: a file may import its own floor or a lower one, never a sibling on its floor. */
interface Floor {
  name: string;
  rank: number;
  holds(file: string): boolean;
}

export const FLOORS: readonly Floor[] = [
  {
    name: "the leaves (src/core/, generated/)",
    rank: 0,
    holds: (f) =>
      f.startsWith("src/core/") ||
      (f.startsWith("generated/") && !f.startsWith("generated/testing/") && !f.startsWith("generated/schemas/")),
  },
  { name: "the client (src/client/)", rank: 1, holds: (f) => f.startsWith("src/client/") },
  {
    name: "the entry and the door (src/index.ts, src/shared.ts)",
    rank: 2,
    holds: (f) => f === "src/index.ts" || f === "src/shared.ts",
  },
  {
    name: "the testing kit (src/testing/, generated/testing/)",
    rank: 3,
    holds: (f) => f.startsWith("src/testing/") || f.startsWith("generated/testing/"),
  },
  { name: "the plugins entry (src/plugins/)", rank: 3, holds: (f) => f.startsWith("src/plugins/") },
  {
    name: "the schemas entry (src/schemas/, generated/schemas/)",
    rank: 3,
    holds: (f) => f.startsWith("src/schemas/") || f.startsWith("generated/schemas/"),
  },
  { name: "the partner apps' OAuth (src/oauth/)", rank: 3, holds: (f) => f.startsWith("src/oauth/") },
  {
    name: "the bulk runner (src/bulk/)",
    rank: 4,
    holds: (f) => f.startsWith("src/bulk/") && !f.startsWith("src/bulk/bullmq/"),
  },
  { name: "the MCP server (src/mcp/)", rank: 4, holds: (f) => f.startsWith("src/mcp/") },
  { name: "the BullMQ backend (src/bulk/bullmq/)", rank: 5, holds: (f) => f.startsWith("src/bulk/bullmq/") },
  { name: "the command line (src/cli/)", rank: 6, holds: (f) => f.startsWith("src/cli/") },
  // The maintainer's tools stand on the whole package (they build, measure and generate it) and ship in none of it.
  { name: "the contract model (scripts/)", rank: 7, holds: (f) => CONTRACT_MODEL.has(f) },
  { name: "the generators (scripts/)", rank: 8, holds: (f) => GENERATORS.has(f) },
  {
    name: "the contract diff (scripts/contract-diff*, scripts/release*)",
    rank: 8,
    holds: (f) => f.startsWith("scripts/contract-diff") || f.startsWith("scripts/release"),
  },
  { name: "the build and the local tools (scripts/)", rank: 8, holds: (f) => TOOLS.has(f) },
  {
    // doc-figures.ts writes into the docs the sizes the bench measures (the MCP tool lists), with the bench's own measure.
    name: "the bench (scripts/bench.ts, scripts/bench/, scripts/doc-figures.ts)",
    rank: 9,
    holds: (f) => f === "scripts/bench.ts" || f.startsWith("scripts/bench/") || f === "scripts/doc-figures.ts",
  },
];

/** The highest floor that ships in the package: above it, the scripts, to which the door's rule does not apply. */
const PACKAGE_TOP_RANK = 6;

/** The door's file, and the name the subsystems import it by (package.json `imports`). */
export const DOOR = { file: "src/shared.ts", name: "#shared" };

export interface Edge {
  from: string;
  to: string;
  /** The specifier as written. */
  specifier: string;
}

/** The contract model and what every script reads it with: parsing, checking, naming, encoding. */
const CONTRACT_MODEL = new Set(
  [
    "contract-json",
    "contract-model",
    "contract-names",
    "method-names",
    "operation-model",
    "load-contract",
    "encode",
    "schema-types",
    "generated-files",
    "file-keys",
    "facts",
    "figures",
  ].map((name) => `scripts/${name}.ts`),
);
/** What writes generated/, the samples and the reference. */
const GENERATORS = new Set(
  [
    "generate",
    "generate-testing",
    "generate-mcp",
    "generate-code-mode",
    "samples",
    "lazy-tables",
    "testing-modules",
    "docs",
    "docs-code",
  ].map((name) => `scripts/${name}.ts`),
);
/** The build, its size measure, and the local servers and demo. */
const TOOLS = new Set(["build", "size", "mock", "demo", "start", "redis-server"].map((name) => `scripts/${name}.ts`));

const floorOf = (file: string): Floor | undefined => FLOORS.find((floor) => floor.holds(file));

/** Every `.ts` file under `dir` (relative to `root`, with `/`). */
function tsFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split("\\").join("/"))
    .sort();
}

/** The edges of the graph: every import, export-from, `import()` and `import type` of a file of ours. */
export function importGraph(root: string): { files: string[]; edges: Edge[] } {
  const files = [...tsFiles(root, "src"), ...tsFiles(root, "generated"), ...tsFiles(root, "scripts")];
  const known = new Set(files);
  const edges: Edge[] = [];
  for (const from of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, from), "utf8"), true, true);
    for (const { fileName: specifier } of importedFiles) {
      let to: string | undefined;
      if (specifier === DOOR.name) to = DOOR.file;
      else if (specifier.endsWith(".json"))
        continue; // data (figures.json), no module of the graph
      else if (specifier.startsWith("."))
        to = posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\.js$/, ".ts");
      else continue; // a package
      if (!known.has(to))
        throw new Error(`${from} imports ${specifier}, which is no file of src/, generated/ or scripts/`);
      edges.push({ from, to, specifier });
    }
  }
  return { files, edges };
}

/** What breaks the layering, one sentence each, naming both files; empty when nothing does. */
export function layerProblems(root: string): string[] {
  const { files, edges } = importGraph(root);
  const problems: string[] = [];
  for (const file of files)
    if (!floorOf(file)) problems.push(`${file} is on no floor of docs/architecture.md's layers`);
  for (const { from, to, specifier } of edges) {
    const [a, b] = [floorOf(from), floorOf(to)];
    if (!a || !b || a === b) continue;
    if (b.rank > a.rank) problems.push(`${from} imports ${to}: ${a.name} may not import ${b.name}, a floor above it`);
    else if (b.rank === a.rank) problems.push(`${from} imports ${to}: ${a.name} may not import ${b.name}, beside it`);
    // Above the door, the main entry's modules are reached through it, by its name only (one copy of each module in the package).
    else if (
      a.rank > 2 &&
      a.rank <= PACKAGE_TOP_RANK &&
      b.rank <= 2 &&
      !to.startsWith("generated/") &&
      specifier !== DOOR.name
    ) {
      problems.push(
        `${from} imports ${to} (${specifier}): ${a.name} takes the main entry's modules through the door, "${DOOR.name}"`,
      );
    }
  }
  for (const cycle of cycles(files, edges)) problems.push(`import cycle: ${cycle.join(" → ")}`);
  return problems;
}

/** One cycle per strongly connected component of more than one file (or a file importing itself), as a path back to its start. */
function cycles(files: readonly string[], edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const { from, to } of edges) next.get(from)!.push(to);
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file)!) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || next.get(file)!.includes(file)) found.push(pathWithin(new Set(component), file, next));
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

/** A path from `start` back to itself inside one component: the cycle a reader can follow. */
function pathWithin(component: ReadonlySet<string>, start: string, next: ReadonlyMap<string, string[]>): string[] {
  const seen = new Map<string, string | undefined>([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const to of next.get(file)!) {
      if (to === start) {
        const path = [start];
        for (let at: string | undefined = file; at !== undefined && at !== start; at = seen.get(at))
          path.splice(1, 0, at);
        return [...path, start];
      }
      if (component.has(to) && !seen.has(to)) {
        seen.set(to, file);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

export const projectRoot = join(dirname(new URL(import.meta.url).pathname), "..", "..");
