/**
 * What a contract of N operations costs: a synthetic contract (synthetic-contract.ts) made into
 * a copy of the project, generated, built, and its entries measured as scripts/size.ts measures
 * ours (min+gz, what loads at start apart from what loads later).
 *
 * A build is kept under `.cache/synthetic/` by a hash of everything it is made from (the
 * generators, `src/`, our contract, the lockfile, N and the seed): the 1,000-operation case is
 * built once and reused by the test and the bench until one of those changes.
 *
 *   npx tsx scripts/bench/synthetic-build.ts 20 200 1000
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildDist } from "../build.js";
import { bundleSize } from "../size.js";
import { writeSyntheticContract } from "./synthetic-contract.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CACHE = join(ROOT, ".cache", "synthetic");
const TSX = join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");

/** What the build of a contract of `operations` operations measured. */
export interface SyntheticFigures {
  operations: number;
  /** `import { createStoreAdminClient }`: min+gz at start, and what loads later (every dynamic import followed). */
  main: { gzipBytes: number; lazyGzipBytes: number };
  /** `import { createMockStore } from "store-admin-sdk/testing"`, the same way. */
  testing: { gzipBytes: number; lazyGzipBytes: number };
  /** Files of the built testing entry (with everything it may load) that hold `new Function` or `eval(`. */
  runtimeCompiled: string[];
  /** Wall times in milliseconds: `scripts/generate.ts`, `scripts/generate-testing.ts`, `scripts/generate-mcp.ts`, `scripts/generate-code-mode.ts`, the build of dist/. */
  ms: { generate: number; generateTesting: number; generateMcp: number; generateCodeMode: number; build: number };
  /** Where the project copy is. */
  dir: string;
}

/** Every file under `dir` (relative), sorted. */
function files(dir: string, prefix = ""): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? files(dir, join(prefix, entry.name)) : [join(prefix, entry.name)]))
    .sort();
}

/** The hash of what a build is made from. */
function inputsHash(operations: number, seed: number): string {
  const hash = createHash("sha256").update(`${operations}:${seed}\n`);
  for (const dir of ["src", "scripts"])
    for (const file of files(join(ROOT, dir)))
      hash.update(`${dir}/${file}\n`).update(readFileSync(join(ROOT, dir, file)));
  for (const file of ["openapi/store-admin.yaml", "package-lock.json", "package.json"])
    hash.update(readFileSync(join(ROOT, file)));
  return hash.digest("hex").slice(0, 16);
}

const timed = (work: () => void): number => {
  const started = performance.now();
  work();
  return Math.round(performance.now() - started);
};

/** Builds (or finds built) the project for a synthetic contract of `operations` operations, and measures it. */
export async function syntheticBuild(operations: number, seed = 1): Promise<SyntheticFigures> {
  const dir = join(CACHE, `${operations}-${inputsHash(operations, seed)}`);
  const result = join(dir, "figures.json");
  if (existsSync(result)) return JSON.parse(readFileSync(result, "utf8")) as SyntheticFigures;
  // Older builds of the same size are of older sources: not kept.
  if (existsSync(CACHE))
    for (const old of readdirSync(CACHE))
      if (old.startsWith(`${operations}-`)) rmSync(join(CACHE, old), { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const path of ["src", "scripts", "package.json", "tsconfig.json"])
    cpSync(join(ROOT, path), join(dir, path), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  const contract = join(dir, "contract");
  writeSyntheticContract(contract, operations, seed);
  mkdirSync(join(dir, "openapi"), { recursive: true });
  cpSync(join(contract, "store-admin.yaml"), join(dir, "openapi", "store-admin.yaml"));
  cpSync(join(contract, "samples"), join(dir, "docs", "samples"), { recursive: true });

  // The copy's own generators (its scripts/), so that they read its contract and samples and write its generated/.
  const generator = (script: string) => () =>
    execFileSync(process.execPath, [TSX, join(dir, "scripts", script)], { cwd: dir, stdio: "pipe" });
  const ms = {
    generate: timed(generator("generate.ts")),
    generateTesting: timed(generator("generate-testing.ts")),
    generateMcp: timed(generator("generate-mcp.ts")),
    generateCodeMode: timed(generator("generate-code-mode.ts")),
    build: 0,
  };
  const started = performance.now();
  await buildDist(dir);
  ms.build = Math.round(performance.now() - started);

  const size = async (entry: string, names?: string[]) => {
    const { gzipBytes, lazyGzipBytes } = await bundleSize(join(dir, entry), names);
    return { gzipBytes, lazyGzipBytes };
  };
  const dist = join(dir, "dist");
  const figures: SyntheticFigures = {
    operations,
    main: await size("dist/src/index.js"),
    testing: await size("dist/src/testing/index.js", ["createMockStore"]),
    runtimeCompiled: files(dist).filter(
      (file) => file.endsWith(".js") && /\bnew Function\b|\beval\(/.test(readFileSync(join(dist, file), "utf8")),
    ),
    ms,
    dir,
  };
  writeFileSync(result, JSON.stringify(figures, null, 2));
  return figures;
}

/** Bytes each added operation costs between two builds. */
export const perOperation = (
  from: SyntheticFigures,
  to: SyntheticFigures,
  pick: (f: SyntheticFigures) => number,
): number => (pick(to) - pick(from)) / (to.operations - from.operations);

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const count of process.argv.slice(2).map(Number)) {
    const figures = await syntheticBuild(count);
    console.log(JSON.stringify({ ...figures, dir: undefined, size: statSync(figures.dir).isDirectory() }));
  }
}
