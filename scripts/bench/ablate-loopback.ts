/**
 * Where a loopback GET's time goes, by ablation: the bench's `GET /users/{id}/` in one process
 * against the loopback server, through raw fetch, raw fetch with a per-request timeout, bare
 * openapi-fetch (with its own `Request`, and given the client's planned request so that it calls
 * `fetch(url, init)` as ours does), and our client with its deadline and byte count, without its
 * deadline, and without either. Variants are interleaved, 300 calls a sample, in an order that
 * rotates every round, after 4 warm-up rounds; medians of µs per call. The finding is in
 * docs/performance.md ("End to end on loopback").
 *
 *   npx tsx scripts/bench/ablate-loopback.ts
 *
 * Run `npm run build` first (it calls the built package).
 */
import { PlannedRequest } from "../../src/client/openapi-fetch-internals.js";
import { HEADERS, loadBareOpenapiFetch, loadSdk, TOKEN } from "./fixtures.js";
import { startLoopbackServer } from "./server.js";

const CALLS = 300;
const ROUNDS = 24;
const WARM_UP = 4;

const sdk = await loadSdk();
const createClient = await loadBareOpenapiFetch();
const server = await startLoopbackServer();
const apiUrl = `${server.url}/api/admin`;
const url = `${apiUrl}/users/42/`;
const init = { params: { path: { id: 42 } } };
const client = (options: object = {}) => sdk.createStoreAdminClient({ apiUrl, accessToken: TOKEN, ...options });
const [ours, noDeadline, neither] = [
  client(),
  client({ timeoutMs: Infinity }),
  client({ timeoutMs: Infinity, maxResponseBytes: Infinity }),
];
const bare = createClient({ baseUrl: apiUrl, headers: HEADERS }) as unknown as {
  GET: (path: string, init: object) => Promise<unknown>;
};
const planned = {
  ...init,
  Request: PlannedRequest,
  fetch: (request: PlannedRequest) => fetch(request.url, request.init),
};

const variants: Record<string, () => Promise<unknown>> = {
  "raw fetch": async () => (await fetch(url, { headers: HEADERS })).json(),
  "raw fetch with a timeout": async () => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 30_000);
    try {
      return await (await fetch(url, { headers: HEADERS, signal: controller.signal })).json();
    } finally {
      clearTimeout(timer);
    }
  },
  "bare openapi-fetch": () => bare.GET("/users/{id}/", init),
  "bare openapi-fetch, fetch(url, init)": () => bare.GET("/users/{id}/", planned),
  ours: () => ours.GET("/users/{id}/", init),
  "ours, timeoutMs: Infinity": () => noDeadline.GET("/users/{id}/", init),
  "ours, no deadline, no byte count": () => neither.GET("/users/{id}/", init),
};

const names = Object.keys(variants);
const samples = new Map(names.map((name) => [name, [] as number[]]));
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + round) % names.length]!;
    const started = performance.now();
    for (let call = 0; call < CALLS; call++) await variants[name]!();
    if (round >= WARM_UP) samples.get(name)!.push(((performance.now() - started) / CALLS) * 1000);
  }
}
await server.close();
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const raw = median(samples.get("raw fetch")!);
for (const [name, values] of samples)
  console.log(
    `${name.padEnd(40)} ${median(values).toFixed(1).padStart(7)} µs  ${(median(values) / raw).toFixed(2)}× raw fetch`,
  );
