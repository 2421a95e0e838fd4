/**
 * Runs one benchmark of benchmarks.ts in this fresh process (its own JIT state and heap) and
 * sends its result back over IPC. Arguments: the benchmark's name, then its own arguments.
 */
import { BENCHMARKS } from "./benchmarks.js";

const [name, ...args] = process.argv.slice(2) as [keyof typeof BENCHMARKS, ...string[]];
const result = await (BENCHMARKS[name] as (...a: string[]) => Promise<unknown>)(...args);
process.send!(result, () => process.disconnect());
