/**
 * 5a. What a bundler pulls in for `import { createStoreAdminClient } from "store-admin-sdk"`:
 * an esbuild bundle of the BUILT entry (openapi-fetch included), minified, then gzipped at
 * level 9. Budget: 8 kB (8 × 1024 bytes) min+gz, checked by `test/bench/size.test.ts`.
 */
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { DIST_ENTRY, ROOT } from "./fixtures.js";

/** The size budget of the bundle, min+gz, in bytes. */
export const SIZE_BUDGET_GZIP_BYTES = 8 * 1024;

export interface BundleSize {
  minBytes: number;
  gzipBytes: number;
  /** Minified bytes each input file contributes, largest first (before gzip). */
  inputs: Array<{ path: string; bytes: number }>;
}

/** Bundles `source` (an ES module that re-exports what a user imports) as a bundler would. */
export async function bundleSizeOf(source: string): Promise<BundleSize> {
  const result = await build({
    stdin: { contents: source, resolveDir: ROOT, sourcefile: "entry.js", loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const code = result.outputFiles[0]!.contents;
  const output = Object.values(result.metafile.outputs)[0]!;
  return {
    minBytes: code.byteLength,
    gzipBytes: gzipSync(code, { level: 9 }).byteLength,
    inputs: Object.entries(output.inputs)
      .map(([path, { bytesInOutput }]) => ({ path, bytes: bytesInOutput }))
      .filter(({ bytes }) => bytes > 0)
      .sort((a, b) => b.bytes - a.bytes),
  };
}

/** Min and min+gz bytes of `import { createStoreAdminClient }` from the built package. */
export async function bundleSize(): Promise<{ minBytes: number; gzipBytes: number }> {
  const { minBytes, gzipBytes } = await bundleSizeOf(`export { createStoreAdminClient } from ${JSON.stringify(DIST_ENTRY)};`);
  return { minBytes, gzipBytes };
}

/** The same measure of bare openapi-fetch's `createClient`: the baseline. */
export function openapiFetchBundleSize(): Promise<BundleSize> {
  return bundleSizeOf(`export { default as createClient } from "openapi-fetch";`);
}
