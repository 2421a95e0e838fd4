/**
 * Runs one benchmark in a fresh process (its own JIT state and heap) and sends the result
 * to `scripts/bench.ts` over IPC. Arguments: the benchmark's module name, then `quick` or `full`.
 */
import type { BenchOptions } from "./stats.js";

const [name, mode] = process.argv.slice(2);
const module = (await import(`./${name}.js`)) as { run(options: BenchOptions): Promise<unknown> };
const result = await module.run({ quick: mode === "quick" });
process.send!(result, () => process.disconnect());
