/**
 * 6. Type-checking cost for a user: `tsc --noEmit --extendedDiagnostics` on
 * `typecheck-consumer.ts` (all 20 operations and a paginate), checked against the BUILT
 * `.d.ts` files as an application would see them, next to two baselines: a file that only
 * imports and creates the client, and the same 20 calls through bare openapi-fetch
 * (`typecheck-bare.ts`). The files are copied to a temporary directory with their imports
 * pointed at `dist/` and `node_modules/`; nothing is written to the project.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST_ENTRY, ROOT } from "./fixtures.js";
import { summarize, type BenchOptions, type Summary } from "./stats.js";

export interface TypecheckFigures {
  checkSeconds: Summary;
  totalSeconds: Summary;
  instantiations: number;
  types: number;
  memoryKb: number;
}

export interface TypecheckResult {
  typescript: string;
  consumer: TypecheckFigures;
  importOnly: TypecheckFigures;
  bare: TypecheckFigures;
}

const IMPORTS: Record<string, string> = {
  '"../../src/index.js"': JSON.stringify(DIST_ENTRY),
  '"../../generated/schema.js"': JSON.stringify(DIST_ENTRY.replace(/src\/index\.js$/, "generated/schema.js")),
  '"openapi-fetch"': JSON.stringify(`${ROOT}node_modules/openapi-fetch/dist/index.mjs`),
};

const IMPORT_ONLY = `import { createStoreAdminClient } from "../../src/index.js";
export const store = createStoreAdminClient({ baseUrl: "https://shop.example.com", accessToken: "sat_live_token" });
`;

const TSC = `${ROOT}node_modules/typescript/lib/tsc.js`;

/** Writes `source` (imports rewritten) and its tsconfig into `dir`; returns the tsconfig path. */
function prepare(dir: string, name: string, source: string): string {
  let text = source;
  for (const [from, to] of Object.entries(IMPORTS)) text = text.replaceAll(from, to);
  writeFileSync(join(dir, `${name}.mts`), text); // .mts: an ES module, like the package
  const config = {
    compilerOptions: {
      strict: true,
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      lib: ["ES2022", "DOM", "DOM.Iterable"],
      types: [],
      skipLibCheck: true,
      noEmit: true,
    },
    files: [`${name}.mts`],
  };
  const path = join(dir, `tsconfig.${name}.json`);
  writeFileSync(path, JSON.stringify(config));
  return path;
}

function check(tsconfig: string): Record<string, number> {
  let output: string;
  try {
    output = execFileSync(process.execPath, [TSC, "-p", tsconfig, "--extendedDiagnostics"], { encoding: "utf8" });
  } catch (error) {
    throw new Error(`type errors in the benchmark's consumer file:\n${(error as { stdout?: string }).stdout ?? String(error)}`);
  }
  const figures: Record<string, number> = {};
  for (const [, key, value] of output.matchAll(/^([A-Za-z ]+):\s+([\d.]+)[sK]?$/gm)) figures[key!.trim()] = Number(value);
  return figures;
}

export async function run({ quick }: BenchOptions): Promise<TypecheckResult> {
  const dir = mkdtempSync(join(tmpdir(), "store-admin-sdk-typecheck-"));
  try {
    const read = (file: string): string => readFileSync(new URL(file, import.meta.url), "utf8");
    const configs = {
      consumer: prepare(dir, "consumer", read("./typecheck-consumer.ts")),
      importOnly: prepare(dir, "import-only", IMPORT_ONLY),
      bare: prepare(dir, "bare", read("./typecheck-bare.ts")),
    };
    const runs: Record<keyof typeof configs, Array<Record<string, number>>> = { consumer: [], importOnly: [], bare: [] };
    const repetitions = quick ? 1 : 5;
    check(configs.consumer); // warm-up: file cache, Node's compile cache
    for (let i = 0; i < repetitions; i++) {
      for (const name of Object.keys(configs) as Array<keyof typeof configs>) runs[name].push(check(configs[name]));
    }
    const figures = (list: Array<Record<string, number>>): TypecheckFigures => ({
      checkSeconds: summarize(list.map((f) => f["Check time"]!)),
      totalSeconds: summarize(list.map((f) => f["Total time"]!)),
      instantiations: list[0]!["Instantiations"]!,
      types: list[0]!["Types"]!,
      memoryKb: list[0]!["Memory used"]!,
    });
    const version = JSON.parse(readFileSync(`${ROOT}node_modules/typescript/package.json`, "utf8")) as { version: string };
    return { typescript: version.version, consumer: figures(runs.consumer), importOnly: figures(runs.importOnly), bare: figures(runs.bare) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
