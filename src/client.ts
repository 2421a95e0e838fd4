/**
 * `createStoreAdminClient()`: openapi-fetch's client over the Store Admin API, plus
 * `paginate`. Everything the SDK adds goes through openapi-fetch's own extension points:
 * middleware for headers and request checks, the `fetch` option for retries and timeouts
 * (middleware cannot send a request twice), `bodySerializer` for uploads.
 */
import createClient, { type Middleware } from "openapi-fetch";
import { apiVersionMiddleware } from "./api-version.js";
import { authMiddleware } from "./auth.js";
import { invalidJson } from "./errors.js";
import { contextMiddleware, describeRequest } from "./internal/context.js";
import { singleOrListMiddleware } from "./list-response.js";
import { multipartMiddleware, serializeBody } from "./multipart.js";
import { createPaginate } from "./paginate.js";
import { pathParamsMiddleware } from "./path-params.js";
import { withRetry } from "./retry.js";
import { DEFAULT_TIMEOUT_MS, withTimeout } from "./timeout.js";
import type { paths, StoreAdminClient, StoreAdminClientOptions } from "./types.js";

/** Every path of the API is under this prefix of the store's address (spec part 4). */
export const API_PATH_PREFIX = "/api/admin";

/** Per-call options of openapi-fetch that would bypass the client's origin or transport. */
const PER_CALL_FORBIDDEN = ["baseUrl", "fetch"] as const;

/** The HTTP methods openapi-fetch's client has, each wrapped once below. */
const METHODS = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"] as const;

/** Parses and checks a URL option; the messages name the option and what to change. */
function parseUrlOption(name: "baseUrl" | "apiUrl", value: unknown): URL {
  if (typeof value !== "string" || value.trim() === "") {
    throw new TypeError(`${name} must be a non-empty URL string, such as "https://shop.example.com".`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${name} is not an absolute URL: ${JSON.stringify(value)}. Include the scheme, e.g. "https://shop.example.com".`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TypeError(`${name} must be an http(s) URL, got the scheme "${url.protocol}".`);
  }
  if (url.username || url.password) {
    throw new TypeError(`${name} must not contain credentials (user:password@): pass the token as accessToken.`);
  }
  if (url.search || url.hash) {
    throw new TypeError(`${name} must not have a query string or fragment; paths are appended to it.`);
  }
  return url;
}

/** The API root every path is appended to, without a trailing slash. */
export function resolveApiRoot(options: { baseUrl?: unknown; apiUrl?: unknown }): string {
  const hasBase = options.baseUrl !== undefined;
  const hasApi = options.apiUrl !== undefined;
  if (hasBase === hasApi) {
    throw new TypeError(
      hasBase
        ? "Pass either baseUrl (the store's address) or apiUrl (the API root, e.g. a mock server), not both."
        : "Pass baseUrl (the store's address, e.g. \"https://shop.example.com\") or apiUrl (the API root, e.g. a mock server).",
    );
  }
  const url = hasBase ? parseUrlOption("baseUrl", options.baseUrl) : parseUrlOption("apiUrl", options.apiUrl);
  const root = `${url.origin}${url.pathname}`.replace(/\/+$/, "");
  return hasBase ? `${root}${API_PATH_PREFIX}` : root;
}

function checkNumberOption(name: string, value: unknown, check: (n: number) => boolean, expected: string): void {
  if (value !== undefined && (typeof value !== "number" || !check(value))) {
    throw new TypeError(`${name} must be ${expected}, got ${String(value)}.`);
  }
}

/**
 * Creates a typed client for one store.
 *
 * Every request carries `Authorization: Bearer <token>` and `X-Store-API-Version: 2024-04-01`;
 * failed attempts are retried only when that cannot duplicate work; each attempt is bounded
 * by `timeoutMs`. Calls return openapi-fetch's `{ data, error, response }`.
 *
 * @throws TypeError when an option is invalid (the message names it); nothing is sent.
 * @example
 * const store = createStoreAdminClient({ baseUrl: "https://shop.example.com", accessToken: process.env.STORE_TOKEN! });
 * const { data, error } = await store.GET("/users/{id}/", { params: { path: { id: 42 } } });
 */
export function createStoreAdminClient(options: StoreAdminClientOptions): StoreAdminClient {
  if (options === null || typeof options !== "object") {
    throw new TypeError("createStoreAdminClient() takes an options object: { baseUrl | apiUrl, accessToken }.");
  }
  const apiRoot = resolveApiRoot(options);
  checkNumberOption("timeoutMs", options.timeoutMs, (n) => n > 0, "a positive number of milliseconds");
  checkNumberOption("maxRetries", options.maxRetries, (n) => Number.isInteger(n) && n >= 0, "a whole number ≥ 0");
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    throw new TypeError("fetch must be a function with the signature of the global fetch.");
  }
  if (options.logger !== undefined && typeof options.logger !== "function") {
    throw new TypeError("logger must be a function receiving one event per attempt.");
  }
  const auth = authMiddleware(options.accessToken);

  const baseFetch = options.fetch ?? ((request: Request, init?: RequestInit) => globalThis.fetch(request, init));
  const transport = withRetry(withTimeout(baseFetch, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, { nativeFetch: options.fetch === undefined }), {
    maxRetries: options.maxRetries,
    onAttempt: options.logger,
    describe: describeRequest,
  });

  const client = createClient<paths>({
    baseUrl: apiRoot,
    fetch: transport,
    headers: options.headers,
    bodySerializer: serializeBody,
  });
  // Request hooks run in this order, response hooks in reverse (openapi-fetch `use()`).
  const middleware: Middleware[] = [
    pathParamsMiddleware,
    apiVersionMiddleware,
    auth,
    multipartMiddleware,
    singleOrListMiddleware,
    contextMiddleware,
  ];
  client.use(...middleware);

  for (const method of METHODS) {
    const call = client[method] as (path: string, init?: Record<string, unknown>) => Promise<unknown>;
    (client as unknown as Record<string, unknown>)[method] = (path: string, init?: Record<string, unknown>) => {
      // openapi-fetch honours a per-call `baseUrl` and `fetch`: the first would send the token
      // to another origin, the second would skip retries, timeouts and the redirect guard.
      for (const option of PER_CALL_FORBIDDEN) {
        if (init?.[option] !== undefined) {
          return Promise.reject(new TypeError(`[${method} ${path}] a per-call \`${option}\` is not supported; set it when creating the client. The request was not sent.`));
        }
      }
      // openapi-fetch parses 2xx bodies with JSON.parse and lets its SyntaxError escape; turn
      // that into the SDK's typed error naming the operation.
      return call(path, init).catch((error: unknown) => {
        throw error instanceof SyntaxError ? invalidJson({ method, path }, error) : error;
      });
    };
  }

  // The methods above are openapi-fetch's with stricter types (exact bodies, no per-call origin).
  return Object.assign(client, { paginate: createPaginate(client, apiRoot) }) as unknown as StoreAdminClient;
}
