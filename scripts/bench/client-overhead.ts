/**
 * 1. Client overhead: GET and POST through our client, bare openapi-fetch and raw fetch,
 * all over the same stub fetch (no I/O), so only client code is measured.
 * Goal: ours ≥ 0.90× bare openapi-fetch.
 */
import { bareCalls, loadBareOpenapiFetch, loadSdk, clientCalls, rawCalls, stubFetch, TOKEN, USER_JSON, PRODUCT_JSON } from "./fixtures.js";
import { compare, compareOps, opsPlan, type BenchOptions, type Comparison } from "./stats.js";

export interface ClientOverheadResult {
  get: Comparison;
  post: Comparison;
}

const API_URL = "https://shop.example.com/api/admin";

export async function run(options: BenchOptions): Promise<ClientOverheadResult> {
  const sdk = await loadSdk();
  const createClient = await loadBareOpenapiFetch();
  const result: Partial<ClientOverheadResult> = {};
  for (const [method, body] of [["get", USER_JSON], ["post", PRODUCT_JSON]] as const) {
    const fetch = stubFetch(body);
    const ours = clientCalls(sdk.createStoreAdminClient({ apiUrl: API_URL, accessToken: TOKEN, fetch }));
    const bare = bareCalls(createClient, API_URL, fetch);
    const raw = rawCalls(API_URL, fetch);
    // An A/A control: a second, identical bare client. Its ratio to the first shows how far
    // apart two equal things measure on this machine, the resolution of every other ratio.
    const control = bareCalls(await loadBareOpenapiFetch("control"), API_URL, fetch);
    const samples = await compareOps({ ours: ours[method], bare: bare[method], raw: raw[method], control: control[method] }, opsPlan(options));
    result[method] = compare(samples, [["ours", "bare"], ["ours", "raw"], ["bare", "raw"], ["control", "bare"]]);
  }
  return result as ClientOverheadResult;
}
