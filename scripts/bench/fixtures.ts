/**
 * What every benchmark shares: the built package, the canned bodies (taken from the
 * contract's examples), the stub fetch, and the three ways of making the same call: through
 * our client, through bare openapi-fetch with the same headers, and through raw fetch.
 */
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Client } from "openapi-fetch";
import type { paths } from "../../src/types.js";
import type { Op } from "./stats.js";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/**
 * The entry point users import: the BUILT package, not `src/`. `BENCH_DIST_ENTRY` points the
 * benchmarks at another build of it (a candidate fix built outside the project, say).
 */
export const DIST_ENTRY = process.env.BENCH_DIST_ENTRY ?? `${ROOT}dist/src/index.js`;

export type Sdk = typeof import("../../src/index.js");

/** Loads the built package (build it first: `scripts/bench.ts` does). */
export async function loadSdk(): Promise<Sdk> {
  if (!existsSync(DIST_ENTRY)) throw new Error(`${DIST_ENTRY} is missing: run \`npx tsc -p tsconfig.build.json\`.`);
  return (await import(pathToFileURL(DIST_ENTRY).href)) as Sdk;
}

type CreateClient = typeof import("openapi-fetch").default;

/**
 * A separate instance of openapi-fetch for the bare baseline (a query string makes a new
 * module record), so that its call sites do not share type feedback with the copy our
 * client uses, as they would not in an application using only one of the two.
 */
export async function loadBareOpenapiFetch(instance = "bare"): Promise<CreateClient> {
  const module = (await import(`${import.meta.resolve("openapi-fetch")}?${instance}`)) as { default: CreateClient };
  return module.default;
}

export const TOKEN = "sat_live_4eC39HqLyjWDarjtT1zdp7dc";
export const API_VERSION = "2024-04-01";
/** What bare openapi-fetch and raw fetch send by hand; our client sets the same two itself. */
export const HEADERS = { Authorization: `Bearer ${TOKEN}`, "X-Store-API-Version": API_VERSION };

/** The contract's `User` example: a realistic customer with one address (about 800 bytes). */
export const USER = {
  id: 42,
  accepts_marketing: true,
  addresses: [
    {
      id: 7,
      country: "SE",
      first_name: "Astrid",
      last_name: "Lindgren",
      line1: "Drottninggatan 12",
      line2: "",
      line3: "",
      line4: "Stockholm",
      state: "",
      postcode: "111 51",
      phone_number: "+46812345678",
      notes: "Leave at the door",
      is_default_for_billing: true,
      is_default_for_shipping: true,
    },
  ],
  date_joined: "2023-03-14T09:26:53Z",
  email: "astrid@example.org",
  first_name: "Astrid",
  last_name: "Lindgren",
  ip: "203.0.113.24",
  is_blocked: false,
  language: "sv",
  metadata: { loyalty_tier: "gold" },
  orders_count: 12,
  phone_number: "+46812345678",
  subscriptions_count: 1,
  tags: ["vip", "newsletter"],
  total_spent: "1249.50",
  user_agent: "Mozilla/5.0 (X11; Linux x86_64)",
  user_type: "customer",
};
export const USER_JSON = JSON.stringify(USER);

/** The body of the POST measured everywhere: `POST /products/` (the contract's example). */
export const PRODUCT_CREATE = {
  title: "Single-origin coffee beans, 1 kg",
  description: "Washed Ethiopian Yirgacheffe, roasted weekly.",
  enable_subscription: true,
  external_tax_code: "PC040100",
  interval: "month" as const,
  interval_counts: [1, 2, 3],
  is_discountable: true,
  is_public: true,
  meta_description: "Fresh coffee beans delivered monthly.",
  meta_title: "Coffee beans subscription",
  metadata: {},
  ranking: 10,
  recommended_products: [1187],
};
export const PRODUCT_JSON = JSON.stringify({
  id: 1201,
  ...PRODUCT_CREATE,
  slug: "single-origin-coffee-beans-1-kg",
  url: "https://shop.example.org/products/single-origin-coffee-beans-1-kg/",
  structure: "standalone",
  rating: 4.7,
  date_created: "2024-04-01T10:00:00Z",
  date_updated: "2024-04-01T10:00:00Z",
  images: [],
  variants: [],
});

export type FetchFn = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A fetch that sends nothing and answers every call with a fresh `200` carrying `body`
 * (a Response body can be read once), so that only client code is measured.
 */
export function stubFetch(body: string): FetchFn {
  return async function cannedResponse() {
    return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
  };
}

/** Throws unless a call returned the expected body, so no variant can skip work unnoticed. */
function expectId(data: unknown, id: number): void {
  if ((data as { id?: unknown } | undefined)?.id !== id) throw new Error(`expected a body with id ${id}, got ${JSON.stringify(data)?.slice(0, 200)}`);
}

/** One GET and one POST, made one way. */
export interface Calls {
  get: Op;
  post: Op;
}

/** The two calls measured, as both our client and bare openapi-fetch's client type them. */
interface Caller {
  GET(path: "/users/{id}/", init: { params: { path: { id: number } } }): Promise<{ data?: unknown }>;
  POST(path: "/products/", init: { body: typeof PRODUCT_CREATE }): Promise<{ data?: unknown }>;
}

/** The calls through a client: ours (`createStoreAdminClient`) or bare openapi-fetch's. */
export function clientCalls(client: Caller): Calls {
  return {
    async get() {
      const { data } = await client.GET("/users/{id}/", { params: { path: { id: 42 } } });
      expectId(data, 42);
    },
    async post() {
      const { data } = await client.POST("/products/", { body: PRODUCT_CREATE });
      expectId(data, 1201);
    },
  };
}

/** Bare openapi-fetch, same paths and the same two headers set through its `headers` option. */
export function bareCalls(createClient: CreateClient, apiUrl: string, fetch: FetchFn): Calls {
  const client: Client<paths> = createClient<paths>({ baseUrl: apiUrl, headers: HEADERS, fetch });
  return clientCalls(client);
}

/**
 * Raw fetch, written the way a careful caller would: URL by hand, status checked, JSON parsed.
 * With `timeoutMs`, also the per-request timeout such a caller adds: an AbortController whose
 * signal goes with the request and a timer, cleared once the body is parsed.
 */
export function rawCalls(apiUrl: string, fetch: FetchFn, { timeoutMs }: { timeoutMs?: number } = {}): Calls {
  const postHeaders = { ...HEADERS, "Content-Type": "application/json" };
  const bounded = async (call: (signal: AbortSignal | undefined) => Promise<void>): Promise<void> => {
    if (timeoutMs === undefined) return call(undefined);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      await call(controller.signal);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    get: () =>
      bounded(async (signal) => {
        const response = await fetch(`${apiUrl}/users/${encodeURIComponent(42)}/`, { headers: HEADERS, signal });
        if (!response.ok) throw new Error(`GET failed: ${response.status}`);
        expectId(await response.json(), 42);
      }),
    post: () =>
      bounded(async (signal) => {
        const response = await fetch(`${apiUrl}/products/`, { method: "POST", headers: postHeaders, body: JSON.stringify(PRODUCT_CREATE), signal });
        if (!response.ok) throw new Error(`POST failed: ${response.status}`);
        expectId(await response.json(), 1201);
      }),
  };
}
