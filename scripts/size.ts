/**
 * What a bundler pulls in for `import { createStoreAdminClient } from "store-admin-sdk"`: an
 * esbuild bundle (minified, ESM, platform neutral) of the BUILT entry, openapi-fetch
 * included, gzipped at level 9. esbuild is pinned, so the figure is exact. `dist/` is itself
 * bundled (scripts/build.ts), so the bytes per source file come from a second bundle of the
 * same entry's TypeScript source (`src/index.ts` for `dist/src/index.js`): the same modules.
 *
 *   npx tsx scripts/size.ts                                   the main entry, against the ceiling
 *   npx tsx scripts/size.ts dist/src/testing/index.js createMockStore   any entry and names
 *
 * Run after `npm run build`. Exits 1 when the main entry is over {@link CEILING_GZIP_BYTES}.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

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
 * Shorter wording does not move it: gzip already stores a repeated phrase once, and emptying
 * every message of the bundle leaves about 11.4 kB (docs/performance.md, "Bundle size").
 * It was 13,680 B before the success path's speed-ups (docs/performance.md §§ 2–3): joining a
 * body's chunks instead of a Blob read (+40 B; a pagination walk 1.18× → 1.09× of a hand loop),
 * a 2xx skipping the retry question (+11 B) and one query serializer per client (+2 B): 13,731 B.
 */
export const CEILING_GZIP_BYTES = 13_735;
/** The goal: 8 kB min+gz. Missed today; docs/performance.md says by how much and what the bytes are. */
export const GOAL_GZIP_BYTES = 8 * 1024;
/** The package's main entry, built. */
export const MAIN_ENTRY = "dist/src/index.js";

export interface BundleSize {
  minBytes: number;
  gzipBytes: number;
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
  const result = await minified(existsSync(resolve(ROOT, entry)) ? resolve(ROOT, entry) : entry, names);
  const code = result.outputFiles[0]!.contents;
  const source = /^dist\/(.*)\.js$/.exec(entry)?.[1];
  const attributed = source && existsSync(resolve(ROOT, `${source}.ts`)) ? await minified(resolve(ROOT, `${source}.ts`), names) : result;
  const output = Object.values(attributed.metafile.outputs)[0]!;
  return {
    minBytes: code.byteLength,
    gzipBytes: gzipSync(code, { level: 9 }).byteLength,
    inputs: Object.entries(output.inputs)
      .map(([path, { bytesInOutput }]) => ({ path, bytes: bytesInOutput }))
      .filter(({ bytes }) => bytes > 0)
      .sort((a, b) => b.bytes - a.bytes),
  };
}

function minified(specifier: string, names: readonly string[]) {
  return build({
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
  console.log(`${entry}: ${size.gzipBytes} B min+gz (${size.minBytes} B minified)`);
  if (entry === MAIN_ENTRY && names.length === 0) {
    console.log(`ceiling ${CEILING_GZIP_BYTES} B, goal ${GOAL_GZIP_BYTES} B (${size.gzipBytes - GOAL_GZIP_BYTES} B over the goal)`);
    if (size.gzipBytes > CEILING_GZIP_BYTES) {
      console.error(`over the ceiling of ${CEILING_GZIP_BYTES} B min+gz: see the inputs above for what grew`);
      process.exitCode = 1;
    }
  }
}
