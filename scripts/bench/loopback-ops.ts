/**
 * What the loopback comparisons share (throughput.ts's "End to end on loopback" and
 * validate-responses.ts): the built SDK and a loopback server for the run, stopped whatever
 * happens, and each variant's GET then POST sampled in rotating order.
 */
import { loadSdk, type Calls } from "./fixtures.js";
import { compareOps, type MeasureOptions, type Op } from "./measure.js";
import { startLoopbackServer } from "./server.js";

export type Method = keyof Calls;
/** Each variant's ops/s samples, GET and POST, as `compareOps` gives them. */
export type GetPostSamples = Record<Method, Record<string, number[]>>;

/** Runs `measure` with the built SDK and a loopback server's URL; the server stops when it settles. */
export async function onLoopback<T>(
  measure: (sdk: Awaited<ReturnType<typeof loadSdk>>, url: string) => Promise<T>,
): Promise<T> {
  const sdk = await loadSdk();
  const server = await startLoopbackServer();
  try {
    return await measure(sdk, server.url);
  } finally {
    await server.close();
  }
}

/** The variants' GETs compared, then their POSTs (`variants(method)`: each variant's call of that method). */
export async function sampleGetPost(
  variants: (method: Method) => Record<string, Op>,
  options: MeasureOptions,
): Promise<GetPostSamples> {
  return { get: await compareOps(variants("get"), options), post: await compareOps(variants("post"), options) };
}
