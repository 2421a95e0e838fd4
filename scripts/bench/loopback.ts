/**
 * 2. End to end on loopback: the same GET and POST as benchmark 1, through our client, bare
 * openapi-fetch and raw fetch, each with Node's own fetch against a keep-alive node:http
 * server on 127.0.0.1 (see server.ts). Goal: ours ≥ 0.97× raw fetch. Raw fetch is measured
 * a second time with what any per-request timeout needs (an AbortController whose signal goes
 * with the request, a timer set and cleared), to show what the timeout alone costs.
 */
import { bareCalls, loadBareOpenapiFetch, loadSdk, clientCalls, rawCalls, TOKEN } from "./fixtures.js";
import { startLoopbackServer } from "./server.js";
import { compare, compareOps, opsPlan, type BenchOptions, type Comparison } from "./stats.js";

export interface LoopbackResult {
  get: Comparison;
  post: Comparison;
}

export async function run(options: BenchOptions): Promise<LoopbackResult> {
  const sdk = await loadSdk();
  const createClient = await loadBareOpenapiFetch();
  const server = await startLoopbackServer();
  try {
    const fetch = (input: Request | string | URL, init?: RequestInit): Promise<Response> => globalThis.fetch(input, init);
    const ours = clientCalls(sdk.createStoreAdminClient({ apiUrl: server.url, accessToken: TOKEN }));
    const bare = bareCalls(createClient, server.url, fetch);
    const raw = rawCalls(server.url, fetch);
    const rawTimeout = rawCalls(server.url, fetch, { timeoutMs: 30_000 });
    const result: Partial<LoopbackResult> = {};
    for (const method of ["get", "post"] as const) {
      // A loopback request takes about a millisecond, and the machine's load moves it by more
      // than the 3 % the goal is about: more rounds than the stub benchmarks, for a steadier median.
      const plan = { ...opsPlan(options), rounds: options.quick ? 5 : 40 };
      const samples = await compareOps({ ours: ours[method], bare: bare[method], raw: raw[method], rawTimeout: rawTimeout[method] }, plan);
      result[method] = compare(samples, [["ours", "raw"], ["ours", "bare"], ["bare", "raw"], ["rawTimeout", "raw"], ["ours", "rawTimeout"]]);
    }
    return result as LoopbackResult;
  } finally {
    await server.close();
  }
}

