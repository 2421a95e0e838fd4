/**
 * What the benchmarks share: the built package, canned bodies (the contract's examples), a
 * stub fetch, and the same GET and POST made three ways: through our client, through bare
 * openapi-fetch with the same two headers, and through raw fetch written by hand.
 */
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { paths } from "../../src/core/types.js";
import type { Op } from "./measure.js";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** What users import: the BUILT package, not `src/`. */
export const DIST_ENTRY = `${ROOT}dist/src/index.js`;

/** The built plugins entry (store-admin-sdk/plugins). */
export async function loadPlugins(): Promise<typeof import("../../src/plugins/index.js")> {
  const entry = DIST_ENTRY.replace(/index\.js$/, "plugins/index.js");
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\`.`);
  return import(pathToFileURL(entry).href);
}

export async function loadSdk(): Promise<typeof import("../../src/index.js")> {
  if (!existsSync(DIST_ENTRY)) throw new Error(`${DIST_ENTRY} is missing: run \`npm run build\`.`);
  return import(pathToFileURL(DIST_ENTRY).href);
}

type CreateClient = typeof import("openapi-fetch").default;

/**
 * A separate copy of openapi-fetch for a baseline (a query string makes a new module record),
 * so its call sites do not share type feedback with the copy our client uses.
 */
export async function loadBareOpenapiFetch(instance = "bare"): Promise<CreateClient> {
  return ((await import(`${import.meta.resolve("openapi-fetch")}?${instance}`)) as { default: CreateClient }).default;
}

export const TOKEN = "sat_live_4eC39HqLyjWDarjtT1zdp7dc";
/** What bare openapi-fetch and raw fetch send by hand; our client sets the same two itself. */
export const HEADERS = { Authorization: `Bearer ${TOKEN}`, "X-Store-API-Version": "2024-04-01" };

/** The contract's `User` example (about 800 bytes). */
export const USER_JSON = JSON.stringify({
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
});

/** The 13-field body of `POST /products/` (the contract's example), and the `Product` answered. */
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

type FetchFn = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/** Sends nothing; answers every call with a fresh `200` carrying `body`, so only client code runs. */
export const stubFetch =
  (body: string): FetchFn =>
  async () =>
    new Response(body, { status: 200, headers: { "content-type": "application/json" } });

/** Throws unless a call returned the expected body, so no variant skips work unnoticed. */
function expectId(data: unknown, id: number): void {
  if ((data as { id?: unknown } | undefined)?.id !== id)
    throw new Error(`expected a body with id ${id}, got ${JSON.stringify(data)?.slice(0, 200)}`);
}

export interface Calls {
  get: Op;
  post: Op;
}

interface Caller {
  GET(path: "/users/{id}/", init: { params: { path: { id: number } } }): Promise<{ data?: unknown }>;
  POST(path: "/products/", init: { body: typeof PRODUCT_CREATE }): Promise<{ data?: unknown }>;
}

/** `GET /users/{id}/` and `POST /products/` through a client: ours or bare openapi-fetch's. */
export function clientCalls(client: Caller): Calls {
  return {
    get: async () => expectId((await client.GET("/users/{id}/", { params: { path: { id: 42 } } })).data, 42),
    post: async () => expectId((await client.POST("/products/", { body: PRODUCT_CREATE })).data, 1201),
  };
}

/** The same two calls through our client's operation methods (`store.users.retrieve(42)`), which unwrap the data. */
export function methodCalls(store: {
  users: { retrieve(id: number): Promise<unknown> };
  products: { create(body: typeof PRODUCT_CREATE): Promise<unknown> };
}): Calls {
  return {
    get: async () => expectId(await store.users.retrieve(42), 42),
    post: async () => expectId(await store.products.create(PRODUCT_CREATE), 1201),
  };
}

export const bareCalls = (createClient: CreateClient, apiUrl: string, fetch: FetchFn): Calls =>
  clientCalls(createClient<paths>({ baseUrl: apiUrl, headers: HEADERS, fetch }));

/**
 * Raw fetch as a careful caller writes it: URL by hand, status checked, JSON parsed. With
 * `timeoutMs`, also the timeout such a caller adds: an AbortController whose signal goes
 * with the request, and a timer cleared once the body is parsed.
 */
export function rawCalls(apiUrl: string, fetch: FetchFn, timeoutMs?: number): Calls {
  const bounded = async (call: (signal?: AbortSignal) => Promise<void>): Promise<void> => {
    if (timeoutMs === undefined) return call();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      await call(controller.signal);
    } finally {
      clearTimeout(timer);
    }
  };
  const checked = async (response: Response, id: number): Promise<void> => {
    if (!response.ok) throw new Error(`failed: ${response.status}`);
    expectId(await response.json(), id);
  };
  const postHeaders = { ...HEADERS, "Content-Type": "application/json" };
  return {
    get: () =>
      bounded(async (signal) =>
        checked(await fetch(`${apiUrl}/users/${encodeURIComponent(42)}/`, { headers: HEADERS, signal }), 42),
      ),
    post: () =>
      bounded(async (signal) =>
        checked(
          await fetch(`${apiUrl}/products/`, {
            method: "POST",
            headers: postHeaders,
            body: JSON.stringify(PRODUCT_CREATE),
            signal,
          }),
          1201,
        ),
      ),
  };
}
