/**
 * 4. What the retry and timeout machinery costs a request that succeeds at once.
 *
 * a. The whole client, as asked: `maxRetries: 2` (the default) against `maxRetries: 0`,
 *    on the stub fetch of benchmark 1 (no I/O, so the difference is not drowned).
 * b. The transport layers alone, on the same stub, each call handed a fresh `Request` as
 *    openapi-fetch would: no layer, `withTimeout`, and `withRetry` over it with 0 and 2
 *    retries. This attributes the cost to each layer, in µs per request.
 */
import { pathToFileURL } from "node:url";
import { clientCalls, DIST_ENTRY, HEADERS, loadSdk, PRODUCT_CREATE, PRODUCT_JSON, stubFetch, TOKEN, USER_JSON } from "./fixtures.js";
import { compare, compareOps, opsPlan, type BenchOptions, type Comparison } from "./stats.js";

export interface RetryCostResult {
  client: { get: Comparison; post: Comparison };
  layers: { get: Comparison; post: Comparison };
}

const API_URL = "https://shop.example.com/api/admin";
const DIST_DIR = DIST_ENTRY.slice(0, DIST_ENTRY.lastIndexOf("/") + 1);
type FetchLike = (request: Request) => Promise<Response>;

export async function run(options: BenchOptions): Promise<RetryCostResult> {
  const sdk = await loadSdk();
  // Internal modules of the built package: not part of its API, loaded here only to time them.
  const { withRetry } = (await import(pathToFileURL(`${DIST_DIR}retry.js`).href)) as typeof import("../../src/retry.js");
  const { withTimeout } = (await import(pathToFileURL(`${DIST_DIR}timeout.js`).href)) as typeof import("../../src/timeout.js");

  const client: Partial<RetryCostResult["client"]> = {};
  const layers: Partial<RetryCostResult["layers"]> = {};
  for (const method of ["get", "post"] as const) {
    const fetch = stubFetch(method === "get" ? USER_JSON : PRODUCT_JSON);
    const make = (maxRetries: number) => clientCalls(sdk.createStoreAdminClient({ apiUrl: API_URL, accessToken: TOKEN, fetch, maxRetries }))[method];
    const samples = await compareOps({ retries2: make(2), retries0: make(0) }, opsPlan(options));
    client[method] = compare(samples, [["retries2", "retries0"]]);

    const newRequest =
      method === "get"
        ? () => new Request(`${API_URL}/users/42/`, { headers: HEADERS })
        : () => new Request(`${API_URL}/products/`, { method: "POST", headers: { ...HEADERS, "Content-Type": "application/json" }, body: JSON.stringify(PRODUCT_CREATE) });
    const call = (transport: FetchLike) => async () => JSON.parse(await (await transport(newRequest())).text()) as unknown;
    const timed = withTimeout(fetch);
    const layerSamples = await compareOps(
      {
        stub: call(fetch),
        timeout: call(timed),
        retry0: call(withRetry(timed, { maxRetries: 0 })),
        retry2: call(withRetry(timed, { maxRetries: 2 })),
      },
      opsPlan(options),
    );
    layers[method] = compare(layerSamples, [["timeout", "stub"], ["retry0", "stub"], ["retry2", "stub"], ["retry2", "retry0"]]);
  }
  return { client: client as RetryCostResult["client"], layers: layers as RetryCostResult["layers"] };
}
