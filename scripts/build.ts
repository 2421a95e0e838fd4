/**
 * The JavaScript of `dist/`, in two esbuild passes:
 *
 * 1. The main entry and the door the other entries take the main entry's modules through
 *    (`src/shared.ts`, built to `dist/src/shared.js`), split: `dist/src/index.js` re-exports
 *    the public names from the chunk holding every module a call needs, and `dist/chunks/` also
 *    holds what loads later (the operation tables, a dynamic `import()`; telemetry). A cold
 *    `import()` of the package reads two files (docs/performance.md, "Start-up").
 *    `src/shared.ts` is in no entry of the package's `exports`: what it holds (the client
 *    registry, which reaches a client's token) is handed to no importer of a public entry.
 * 2. The other entries, with the code they share in chunks of their own. Their sources import
 *    the main entry's modules only through the door, by its name `#shared`, a subpath import of
 *    the package (package.json `imports`: resolvable only from the package's own files) naming
 *    `dist/src/shared.js`, which stays an import here (under `src/`, `src/package.json`'s `imports`
 *    names the source door instead, for tsc, tsx and vitest). So each module exists once: a class
 *    exported by the main entry is the same class in `store-admin-sdk/bulk` and
 *    `store-admin-sdk/testing` (`instanceof` holds across subpaths), and the bulk runner finds
 *    the clients the main entry made. A module of the main entry bundled into another entry
 *    (an import that went around the door) fails the build (`checkOneCopy`).
 *
 * `tsc -p tsconfig.build.json` writes the declarations (`.d.ts`) beside them, as before.
 * Dependencies and `node:` modules stay imports. The source maps hold positions, not the
 * sources (`sourcesContent` would more than double the tarball, most of it the testing kit's
 * generated validators): a stack trace under `--enable-source-maps` names `src/…ts:line`. The
 * chunks of the kit's per-operation modules, generated minified, have none.
 *
 *   npx tsx scripts/build.ts       (`npm run build` runs it after tsc, in the project root)
 */
import { readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type BuildOptions } from "esbuild";

/** Every entry of `exports` and `bin` in package.json, by its source: a new subpath is one line. The first is the main entry. */
export const ENTRIES = [
  "src/index.ts",
  "src/testing/index.ts",
  "src/bulk/index.ts",
  "src/bulk/bullmq/index.ts",
  "src/mcp/index.ts",
  "src/schemas/index.ts",
  "src/oauth/index.ts",
  "src/plugins/index.ts",
  "src/cli/main.ts",
];

/** The door: what the other entries take from the main entry's modules (see `src/shared.ts`). */
const SHARED = "src/shared.ts";

/** How the other entries import {@link SHARED}, built: package.json `imports`, private to the package. */
export const SHARED_IMPORT = "#shared";

/**
 * The response validators' loaders, built with the other entries, whose testing kit bundles
 * each operation's response validators into its own module: the `validateResponses()` plugin
 * (store-admin-sdk/plugins, the same pass) shares them, so that each is one copy.
 */
const RESPONSE_VALIDATORS = "generated/validators/responses.ts";

/** Code mode's worker thread, started by its file (package.json `imports`: `#code-mode-worker`), not imported. */
const CODE_MODE_WORKER = "src/mcp/code/worker.ts";

/**
 * Writes the bundles into `root`/dist. The command builds the project it is run in (npm runs
 * scripts in the package root): a copy of the project whose `scripts/` is a link builds its own.
 */
export async function buildDist(root: string): Promise<void> {
  const common: BuildOptions = {
    absWorkingDir: root,
    outbase: ".",
    outdir: "dist",
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    // Constants folded and inlined across modules, dead branches dropped: 43 B less min+gz in an
    // application's bundle (scripts/size.ts). Names and line breaks stay, for reading dist/.
    minifySyntax: true,
    packages: "external",
    external: ["node:*"],
    sourcemap: true,
    sourcesContent: false,
    metafile: true,
    logLevel: "warning",
  };
  const [main, ...others] = ENTRIES as [string, ...string[]];
  const first = await build({ ...common, entryPoints: [main, SHARED] });
  const inMain = new Set(
    Object.values(first.metafile!.outputs).flatMap((output) =>
      Object.keys(output.inputs).map((input) => resolve(root, input)),
    ),
  );
  const rest = await build({
    ...common,
    entryPoints: [...others, RESPONSE_VALIDATORS, CODE_MODE_WORKER],
    external: [...common.external!, SHARED_IMPORT],
  });
  checkOneCopy(root, inMain, rest.metafile!.outputs);
  dropGeneratedMaps(root, rest.metafile!.outputs);
}

/** One of the generated validator modules (the kit's per-operation ones, an operation's responses', a named schema's; not a chunk they share): generated already minified, on one line. */
const OPERATION_MODULE = /^generated\/(testing\/ops|validators\/responses|validators\/schemas)\/[\w$]+\.ts$/;

/**
 * No source map for the chunk of one of the generated validator modules (`chunks/<operationId>-…js`):
 * it would map to one line of generated code, so it says nothing a stack trace needs, and
 * those maps were about 37 kB of the tarball gzipped.
 */
function dropGeneratedMaps(root: string, outputs: Record<string, { inputs: Record<string, unknown> }>): void {
  for (const [file, { inputs }] of Object.entries(outputs)) {
    const sources = Object.keys(inputs);
    // (The kit's module of an operation and the responses' module it re-exports are one chunk.)
    if (!file.endsWith(".js") || sources.length === 0 || !sources.every((source) => OPERATION_MODULE.test(source)))
      continue;
    const path = resolve(root, file);
    writeFileSync(path, readFileSync(path, "utf8").replace(/\n\/\/# sourceMappingURL=\S+\n?$/, "\n"));
    rmSync(`${path}.map`);
  }
}

/**
 * Fails the build when a module of the main entry (`inMain`: absolute paths) is also in
 * another entry's output: a second copy, whose classes and registries are not the main entry's.
 * The other entries' sources reach those modules through `#shared` only (test/architecture/layers.test.ts).
 */
function checkOneCopy(
  root: string,
  inMain: ReadonlySet<string>,
  outputs: Record<string, { inputs: Record<string, unknown> }>,
): void {
  const copies = Object.entries(outputs).flatMap(([file, { inputs }]) =>
    Object.keys(inputs)
      .filter((input) => inMain.has(resolve(root, input)))
      .map((input) => `${input} (in ${file})`),
  );
  if (copies.length > 0)
    throw new Error(
      `A module of the main entry is bundled into another entry too; import it through #shared: ${copies.join(", ")}`,
    );
}

// Run as a command (through a link too: `realpathSync`), not imported by scripts/bench.ts.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await buildDist(process.cwd());
