/**
 * Runs one benchmark in this fresh process (its own JIT state and heap) and sends its result
 * to the parent over IPC. Arguments: the benchmark's name, then its own arguments.
 */
import { bulkRunner } from "./bulk.js";
import { bulkQueue } from "./bulk-queue.js";
import { codeMode } from "./code-mode.js";
import { contractDiff, size, startup, typecheck } from "./footprint.js";
import { pagination, timedWalk, type WalkName } from "./pagination.js";
import { costPerOperation } from "./per-operation.js";
import { loopback, retryCost, stub, stubPlugins } from "./throughput.js";
import { responseValidation } from "./validate-responses.js";

const BENCHMARKS: Record<string, (...args: string[]) => Promise<unknown>> = {
  stub: (mode) => stub(mode === "quick"),
  stubPlugins: (mode) => stubPlugins(mode === "quick"),
  loopback: (mode) => loopback(mode === "quick"),
  pagination: (mode) => pagination(mode === "quick"),
  retryCost: (mode) => retryCost(mode === "quick"),
  size: () => size(),
  startup: (mode) => startup(mode === "quick"),
  typecheck: (mode) => typecheck(mode === "quick"),
  contractDiff: (mode) => contractDiff(mode === "quick"),
  walk: (name, items) => timedWalk(name as WalkName, Number(items)),
  bulk: (mode) => bulkRunner(mode === "quick"),
  bulkQueue: (mode) => bulkQueue(mode === "quick"),
  perOperation: (mode) => costPerOperation(mode === "quick"),
  codeMode: (mode) => codeMode(mode === "quick"),
  drift: (mode) => responseValidation(mode === "quick"),
};

const [name = "", ...args] = process.argv.slice(2);
const benchmark = BENCHMARKS[name];
if (!benchmark)
  throw new Error(`no benchmark named ${JSON.stringify(name)}: one of ${Object.keys(BENCHMARKS).join(", ")}`);
process.send!(await benchmark(...args), () => process.disconnect());
