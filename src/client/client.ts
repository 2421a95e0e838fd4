/**
 * `createStoreAdminClient()`: checks the options, makes openapi-fetch's client over the Store
 * Admin API (default `headers` from the caller, `redirect: "manual"`) and routes every method
 * through one call lifecycle (`request.ts`); adds `paginate` and the operation methods
 * (`methods.ts`), which call through those.
 */
import createClient, { createQuerySerializer, type Client } from "openapi-fetch";
import { tokenSource, type TokenSource } from "./auth.js";
import { envLogger } from "./env-logger.js";
import { clientHeaders } from "./headers.js";
import { deadlineClock } from "./deadline-clock.js";
import { trackMiddleware } from "./openapi-fetch-internals.js";
import { checkNumberOption, unknownOptions } from "../core/options.js";
import { ownOptions } from "../core/own.js";
import { redactWhole } from "../core/redact.js";
import { sleep as abortableSleep, untilStopped } from "../core/sleep.js";
import { attachMethods } from "./methods.js";
import { createPaginate } from "./paginate.js";
import { createSend, type ClientContext } from "./request.js";
import { pausePlugins, ratePause } from "./rate-pause.js";
import { logPlugin } from "./log-plugin.js";
import { checkPlugins } from "./plugin-chain.js";
import { DEFAULT_TIMEOUT_MS } from "../core/timeout.js";
import { API_ROOT_PATH } from "../../generated/operations.js";
import type { FetchLike } from "../core/call-types.js";
import type { paths, StoreAdminClient, StoreAdminClientOptions } from "../core/types.js";
import type { StoreAdminPlugin } from "../core/plugin.js";

/**
 * Default limit on a response body, decoded. The largest real answer is a list page, well
 * under a megabyte; 32 MiB leaves room for any page while a compressed body that inflates to
 * gigabytes cannot take the process down.
 */
const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** Default number of retries after the first attempt (so 3 attempts in all): retry-policy.ts says which and when. */
export const DEFAULT_MAX_RETRIES = 2;

/** The HTTP methods of openapi-fetch's client, each routed through `send` below. */
const HTTP_METHODS = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"] as const;

/** Parses and checks a URL option; the messages name the option and what to change. */
function parseUrlOption(name: "baseUrl" | "apiUrl", value: unknown, token: unknown): URL {
  if (typeof value !== "string" || value.trim() === "") {
    throw new TypeError(`${name} must be a non-empty URL string, such as "https://shop.example.com".`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Options given in the wrong order put the token here: never print it.
    const shown =
      typeof token === "string" && token.length > 3 && value.includes(token)
        ? "it holds the accessToken"
        : JSON.stringify(value.slice(0, 200));
    throw new TypeError(
      `${name} is not an absolute URL: ${shown}. Include the scheme, e.g. "https://shop.example.com".`,
    );
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
export function resolveApiRoot(options: { baseUrl?: unknown; apiUrl?: unknown; accessToken?: unknown }): string {
  const hasBase = options.baseUrl !== undefined;
  const hasApi = options.apiUrl !== undefined;
  if (hasBase === hasApi) {
    throw new TypeError(
      hasBase
        ? "Pass either baseUrl (the store's address) or apiUrl (the API root, e.g. a mock server), not both."
        : 'Pass baseUrl (the store\'s address, e.g. "https://shop.example.com") or apiUrl (the API root, e.g. a mock server).',
    );
  }
  const url = parseUrlOption(
    hasBase ? "baseUrl" : "apiUrl",
    hasBase ? options.baseUrl : options.apiUrl,
    options.accessToken,
  );
  const root = `${url.origin}${url.pathname}`.replace(/\/+$/, "");
  // Every path of the API is under API_ROOT_PATH of the store's address (the contract's `servers`).
  if (hasBase && API_ROOT_PATH && root.toLowerCase().endsWith(API_ROOT_PATH)) {
    throw new TypeError(
      `baseUrl ends in ${API_ROOT_PATH}, which the client appends itself (requests would go to …${API_ROOT_PATH}${API_ROOT_PATH}/). ` +
        `Pass the store's address without it, or pass this URL as apiUrl.`,
    );
  }
  return hasBase ? `${root}${API_ROOT_PATH}` : root;
}

/**
 * Creates a typed client for one store.
 *
 * Every request carries `Authorization: Bearer <token>` and the API version header (`API_VERSION`, from the contract);
 * failed attempts are retried only when that cannot duplicate work; each attempt is bounded
 * by `timeoutMs`. The operation methods (`store.users.retrieve(42)`) return the data or throw
 * a typed error; `GET`, `POST`, … return openapi-fetch's `{ data, error, response }`.
 *
 * @throws TypeError when an option is invalid (the message names it); nothing is sent.
 * @example
 * const store = createStoreAdminClient({ baseUrl: "https://shop.example.com", accessToken: process.env.STORE_TOKEN! });
 * const user = await store.users.retrieve(42);
 * const { data, error } = await store.GET("/users/{id}/", { params: { path: { id: 42 } } });
 */
export function createStoreAdminClient(options: StoreAdminClientOptions): StoreAdminClient {
  return buildClient(options, {});
}

/** What tests may replace: the wait between attempts and the jitter's random source. Not exported from the package. */
interface ClientInternals {
  sleep?: ClientContext["sleep"];
  random?: ClientContext["random"];
}

/** {@link createStoreAdminClient} with replaceable internals. */
export function buildClient(given: StoreAdminClientOptions, internals: ClientInternals): StoreAdminClient {
  if (given === null || typeof given !== "object") {
    throw new TypeError("createStoreAdminClient() takes an options object: { baseUrl | apiUrl, accessToken }.");
  }
  const options = ownOptions(given);
  const apiRoot = resolveApiRoot(options);
  checkNumberOption("timeoutMs", options.timeoutMs, (n) => n > 0, "a positive number of milliseconds");
  checkNumberOption("maxRetries", options.maxRetries, (n) => Number.isInteger(n) && n >= 0, "a whole number ≥ 0");
  checkNumberOption("maxResponseBytes", options.maxResponseBytes, (n) => n > 0, "a positive number of bytes");
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    throw new TypeError("fetch must be a function with the signature of the global fetch.");
  }
  if (options.logger !== undefined && typeof options.logger !== "function") {
    throw new TypeError("logger must be a function receiving one event per attempt.");
  }
  refuseMovedOptions(options as unknown as Record<string, unknown>);
  const [unknown] = unknownOptions(options, CLIENT_OPTIONS);
  if (unknown !== undefined)
    throw new TypeError(`createStoreAdminClient() has no option "${unknown}"; it takes ${CLIENT_OPTIONS.join(", ")}.`);
  const added = checkPlugins(options.plugins);
  const token = tokenSource(options.accessToken);

  const headers = clientHeaders(options.headers);

  const client = createClient<paths>({
    baseUrl: apiRoot,
    // The caller's; Authorization and the version header are set per call (headers.ts).
    headers,
    // Never follow a redirect: the request carries the token (transport.ts refuses the 3xx).
    redirect: "manual",
    // Its default serializer, made once: openapi-fetch makes one per call unless it is given one.
    querySerializer: createQuerySerializer(),
    // openapi-fetch destructures its options, which reads inherited keys: every key it reads is
    // given here, so that none comes from a polluted Object.prototype (undefined: its default).
    fetch: undefined,
    Request: undefined,
    bodySerializer: undefined,
    pathSerializer: undefined,
    requestInitExt: undefined,
  } as Parameters<typeof createClient<paths>>[0]);

  const hasMiddleware = trackMiddleware(client);

  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const logger = options.logger ?? envLogger();
  // The pause's wait first, the caller's plugins, the logger (it hears their decision), and the pause's release.
  const pause = ratePause();
  const [pauseWait, pauseRelease] = pausePlugins(pause);
  const plugins = [pauseWait, ...added, ...(logger ? [logPlugin(logger)] : []), pauseRelease];
  const context: ClientContext = {
    request: client.request as ClientContext["request"],
    // Looked up per call, so that a fetch installed later (a test, a polyfill) is used.
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    token,
    timeoutMs,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    logger,
    startDeadline: deadlineClock(timeoutMs),
    hasMiddleware,
    sleep: internals.sleep ?? abortableSleep,
    random: internals.random ?? Math.random,
    plugins,
    apiRoot,
    pause,
  };
  const assembled = assemble(client, context, apiRoot);
  setUp(context);
  return assembled;
}

/**
 * The client's options: any other is refused, so that a misspelt one (`plugin`, `timeout`) is
 * not quietly ignored. The record is typed by the options' type, so the two cannot drift apart.
 */
const CLIENT_OPTIONS = Object.keys({
  baseUrl: true,
  apiUrl: true,
  accessToken: true,
  headers: true,
  fetch: true,
  timeoutMs: true,
  maxRetries: true,
  maxResponseBytes: true,
  logger: true,
  plugins: true,
} satisfies Record<Exclude<keyof StoreAdminClientOptions, "telemetry" | "validateResponses">, true>);

/** The options that became plugins: refused, naming the plugin to import instead. */
function refuseMovedOptions(options: Record<string, unknown>): void {
  if (options["validateResponses"] !== undefined) {
    throw new TypeError(
      'validateResponses is no longer a client option: import { validateResponses } from "store-admin-sdk/plugins" and pass plugins: [validateResponses("report")] (or "strict").',
    );
  }
  if (options["telemetry"] !== undefined) {
    throw new TypeError(
      'telemetry is no longer a client option: import { telemetry } from "store-admin-sdk/plugins" and pass plugins: [telemetry({ tracerProvider?, meterProvider?, attributes? })].',
    );
  }
}

/** Each plugin's `setup`, once per client that runs it; what it is handed holds no token. */
function setUp(context: ClientContext): void {
  const { token, apiRoot, logger } = context;
  const client = { apiRoot, logger, redact: (text: string) => redactWhole(text, token.secrets) };
  for (const plugin of context.plugins) plugin.setup?.(client);
}

/** What each client was assembled from, for {@link deriveClient}. */
const assemblies = new WeakMap<object, [ClientContext, string]>();

/**
 * Routes every method of `target` through one call lifecycle over `context` and adds
 * `paginate`. Anything a client carries beyond openapi-fetch's methods is attached here, so
 * that a derived client has it too.
 */
function assemble(target: object, context: ClientContext, apiRoot: string): StoreAdminClient {
  const send = createSend(context);
  const methods = target as Record<string, unknown>;
  for (const method of HTTP_METHODS)
    methods[method] = (path: string, init?: Record<string, unknown>) => send(method, path, init);
  methods["request"] = (method: string, path: string, init?: Record<string, unknown>) =>
    send(method.toUpperCase(), path, init);
  methods["paginate"] = createPaginate(target as Client<paths>, apiRoot);
  assemblies.set(target, [context, apiRoot]);
  // The methods above are openapi-fetch's with stricter types (exact bodies, no per-call origin).
  return attachMethods(target) as unknown as StoreAdminClient;
}

/**
 * Where `client`'s token comes from (`undefined` for a client not made by
 * `createStoreAdminClient()`). Not exported from the package's main entry: the bulk runner
 * scrubs it from the failures it keeps, even those of a task that failed before any request.
 */
export function tokenSourceOf(client: StoreAdminClient): TokenSource | undefined {
  return assemblies.get(client)?.[0].token;
}

/**
 * The spans and metrics of `client` (run with the `telemetry()` plugin), or `undefined`. Not
 * exported from the package's main entry: the bulk runner makes a run's span with it.
 */
export function telemetryOf(client: StoreAdminClient): Promise<RunTelemetrySource> | undefined {
  const plugins = assemblies.get(client)?.[0].plugins ?? [];
  for (const plugin of plugins) {
    const telemetry = (plugin as { [TELEMETRY]?: () => Promise<RunTelemetrySource> })[TELEMETRY];
    if (telemetry) return telemetry();
  }
  return undefined;
}

/** What the bulk runner tells the telemetry of one run (the telemetry plugin makes it). */
export interface RunTelemetry {
  /** Runs `task` with the run's span active: the calls it makes are the span's children. */
  within<Result>(task: () => Result): Result;
  /** Ends the run's span with its counts when `report` settles; returns `report`. */
  end<Report extends { done: number; failed: number; skipped: number; inDoubt: number }>(
    report: Promise<Report>,
  ): Promise<Report>;
}

/** What the telemetry plugin (store-admin-sdk/plugins) offers the bulk runner, under {@link TELEMETRY}. */
export interface RunTelemetrySource {
  bulkRun(runId: string): RunTelemetry;
  withRemote<Result>(carrier: Record<string, string>, task: () => Result): Result;
}

/** The key under which the telemetry plugin offers {@link RunTelemetrySource}: a symbol of the registry, so the plugins entry and the door agree. */
export const TELEMETRY = Symbol.for("store-admin-sdk.telemetry");

/**
 * The plugins `client` runs, its own included. Not exported from the package's main entry: the
 * bulk runner looks for `idempotencyKey()` (to give a task's calls a stable key) and
 * `rateLimit()` (refused beside a run's own `rate`). Plugins hold no token.
 */
export function pluginsOf(client: StoreAdminClient): readonly StoreAdminPlugin[] {
  return assemblies.get(client)?.[0].plugins ?? [];
}

/**
 * Milliseconds left of `client`'s pause after a 429 (client/rate-pause.ts; 0: none). Not
 * exported from the package's main entry: the bulk runner starts its run-wide pause from it.
 */
export function pauseLeftOf(client: StoreAdminClient): number {
  return assemblies.get(client)?.[0].pause.left() ?? 0;
}

/** How {@link deriveClient} changes a client: its transport, and a wait before each attempt. */
interface ClientDerivation {
  /** The derived client's `fetch`, made from the original's: called once per attempt that goes on the wire. */
  fetch: (fetch: FetchLike) => FetchLike;
  /**
   * Called before every attempt (the first, and each retry after its backoff), outside the
   * attempt's `timeoutMs`: a wait here is never a timeout. A promise is awaited (rejecting
   * fails the call); `undefined` means go ahead now.
   */
  beforeAttempt?: (signal: AbortSignal | undefined) => Promise<void> | undefined;
  /** Plugins of the derived client only, run after the pause's wait and before the client's own. */
  plugins?: readonly StoreAdminPlugin[];
  /**
   * Aborting it ends the derived client's waits between attempts (the backoff or `Retry-After`
   * sleep, and `beforeAttempt` after it) and in the client's pause after a 429 at once, with its
   * reason; a request in flight goes on.
   */
  stopWaits?: AbortSignal;
}

/**
 * A client that behaves as `client` (same options, token, retries, and the same openapi-fetch
 * core, so middleware registered with `use()` on either runs on both) but sends through
 * `derivation.fetch` and waits on `derivation.beforeAttempt`. Not exported from the package's
 * main entry: the bulk runner uses it to see every request a task sends.
 * @throws TypeError when `client` was not made by `createStoreAdminClient()`.
 */
export function deriveClient(client: StoreAdminClient, derivation: ClientDerivation): StoreAdminClient {
  const assembly = assemblies.get(client);
  if (!assembly) throw new TypeError("client must be a client made by createStoreAdminClient().");
  const [context, apiRoot] = assembly;
  const { beforeAttempt, stopWaits } = derivation;
  const derived: ClientContext = { ...context, fetch: derivation.fetch(context.fetch) };
  if (derivation.plugins?.length)
    derived.plugins = [context.plugins[0]!, ...derivation.plugins, ...context.plugins.slice(1)];
  if (beforeAttempt || stopWaits) {
    const between = async (ms: number, signal: AbortSignal | undefined): Promise<void> => {
      await context.sleep(ms, signal);
      await beforeAttempt?.(signal);
    };
    derived.sleep = stopWaits ? (ms, signal) => untilStopped(signal, stopWaits, (both) => between(ms, both)) : between;
  }
  // The same pause as the client's (its plugin is shared); a stop ends the derived client's waits in it too.
  if (stopWaits) derived.stopWaits = stopWaits;
  // `use`, `eject` and anything else the client carries are shared; the methods are remade below.
  const target = assemble({ ...client }, derived, apiRoot) as unknown as Record<
    string,
    (...args: never[]) => Promise<unknown>
  >;
  if (beforeAttempt) {
    type Init = { signal?: AbortSignal | null } | undefined;
    const gated = (init: Init, send: () => Promise<unknown>): Promise<unknown> => {
      const wait = beforeAttempt(init?.signal ?? undefined);
      return wait ? wait.then(send) : send();
    };
    for (const method of HTTP_METHODS) {
      const send = target[method] as (path: string, init: Init) => Promise<unknown>;
      target[method] = (path: string, init: Init) => gated(init, () => send(path, init));
    }
    const request = target["request"] as (method: string, path: string, init: Init) => Promise<unknown>;
    target["request"] = (method: string, path: string, init: Init) => gated(init, () => request(method, path, init));
  }
  return target as unknown as StoreAdminClient;
}
