/**
 * The JavaScript of `dist/`: one esbuild bundle per package entry, with the code two entries
 * share in chunks of their own (`dist/chunks/`), so that a class exported by the main entry
 * is the same class in `store-admin-sdk/bulk` and `store-admin-sdk/testing` (`instanceof`
 * holds across subpaths). A cold `import()` then reads a few files instead of thirty.
 * `tsc -p tsconfig.build.json` writes the declarations (`.d.ts`) beside them, as before.
 * Dependencies and `node:` modules stay imports. The source maps hold positions, not the
 * sources (`sourcesContent` would more than double the tarball, most of it the testing kit's
 * generated validators): a stack trace under `--enable-source-maps` names `src/…ts:line`.
 *
 *   npx tsx scripts/build.ts       (`npm run build` runs it after tsc, in the project root)
 */
import { realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

/** Every entry of `exports` and `bin` in package.json, by its source: a new subpath is one line. */
export const ENTRIES = [
  "src/index.ts",
  "src/testing/index.ts",
  "src/bulk/index.ts",
  "src/bulk/bullmq/index.ts",
  "src/cli/main.ts",
];

/**
 * Writes the bundles into `root`/dist. The command builds the project it is run in (npm runs
 * scripts in the package root): a copy of the project whose `scripts/` is a link builds its own.
 */
export async function buildDist(root: string): Promise<void> {
  await build({
    absWorkingDir: root,
    entryPoints: ENTRIES,
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
    plugins: [sharesMainEntry],
    packages: "external",
    external: ["node:*"],
    sourcemap: true,
    sourcesContent: false,
    logLevel: "warning",
  });
}

/**
 * Every other entry also imports the main entry's modules. esbuild puts a module in the chunk
 * of the set of entries that reach it, so without this the main entry's modules fell into
 * five chunks by which subpaths happen to use them, and a cold `import()` of the package read
 * six files (docs/performance.md, "Start-up"). With it they fall into two: the modules every
 * call needs, and `internal/off-path.ts` with what it loads only when a call fails.
 */
const sharesMainEntry: Plugin = {
  name: "shares-main-entry",
  setup(build) {
    const main = `${build.initialOptions.absWorkingDir}/${ENTRIES[0]}`;
    const specifier = "store-admin-sdk:main-entry";
    build.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      if (path === main || !ENTRIES.some((entry) => path.endsWith(`/${entry}`))) return undefined;
      const source = await readFile(path, "utf8");
      // An import esbuild follows when it groups modules into chunks; nothing of it is used, so none stays in the output.
      return { contents: `${source}\nimport * as mainEntry from ${JSON.stringify(specifier)};\n`, loader: "ts" };
    });
    build.onResolve({ filter: /^store-admin-sdk:main-entry$/ }, () => ({ path: main }));
  },
};

// Run as a command (through a link too: `realpathSync`), not imported by scripts/bench.ts.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await buildDist(process.cwd());
