/**
 * BullMQ stays out of the rest of the SDK: esbuild bundles of the main entry and of
 * `store-admin-sdk/bulk` hold nothing of bullmq or ioredis, not even an import of them (static
 * or dynamic); the bundle of `store-admin-sdk/bulk/bullmq` does import both, which shows the
 * check can see them. The entries are the package.json `exports` targets, bundled from their
 * sources (the same import graph `tsc` compiles).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PEERS = ["bullmq", "ioredis"];

/** What a bundle of `entry` takes in: its input files and the bare imports it leaves to the runtime. */
async function bundle(entry: string): Promise<{ inputs: string[]; imports: string[] }> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: ROOT,
    bundle: true,
    format: "esm",
    platform: "node",
    write: false,
    metafile: true,
    logLevel: "silent",
    // Left as imports, so that the metafile lists each import of them by its name.
    external: PEERS,
  });
  const outputs = Object.values(result.metafile.outputs);
  return {
    inputs: Object.keys(result.metafile.inputs),
    imports: [...new Set(outputs.flatMap((output) => output.imports.map((i) => i.path)))],
  };
}

/** The source file of an export target: `./dist/src/bulk/index.js` → `src/bulk/index.ts`. */
function sourceOf(subpath: string): string {
  const exports = (
    JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as { exports: Record<string, { default: string }> }
  ).exports;
  const target = exports[subpath]?.default;
  if (!target) throw new Error(`package.json exports has no ${subpath}`);
  return target.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts");
}

const touchesPeers = (paths: string[]): string[] =>
  paths.filter((path) =>
    PEERS.some((peer) => path === peer || path.startsWith(`${peer}/`) || path.includes(`node_modules/${peer}/`)),
  );

describe("the entries that must not load BullMQ", () => {
  for (const subpath of [".", "./bulk", "./testing"]) {
    it(`store-admin-sdk${subpath === "." ? "" : subpath.slice(1)} imports nothing of bullmq or ioredis`, async () => {
      const { inputs, imports } = await bundle(sourceOf(subpath));
      expect(inputs.length, "the bundle has the entry's own files").toBeGreaterThan(3);
      expect(touchesPeers(inputs)).toEqual([]);
      expect(touchesPeers(imports)).toEqual([]);
    });
  }
});

describe("store-admin-sdk/bulk/bullmq", () => {
  it("imports bullmq and ioredis (the control: the check above sees such imports)", async () => {
    const { inputs, imports } = await bundle(sourceOf("./bulk/bullmq"));
    expect(imports).toEqual(expect.arrayContaining(PEERS));
    expect(inputs).toContain("src/bulk/bullmq/queue.ts");
    // It is built on the runner's own pieces, not a copy of them.
    expect(inputs).toContain("src/bulk/observe.ts");
  });
});
