/**
 * What a bundler pulls in for `import { createStoreAdminClient } from "store-admin-sdk"`: an
 * esbuild bundle (minified, ESM, platform neutral) of the BUILT entry, openapi-fetch
 * included, gzipped at level 9. esbuild is pinned, so the figure is exact. `dist/` is itself
 * bundled (scripts/build.ts), so the bytes per source file come from a second bundle of the
 * same entry's TypeScript source (`src/index.ts` for `dist/src/index.js`): the same modules.
 *
 * The figure held is the main entry's code in all (`totalGzipBytes`): the bundle with every
 * dynamic `import()` followed and inlined, as esbuild bundles it without splitting (a Worker, a
 * Lambda, a CLI): every chunk a first call and a first failure load (the operation tables, the
 * form bodies' module), with nothing exempt. Telemetry and response validation are plugins of
 * `store-admin-sdk/plugins` and are not reachable from the main entry at all. What loads at
 * start (`gzipBytes`: dynamic imports left out) and what loads later (`lazyGzipBytes`) are
 * reported too.
 *
 *   npx tsx scripts/size.ts                                   the main entry, its code in all against the ceiling
 *   npx tsx scripts/size.ts dist/src/testing/index.js createMockStore   any entry and names
 *
 * Run after `npm run build`. Exits 1 when the main entry's code in all is over {@link CEILING_GZIP_BYTES}.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build, type Plugin } from "esbuild";
import { operations } from "../generated/operation-facts.js";
import figures from "../figures.json" with { type: "json" };

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/**
 * Where the main entry's code in all stands today: it must not grow unnoticed. Lower it as it
 * shrinks. Until the layering of src/ the ceiling held what loaded at start only (11,080 B for
 * 20 operations, the last of a history in docs/performance.md, "Bundle size"): what a call
 * needs only when it fails (the error classes and their wording, the redaction, the retry
 * policy, the logger) loaded behind a dynamic `import()` of its own: 11,080 B at start and
 * 6,085 B later, 17,165 B in all (`npm run bench`, the commit before the layering and after it
 * in one run). Those modules now load with the entry, and the machinery that
 * kept them apart (its loader, the `instanceof` override for an error made without them, a
 * second retry decision) is gone: 16,408 B in all, 15,452 B at start. The `telemetry`
 * module then took the redaction as an argument rather than importing it, so that the main
 * entry reads two files at start, not three (docs/performance.md, "Start-up"): +33 B, 16,441 B
 * in all, 15,461 B at start. Splitting the old fast-path.ts into three modules by what each
 * is moved 6 B (module order under gzip): 16,447 B in all, 15,465 B at start, 63 B over the
 * goal. One copy of each fact across the entries (the API root read from the contract's
 * `servers`, and the null-body statuses, a `next` link's cursor, the reason phrases and the
 * methods safe to resend handed to the other entries through the door) added 19 B: 16,466 B
 * in all, 15,485 B at start, 82 B over the goal. One pause for the whole client on a 429
 * (client/rate-pause.ts: the calls not yet sent wait in call order) and a debug log that says
 * more (an error status's class and the store's detail, why a call is not retried, the wait in
 * the pause, the `store-admin-sdk: ` tag) added 465 B: 16,931 B in all, 15,963 B at start, 547 B
 * over the goal. The `validateResponses` option added 59 B at start (its hook: the option kept,
 * its check loaded before a first call sends and run once a body is parsed) and 63 B to the
 * tables' chunk (its loader), its check and validators loading with the option only:
 * 17,053 B in all, 16,022 B at start, but that figure left out what the options reached by
 * dynamic `import()` (telemetry, and every operation's response validators: 70,500 B min+gz in
 * all, followed). With the hook chain, those became plugins of `store-admin-sdk/plugins`, which
 * the main entry does not reach; the chain itself (the plugin views, the wraps, the verdicts,
 * the pause and the logger as plugins, the URL an attempt's plugins are shown) brought it to
 * 18,856 B in all, 17,900 B at start: 2,472 B over the goal, which this change did not meet.
 * Drift on the attempt's own log event in words for a reader, `ContractDriftError.toJSON()`
 * without its body and `moreDrifts`, a 422's next step only when fields are named, and a short
 * token scrubbed only where it stands whole added 370 B: 19,226 B in all, 18,274 B at start.
 * The pause's own wait kept apart for the log line (other plugins' waits are no pause): 19,277 B
 * in all, 18,330 B at start. What a plugin may not do, refused (a wrap's result checked and a
 * header refused naming the plugin, the caller's signal over a hook that never settles, the
 * tokens out of the call view's class, a redaction that matches a token whole only, a token
 * function's error scrubbed, a hook given up for the caller's abort while it waits on its own): 19,600 B in
 * all, 18,660 B at start. An unknown client option refused (a misspelt `plugin` was ignored):
 * 19,681 B in all, 18,754 B at start. The per-call and per-method refusals of an unknown option
 * through `unknownOptions()`, the tables through `loadOnce()` (one helper each): 19,696 B in all, 18,766 B at start.
 * The caller's signal taken from the client rather than from the view a plugin may write over, a
 * `next()` kept past its call's end refused, a wrap's response checked for headers: 19,796 B in all,
 * 18,859 B at start.
 * Smaller code for the same behaviour and messages (the error classes' fields declared and set
 * in their constructors rather than class fields, a method row without its operation, which is
 * the one at its place in the facts, a call's facts spread into its error, and small folds):
 * 19,591 B in all, 18,722 B at start, 3,207 B over the goal.
 * The chain's idle hooks not run (the SDK's plugins saying when they have nothing to do, a call's
 * order and tokens in the view's private fields, an attempt run with no view where no wrap acts),
 * which made a stub call about a quarter faster: 19,930 B in all, 19,048 B at start. With every
 * string of `src/` over 20 characters cut to one character, the main entry at 19,591 B still
 * measured about 16,845 B in all: the goal cannot be met by wording; something the entry does
 * must leave it. What the chain's guards gave the caller kept for the SDK's own plugins (the
 * pause waits on the caller's signal as the client holds it, `wrapCall` looked for per call, a
 * caller's hook held to an aborted signal, `params` with any other key spread as before):
 * 19,959 B in all, 19,068 B at start.
 * That was with the contract's 20 operations; each operation added since
 * may add {@link PER_OPERATION_TOTAL_GZIP_BYTES} (its method's name, its facts and its row of
 * the method table), so that one more does not fail the check.
 */
const { measuredGzipBytes: MEASURED_GZIP_BYTES, measuredOperations: MEASURED_OPERATIONS } = figures.mainEntry;
/**
 * The figures here are kept in figures.json, which the tests read too: `perOperationGzipBytes`,
 * what an operation may add to the main entry's start (the goal test/size-per-operation.test.ts
 * holds, docs/architecture.md, "Cost per operation").
 * What an operation may add to the main entry's code in all: its name at start, its facts and its method's row later.
 */
const PER_OPERATION_TOTAL_GZIP_BYTES = figures.mainEntry.perOperationTotalGzipBytes;
/** The ceiling for the contract of generated/: the one measured, and {@link PER_OPERATION_TOTAL_GZIP_BYTES} for each operation added since. */
export const CEILING_GZIP_BYTES =
  MEASURED_GZIP_BYTES +
  PER_OPERATION_TOTAL_GZIP_BYTES * Math.max(0, Object.keys(operations).length - MEASURED_OPERATIONS);
/** The goal for the main entry's code in all: 16 kB min+gz. */
export const GOAL_GZIP_BYTES = figures.mainEntry.goalGzipBytes;
/** The package's main entry, built. */
export const MAIN_ENTRY = "dist/src/index.js";

interface BundleSize {
  /** What loads at start: every module but those behind a dynamic `import()`. */
  minBytes: number;
  gzipBytes: number;
  /** The code in all, min+gz: the bundle with dynamic imports followed (but the `telemetry` option's module). */
  totalGzipBytes: number;
  /** What loads after the start (a first call, a form), min+gz: {@link totalGzipBytes} less {@link gzipBytes}. */
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
export async function bundleSize(
  entry = MAIN_ENTRY,
  names: readonly string[] = ["createStoreAdminClient"],
): Promise<BundleSize> {
  const specifier = existsSync(resolve(ROOT, entry)) ? resolve(ROOT, entry) : entry;
  const result = await minified(specifier, names, false);
  const code = result.outputFiles[0]!.contents;
  const whole = (await minified(specifier, names, true)).outputFiles[0]!.contents;
  const gzipBytes = gzipSync(code, { level: 9 }).byteLength;
  const totalGzipBytes = gzipSync(whole, { level: 9 }).byteLength;
  const source = /^dist\/(.*)\.js$/.exec(entry)?.[1];
  const attributed =
    source && existsSync(resolve(ROOT, `${source}.ts`))
      ? await minified(resolve(ROOT, `${source}.ts`), names, false)
      : result;
  const output = Object.values(attributed.metafile.outputs)[0]!;
  return {
    minBytes: code.byteLength,
    gzipBytes,
    totalGzipBytes,
    lazyGzipBytes: totalGzipBytes - gzipBytes,
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
    build.onResolve({ filter: /.*/ }, ({ kind, path }) =>
      kind === "dynamic-import" ? { path, external: true } : undefined,
    );
  },
};

function minified(specifier: string, names: readonly string[], followDynamicImports: boolean, plugins: Plugin[] = []) {
  return build({
    plugins: [...plugins, ...(followDynamicImports ? [] : [dynamicImportsApart])],
    stdin: {
      contents: `export { ${names.join(", ")} } from ${JSON.stringify(specifier)};`,
      resolveDir: ROOT,
      loader: "js",
    },
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
  console.log(
    `${entry}: ${size.totalGzipBytes} B min+gz in all: ${size.gzipBytes} B at start (${size.minBytes} B minified), ${size.lazyGzipBytes} B on a first call or form`,
  );
  if (entry === MAIN_ENTRY && names.length === 0) {
    console.log(
      `ceiling ${CEILING_GZIP_BYTES} B, goal ${GOAL_GZIP_BYTES} B (${size.totalGzipBytes - GOAL_GZIP_BYTES} B over the goal)`,
    );
    if (size.totalGzipBytes > CEILING_GZIP_BYTES) {
      console.error(`over the ceiling of ${CEILING_GZIP_BYTES} B min+gz: see the inputs above for what grew`);
      process.exitCode = 1;
    }
  }
}
