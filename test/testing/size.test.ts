/**
 * The testing kit stays out of the main entry, and runs where fetch runs:
 *
 * - the bundle of `import { createStoreAdminClient } from "store-admin-sdk"` that
 *   scripts/size.ts measures contains no module of the kit or its generated validators, and
 *   stays within the main entry's ceiling;
 * - `store-admin-sdk/testing` bundles for the browser with nothing left to import (no Node
 *   built-in, no validator library: the validators are compiled into the package).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { build, type Metafile } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { fileKey } from "../../scripts/file-keys.js";
import { bundleSize, CEILING_GZIP_BYTES } from "../../scripts/size.js";
import { ensureBuilt, ROOT } from "../package/tarball.js";

async function bundle(source: string, platform: "neutral" | "browser") {
  const result = await build({
    stdin: { contents: source, resolveDir: ROOT, sourcefile: "entry.js", loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform,
    mainFields: ["module", "main"],
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const code = result.outputFiles[0]!.contents;
  const output: Metafile["outputs"][string] = Object.values(result.metafile.outputs)[0]!;
  return { minBytes: code.byteLength, gzipBytes: gzipSync(code, { level: 9 }).byteLength, output };
}

const dist = (path: string) => JSON.stringify(join(ROOT, "dist", path));

/** A generated validator module: the kit's module of an operation, an operation's responses', a named schema's. */
const GENERATED_VALIDATOR_MODULE = /^generated\/(testing\/ops|validators\/responses|validators\/schemas)\/[\w$]+\.ts$/;

/** The source files of a built entry and of the chunks it imports (statically or with `import()`), from their source maps. */
function sourcesOf(entry: string, seen = new Set<string>()): string[] {
  const file = join(ROOT, "dist", entry);
  if (seen.has(file)) return [];
  seen.add(file);
  const text = readFileSync(file, "utf8");
  // A chunk made only of generated validator modules has no map (scripts/build.ts, dropGeneratedMaps):
  // its sources are the module comments esbuild writes above each one, all of them such modules.
  const marked = [...text.matchAll(/^\/\/ (\S+\.ts)$/gm)].map(([, source]) => source!);
  const unmapped = marked.length > 0 && marked.every((source) => GENERATED_VALIDATOR_MODULE.test(source));
  if (!existsSync(`${file}.map`) && !unmapped) throw new Error(`${entry} has no source map`);
  const map = existsSync(`${file}.map`)
    ? (JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] })
    : { sources: marked };
  const chunks = [...text.matchAll(/(?:from |import\()"(\.[^"]+)"/g)].map(([, specifier]) =>
    join(dirname(entry), specifier!),
  );
  return [...map.sources, ...chunks.flatMap((chunk) => sourcesOf(chunk, seen))];
}

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

describe("the testing kit and the bundles", () => {
  it(`the main entry bundles no module of the kit and stays within ${CEILING_GZIP_BYTES} B min+gz`, async () => {
    const main = await bundleSize();
    const inputs = main.inputs.map((input) => input.path);
    expect(
      inputs.some((path) => path === "src/client/client.ts"),
      "the bundle holds the client",
    ).toBe(true);
    expect(inputs.filter((path) => /\/testing\//.test(path))).toEqual([]);
    expect(main.totalGzipBytes).toBeLessThanOrEqual(CEILING_GZIP_BYTES);
  });

  it("store-admin-sdk/testing bundles for the browser with no import left (no Node built-in, no validator library)", async () => {
    const kit = await bundle(`export { createMockStore, servePages } from ${dist("src/testing/index.js")};`, "browser");
    expect(kit.output.imports).toEqual([]);
    // dist/ is bundled per entry (scripts/build.ts): what went into it is read from its source maps.
    const inputs = kit.output.imports.length === 0 ? sourcesOf("src/testing/index.js") : [];
    // Each operation's validators are a module of their own, loaded on its first request.
    expect(inputs.some((path) => path.endsWith(`generated/testing/ops/${fileKey("getUser", "getUser")}.ts`))).toBe(
      true,
    );
    expect(inputs.filter((path) => path.startsWith("node:") || path.includes("node_modules/ajv"))).toEqual([]);
    console.info(
      `[size] import { createMockStore } from "store-admin-sdk/testing": ${kit.gzipBytes} B min+gz (${kit.minBytes} B minified)`,
    );
  });
});
