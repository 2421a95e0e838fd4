/**
 * 5b. Cold start: how long `await import()` of the built package takes in a fresh Node
 * process (nothing loaded or compiled before it), against openapi-fetch alone imported the
 * same way. Budget: < 50 ms, reported only (it depends on the machine).
 */
import { execFileSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { DIST_ENTRY, ROOT } from "./fixtures.js";
import { pairedRatio, summarize, type BenchOptions, type Summary } from "./stats.js";

export const IMPORT_BUDGET_MS = 50;

export interface StartupResult {
  importMs: { ours: Summary; openapiFetch: Summary };
  /** ours / openapi-fetch, paired by run. */
  ratio: Summary;
}

/** ms taken by `await import(specifier)` as the first thing a new `node` process does. */
function coldImportMs(specifier: string): number {
  const code = `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - t);`;
  return Number(execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: ROOT, encoding: "utf8" }).trim());
}

export async function run({ quick }: BenchOptions): Promise<StartupResult> {
  const ours = pathToFileURL(DIST_ENTRY).href;
  const runs = quick ? 5 : 25;
  for (let i = 0; i < 3; i++) coldImportMs(ours), coldImportMs("openapi-fetch"); // file cache warm-up
  const samples = { ours: [] as number[], openapiFetch: [] as number[] };
  for (let i = 0; i < runs; i++) {
    samples.ours.push(coldImportMs(ours));
    samples.openapiFetch.push(coldImportMs("openapi-fetch"));
  }
  return {
    importMs: { ours: summarize(samples.ours), openapiFetch: summarize(samples.openapiFetch) },
    ratio: pairedRatio(samples.ours, samples.openapiFetch),
  };
}
