/**
 * 4. What the retry machinery costs a request that succeeds at once: the whole client with
 * `maxRetries: 2` (the default) against `maxRetries: 0`, on the stub fetch of benchmark 1
 * (no I/O, so the difference is not drowned). A third variant, `maxRetries: 0` with
 * `timeoutMs: Infinity` (no timer), shows what the per-attempt timer itself costs.
 */
import { clientCalls, loadSdk, PRODUCT_JSON, stubFetch, TOKEN, USER_JSON } from "./fixtures.js";
import { compare, compareOps, opsPlan, type BenchOptions, type Comparison } from "./stats.js";

export interface RetryCostResult {
  client: { get: Comparison; post: Comparison };
}

const API_URL = "https://shop.example.com/api/admin";

export async function run(options: BenchOptions): Promise<RetryCostResult> {
  const sdk = await loadSdk();
  const client: Partial<RetryCostResult["client"]> = {};
  for (const method of ["get", "post"] as const) {
    const fetch = stubFetch(method === "get" ? USER_JSON : PRODUCT_JSON);
    const make = (maxRetries: number, timeoutMs?: number) =>
      clientCalls(sdk.createStoreAdminClient({ apiUrl: API_URL, accessToken: TOKEN, fetch, maxRetries, timeoutMs }))[method];
    const samples = await compareOps({ retries2: make(2), retries0: make(0), noTimer: make(0, Number.POSITIVE_INFINITY) }, opsPlan(options));
    client[method] = compare(samples, [["retries2", "retries0"], ["retries0", "noTimer"]]);
  }
  return { client: client as RetryCostResult["client"] };
}
