/**
 * What a bundler pulls in for `import { createStoreAdminClient } from "store-admin-sdk"`: an
 * esbuild bundle (minified, ESM, platform neutral) of the BUILT entry, openapi-fetch
 * included, gzipped at level 9. esbuild is pinned, so the figure is exact. `dist/` is itself
 * bundled (scripts/build.ts), so the bytes per source file come from a second bundle of the
 * same entry's TypeScript source (`src/index.ts` for `dist/src/index.js`): the same modules.
 *
 * The figure is what an application loads before a call fails: what the client needs only
 * then (`src/internal/off-path.ts`: the error classes, their wording, the redaction, the
 * logger) is a dynamic `import()`, which a bundler that splits code (Vite, webpack, esbuild's
 * `--splitting`) puts in a chunk loaded on first need. That chunk is counted apart
 * (`lazyGzipBytes`): the bundle with every dynamic import followed, less this one.
 *
 *   npx tsx scripts/size.ts                                   the main entry, against the ceiling
 *   npx tsx scripts/size.ts dist/src/testing/index.js createMockStore   any entry and names
 *
 * Run after `npm run build`. Exits 1 when the main entry is over {@link CEILING_GZIP_BYTES}.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build, type Plugin } from "esbuild";
import { operations } from "../generated/operation-facts.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/**
 * Where the bundle stands today plus a little: it must not grow unnoticed. Lower it as it
 * shrinks. It was 10,500 B before the client's hardening (response-size cap, header and
 * per-call option checks, redaction of what servers send): docs/performance.md, "Bundle size".
 * It was 12,700 B (for 12,618 B) before the operation methods (`store.users.retrieve(42)`):
 * their table (generated/method-table.ts) and src/methods.ts measured +933 B min+gz
 * (12,618 → 13,551 B), so it rose by those 933 B, within the 1 kB they were allowed.
 * It was 13,633 B before the bulk runner's derivation hook (a client assembled so that a
 * derived one shares its context: client.ts `assemble`) and the third hardening (one abort
 * listener per shared signal, a signal per paginate walk) met in one build: 13,677 B.
 * Bundling `dist/` per entry (scripts/build.ts: its chunks cost an application's bundle about
 * 30 B) and the method table without its path-parameter column (−17 B) left it at 13,677 B.
 * What the client needs only when a call fails (the error classes and their wording, the
 * redaction, the retry policy, the logger: `internal/off-path.ts`) then moved behind one
 * dynamic `import()`, loaded on the first failure and counted apart: 13,677 → 10,254 B.
 * Shorter wording would not reach the goal: emptying every message left on the success path
 * leaves about 9.5 kB (docs/performance.md, "Bundle size"). The success path's speed-ups
 * (docs/performance.md §§ 2–3: a body's chunks joined instead of read through a Blob, a 2xx
 * without a logger skipping the retry question, one query serializer per client) and a message
 * naming a non-ASCII token apart added about 80 B: 10,340 B (for 10,325 B).
 * Two guarantees then added 292 B, measured by removing each (10,325 → 10,617 B): the fallback
 * for a lost error chunk (internal/lazy.ts and the retry decision without the policy: 184 B,
 * within the 200 B it was allowed), and options read as own properties with every option
 * openapi-fetch reads given explicitly, so that a polluted Object.prototype cannot redirect a
 * call (108 B, with the main entry split from the modules the other entries share).
 * `.withResponse()`/`.asResponse()`, the request id read from `request-id` too, and the
 * `STORE_ADMIN_LOG` switch measured +290 B (10,325 → 10,615 B, before those guarantees); the
 * hooks of the `telemetry` option (the option's loader, a span per call and per attempt, the
 * bulk run's span; telemetry.ts itself loads only with the option) +195 B more (→ 10,810 B).
 * Together with the guarantees: 11,100 B. A `sleep` that chains waits longer than `setTimeout`
 * can hold (a 35-day `Retry-After` fired a timer every millisecond) added about 25 B: 11,128 B measured.
 * Scrubbing the token out of `.withResponse().requestId` (the call's secrets recalled on the main
 * path, the redaction itself off it) and out of what telemetry records added 8 B: 11,127 B
 * (for 11,119 B). The per-operation tables then moved behind the first call (only the methods'
 * names load at start: docs/architecture.md, "Cost per operation"), which keeps the figure
 * from growing with the contract and took 133 B off ours: 10,986 B measured. A lost tables
 * chunk then failed with Node's bare `Cannot find module`; its StoreAdminError (the error of a
 * lost error chunk, reused) added 23 B: 11,009 B measured. Scrubbing every token an
 * `accessToken` function handed out, not only the call's (the source remembers the 16 most recent,
 * on the main path, since a call's secrets are fixed when it starts) added 71 B: 11,080 B measured.
 * One copy of each fact across the entries (the API root read from the contract's `servers`, the
 * null-body statuses and a `next` link's cursor exported to the other entries through the door)
 * added 3 B: 11,083 B measured.
 * That was with the contract's 20 operations; each operation added since may add
 * {@link PER_OPERATION_GZIP_BYTES} (its method's name), so that one more does not fail the
 * check (it added 1 B).
 */
const MEASURED_GZIP_BYTES = 11_083;
const MEASURED_OPERATIONS = 20;
/** What an operation may add to the main entry's start: the goal test/size-per-operation.test.ts holds (docs/architecture.md, "Cost per operation"). */
export const PER_OPERATION_GZIP_BYTES = 6;
/** The ceiling for the contract of generated/: the one measured, and {@link PER_OPERATION_GZIP_BYTES} for each operation added since. */
export const CEILING_GZIP_BYTES = MEASURED_GZIP_BYTES + PER_OPERATION_GZIP_BYTES * Math.max(0, Object.keys(operations).length - MEASURED_OPERATIONS);
/** The goal: 8 kB min+gz. Missed today; docs/performance.md says by how much and what the bytes are. */
export const GOAL_GZIP_BYTES = 8 * 1024;
/** The package's main entry, built. */
export const MAIN_ENTRY = "dist/src/index.js";

interface BundleSize {
  /** What loads before a call fails: every module but those behind a dynamic `import()`. */
  minBytes: number;
  gzipBytes: number;
  /** What loads when a call first fails, min+gz: the bundle with dynamic imports followed, less the above. */
  lazyGzipBytes: number;
  /**
   * Minified bytes each input file contributes (paths relative to the root), largest first:
   * the source files (`src/…`, `generated/…`) of a built entry, else the entry's own inputs.
   */
  inputs: Array<{ path: string; bytes: number }>;
}

/**
 * The size of a bundle that imports `names` from `entry`: a path relative to the repository
 * root (`dist/src/index.js`) or a package name (`openapi-fetch`). A name may be
 * `default as createClient`.
 */
export async function bundleSize(entry = MAIN_ENTRY, names: readonly string[] = ["createStoreAdminClient"]): Promise<BundleSize> {
  const specifier = existsSync(resolve(ROOT, entry)) ? resolve(ROOT, entry) : entry;
  const result = await minified(specifier, names, false);
  const code = result.outputFiles[0]!.contents;
  const whole = (await minified(specifier, names, true)).outputFiles[0]!.contents;
  const gzipBytes = gzipSync(code, { level: 9 }).byteLength;
  const source = /^dist\/(.*)\.js$/.exec(entry)?.[1];
  const attributed = source && existsSync(resolve(ROOT, `${source}.ts`)) ? await minified(resolve(ROOT, `${source}.ts`), names, false) : result;
  const output = Object.values(attributed.metafile.outputs)[0]!;
  return {
    minBytes: code.byteLength,
    gzipBytes,
    lazyGzipBytes: gzipSync(whole, { level: 9 }).byteLength - gzipBytes,
    inputs: Object.entries(output.inputs)
      .map(([path, { bytesInOutput }]) => ({ path, bytes: bytesInOutput }))
      .filter(({ bytes }) => bytes > 0)
      .sort((a, b) => b.bytes - a.bytes),
  };
}

/** The files of `dist/` that a built `file` imports: statically, and with `import()`. */
function distImports(file: string): { static: string[]; dynamic: string[] } {
  const code = readFileSync(file, "utf8");
  const at = (pattern: RegExp) => [...code.matchAll(pattern)].map((match) => resolve(dirname(file), match[1]!));
  return { static: at(/(?:from|^import)\s+"(\.{1,2}\/[^"]+)"/gm), dynamic: at(/import\("(\.{1,2}\/[^"]+)"\)/g) };
}

/** A built `file` and every file of `dist/` it reaches through static imports: what loading it reads. */
export function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (!seen.has(file)) {
    seen.add(file);
    for (const next of distImports(file).static) staticClosure(next, seen);
  }
  return seen;
}

/** Leaves every dynamic `import()` as it is: what it loads is not loaded with the bundle. */
const dynamicImportsApart: Plugin = {
  name: "dynamic-imports-apart",
  setup(build) {
    build.onResolve({ filter: /.*/ }, ({ kind, path }) => (kind === "dynamic-import" ? { path, external: true } : undefined));
  },
};

/** The `telemetry` option's module loads with that option, not on a failure: it counts in neither figure. */
const telemetryApart: Plugin = {
  name: "telemetry-apart",
  setup(build) {
    build.onResolve({ filter: /telemetry/ }, ({ kind, path }) => (kind === "dynamic-import" ? { path, external: true } : undefined));
  },
};

function minified(specifier: string, names: readonly string[], followDynamicImports: boolean) {
  return build({
    plugins: followDynamicImports ? [telemetryApart] : [dynamicImportsApart],
    stdin: { contents: `export { ${names.join(", ")} } from ${JSON.stringify(specifier)};`, resolveDir: ROOT, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    write: false,
    metafile: true,
    logLevel: "silent",
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [entry = MAIN_ENTRY, ...names] = process.argv.slice(2);
  const size = await bundleSize(entry, names.length > 0 ? names : undefined);
  for (const { path, bytes } of size.inputs) console.log(`${String(bytes).padStart(8)} B  ${path}`);
  console.log(`${entry}: ${size.gzipBytes} B min+gz (${size.minBytes} B minified), and ${size.lazyGzipBytes} B more when a call first fails`);
  if (entry === MAIN_ENTRY && names.length === 0) {
    console.log(`ceiling ${CEILING_GZIP_BYTES} B, goal ${GOAL_GZIP_BYTES} B (${size.gzipBytes - GOAL_GZIP_BYTES} B over the goal)`);
    if (size.gzipBytes > CEILING_GZIP_BYTES) {
      console.error(`over the ceiling of ${CEILING_GZIP_BYTES} B min+gz: see the inputs above for what grew`);
      process.exitCode = 1;
    }
  }
}
