/**
 * One call, from the client method the caller used to the result it gets, in the order it happens:
 *
 * 1. `prepare()`: refuse what must not be sent (unknown options, operations outside the
 *    contract, bad path values, a body on a GET, owned headers), serialize the body once,
 *    get the token, build the openapi-fetch options every attempt shares.
 * 2. `runAttempt()`: one openapi-fetch call. Its `fetch` (openapi-fetch's own extension point)
 *    starts nothing: the attempt's deadline (`deadline-clock.ts`) is already running, the response
 *    head is checked and its body counted (`transport.ts`), openapi-fetch reads and parses the
 *    body, and only then does the deadline stop, so `timeoutMs` covers the whole body. It
 *    returns a tagged outcome and never throws.
 * 3. The retry policy (`core/retry-policy.ts`) is asked once.
 * 4. Wait, and go back to 2; or `finish()`.
 *
 * A client with plugins (core/plugin.ts; the pause after a 429 is one, on by default) runs them
 * around this (plugin-chain.ts): `wrapCall` around the whole, `wrapAttempt` around step 2,
 * `onAttemptEnd` after step 3. With none, nothing of that runs.
 *
 * Retries live here, above openapi-fetch: a body cut off mid-stream or a stall after the
 * headers only shows while openapi-fetch reads the body, and middleware cannot resend.
 */
import { defaultBodySerializer } from "openapi-fetch";
import type { OperationFacts, OperationKey } from "../../generated/operations.js";
import type { TokenSource } from "./auth.js";
import {
  ConnectionError,
  invalidJson,
  InvalidResponseError,
  StoreAdminError,
  TimeoutError,
  type Operation,
} from "../core/errors.js";
import { checkHeaders, sdkHeaders } from "./headers.js";
import type { Logger } from "../core/logger.js";
import { checkPathParams } from "./path-params.js";
import {
  decideRetry,
  isIdempotent,
  type AttemptOutcome as PolicyOutcome,
  type RetryDecision,
} from "../core/retry-policy.js";
import { settleWithin } from "../core/timeout.js";
import { expectsJsonBody, limitBody, responseHeadProblem } from "./transport.js";
import type { FetchLike, FetchResult } from "../core/call-types.js";
import { rememberCall } from "./call-info.js";
import type { DeadlineClock } from "./deadline-clock.js";
import { PlannedRequest, sendRequest } from "./openapi-fetch-internals.js";
import { checkNumberOption, unknownOptions } from "../core/options.js";
import { ownOptions } from "../core/own.js";
import { describe } from "../core/redact.js";
import { loadedTables, loadTables } from "./tables.js";
import type { CallOptionKey } from "../core/types.js";
import { waitStops, type RatePause } from "./rate-pause.js";
import type { AttemptOutcome, StoreAdminPlugin } from "../core/plugin.js";
import {
  AttemptView,
  CallView,
  endsIdle,
  pluginHeaders,
  verdicts,
  wrapAttempt,
  wrapCall,
  wrapsCalls,
  wrapsIdle,
} from "./plugin-chain.js";
import { createFinalURL, createQuerySerializer, defaultPathSerializer } from "openapi-fetch";

/** The per-call options a caller may pass; anything else is refused. */
interface CallInit {
  params?: {
    path?: Record<string, unknown>;
    query?: Record<string, unknown>;
    header?: Record<string, unknown>;
    [location: string]: unknown;
  };
  body?: unknown;
  headers?: unknown;
  signal?: AbortSignal | null;
  parseAs?: string;
  bodySerializer?: (body: unknown, headers?: unknown) => unknown;
  querySerializer?: unknown;
  middleware?: unknown[];
  timeoutMs?: number;
  maxRetries?: number;
}

/**
 * openapi-fetch's per-call options the client passes on, plus its own two. Others would bypass
 * the client: `baseUrl`, `fetch` and `pathSerializer` can send the token elsewhere, `redirect`
 * follows what the client refuses.
 */
const CALL_OPTIONS: Readonly<Record<CallOptionKey, true>> = {
  params: true,
  body: true,
  signal: true,
  headers: true,
  parseAs: true,
  bodySerializer: true,
  querySerializer: true,
  middleware: true,
  timeoutMs: true,
  maxRetries: true,
};
const CALL_OPTION_NAMES = Object.keys(CALL_OPTIONS);

/** What the calls of one client share. */
export interface ClientContext {
  /** openapi-fetch's own `request(method, path, init)` of the client. */
  request: (method: string, path: string, init: Record<string, unknown>) => Promise<FetchResult>;
  fetch: FetchLike;
  token: TokenSource;
  timeoutMs: number;
  maxRetries: number;
  maxResponseBytes: number;
  logger: Logger | undefined;
  startDeadline: DeadlineClock;
  /** Whether middleware is registered with `use()`: it must be shown real `Request`s. */
  hasMiddleware: () => boolean;
  /** Waits between attempts; rejects with `signal.reason` when `signal` aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random source in [0, 1) for the backoff jitter. */
  random: () => number;
  /** The hook chain: the client's own plugins, the caller's, the logger's (core/plugin.ts says the order). */
  plugins: readonly StoreAdminPlugin[];
  /** The API root, for the URL an attempt's plugins are shown. */
  apiRoot: string;
  /** The pause after a 429 (`rate-pause.ts`; its plugin is the chain's first), shared with the clients derived from this one. */
  pause: RatePause;
  /** A derived client's stop (client.ts, `deriveClient`): it ends the calls' waits in the pause. */
  stopWaits?: AbortSignal | undefined;
}

/** One call, as `prepare()` leaves it for its attempts. */
interface Call {
  context: ClientContext;
  method: string;
  operation: Operation;
  facts: OperationFacts;
  signal: AbortSignal | undefined;
  timeoutMs: number;
  maxRetries: number;
  /** Strings never shown in an error, a log event or a span: this call's token and the others its source handed out (auth.ts). */
  secrets: readonly string[];
  /** openapi-fetch's options, the same for every attempt. */
  init: Record<string, unknown>;
  /** Whether the attempt streams its body to the caller after the call (its deadline must not be shared). */
  streams: boolean;
  /** The call as its plugins see it, when the client has plugins. */
  view: CallView | undefined;
  /** Extra attempts the plugins asked for so far (plugin.ts, `MAX_EXTRA_ATTEMPTS`). */
  extra: number;
  /** Whether a plugin asked for a fresh token for the next attempt. */
  refresh: boolean;
  /** Set once the call has its result: an attempt a plugin starts later is not sent. */
  ended?: boolean;
  /** The attempt in flight as the plugins see it, and its outcome as they left it. */
  attemptView?: AttemptView;
  shown?: AttemptOutcome;
  /** The last outcome shown to the plugins, and the attempt's own record of it. */
  record?: [AttemptOutcome, Outcome];
}

/**
 * How one attempt ended. `sent: false`: nothing reached `fetch` (a middleware answered or threw).
 * An error wins over a result (a plugin failed an answered attempt).
 */
type Outcome = { sent: boolean; result?: FetchResult | undefined; error?: unknown; startedMs: number };

/** Builds the function every client method calls: `send("GET", "/users/{id}/", init)`. */
export function createSend(
  context: ClientContext,
): (method: string, path: string, init?: CallInit) => Promise<FetchResult> {
  const send = async (method: string, path: string, given: CallInit = {}, view?: CallView): Promise<FetchResult> => {
    // The caller's own keys only (core/own.ts), at both levels openapi-fetch reads.
    const init = ownOptions(given);
    if (init?.params) init.params = ownOptions(init.params);
    const call = await prepare(context, method, path, init, view);
    try {
      for (let attempt = 1; ; attempt++) {
        if (call.signal?.aborted) throw call.signal.reason;
        if (call.refresh) await refreshToken(call);
        // Straight to the attempt when every plugin's wrap is idle (plugin-chain.ts, `wrapsIdle`).
        const wrapped = view && (view.setHeaders || !wrapsIdle(context.plugins));
        const outcome = wrapped ? await pluginAttempt(call, attempt, view) : await unwrappedAttempt(call, attempt);
        if (!outcome.sent) return finish(call, outcome);
        const response = outcome.error === undefined ? outcome.result?.response : undefined;
        // A success is never retried (retry-policy.ts): with no plugin to hear of it, there is nothing to ask.
        if (response?.ok && !view) return finish(call, outcome);
        // The retry policy is asked of a failed attempt only.
        let decision = response?.ok ? NOT_RETRIED : retryDecision(call, outcome, attempt);
        if (view && !endsIdle(context.plugins, call.shown ? call.shown.response : response, decision))
          decision = await pluginVerdicts(call, attempt, outcome, decision);
        if (!decision.retry) return finish(call, outcome);
        await context.sleep(decision.delayMs, call.signal);
      }
    } finally {
      call.ended = true;
    }
  };
  const { plugins } = context;
  if (!plugins.length) return send;
  const secrets = (): readonly string[] => context.token.secrets;
  return (method, path, init) => {
    const view = new CallView(
      method,
      path,
      init?.signal ?? undefined,
      init?.parseAs ?? "json",
      isIdempotent(method),
      secrets,
    );
    if (context.stopWaits) waitStops.set(view, context.stopWaits);
    // Read per call, as the other hooks are per attempt: a plugin may gain its wrapCall after the client was made.
    if (!wrapsCalls(plugins)) return send(method, path, init, view);
    // A plugin that kept wrapCall's next() past the call's end does not send it then.
    let ended = false;
    const sendOnce = () => (ended ? Promise.reject(new TypeError(ENDED)) : send(method, path, init, view));
    return wrapCall(plugins, view, sendOnce, view.signal).then(
      (result) => ((ended = true), result),
      (error: unknown) => {
        ended = true;
        throw error;
      },
    );
  };
}

const ENDED = "a plugin called next() after its call had ended; nothing was sent.";

/** One attempt that no plugin wraps: the plugins are shown it only if their `onAttemptEnd` has something to do. */
function unwrappedAttempt(call: Call, attempt: number): Promise<Outcome> {
  call.attemptView = call.shown = undefined;
  return runAttempt(call, attempt);
}

/** One attempt through the plugins' `wrapAttempt`, with the headers they set. */
async function pluginAttempt(call: Call, attempt: number, view: CallView): Promise<Outcome> {
  const { context } = call;
  const shown = (call.attemptView = new AttemptView(view, attempt, () => attemptUrl(call)));
  call.shown = await wrapAttempt(
    context.plugins,
    shown,
    async () => {
      // A wrap that held the attempt past the caller's abort, or kept next() past the call's end, sends nothing.
      if (call.signal?.aborted)
        return outcomeForPlugins(call, { sent: false, error: call.signal.reason, startedMs: 0 });
      if (call.ended) return outcomeForPlugins(call, { sent: false, error: new TypeError(ENDED), startedMs: 0 });
      return outcomeForPlugins(call, await runAttempt(call, attempt, pluginHeaders(context.plugins, shown)));
    },
    call.signal,
  );
  return outcomeFromPlugins(call, call.shown);
}

/** A fresh token from the client's source, for the attempt after a plugin asked for one (a 401 answered by a refresh). */
async function refreshToken(call: Call): Promise<void> {
  call.refresh = false;
  const { token } = call.context;
  if (token.fixed !== undefined) return;
  const accessToken = await tokenWithin(token, call.signal, call.timeoutMs, call.operation);
  const params = call.init["params"] as { header: Record<string, unknown> };
  params.header = { ...params.header, ...sdkHeaders(accessToken) };
  call.secrets = token.secrets[0] === accessToken ? token.secrets : [accessToken, ...token.secrets];
}

/** The outcome as plugins see it (core/plugin.ts); the attempt's own record stays on the call, out of their sight. */
function outcomeForPlugins(call: Call, outcome: Outcome): AttemptOutcome {
  const { result } = outcome;
  const shown: AttemptOutcome = {
    response: result?.response,
    data: result?.data,
    errorBody: result?.error,
    error: outcome.error,
    durationMs: outcome.startedMs ? Math.round(performance.now() - outcome.startedMs) : 0,
  };
  call.record = [shown, outcome];
  return shown;
}

/** The attempt's record from what the plugins returned: theirs if they made a new outcome. */
function outcomeFromPlugins(call: Call, shown: AttemptOutcome): Outcome {
  const own = call.record?.[0] === shown ? call.record[1] : undefined;
  const sent = own?.sent ?? true;
  const startedMs = own?.startedMs ?? 0;
  if (shown.error !== undefined) return { sent, error: shown.error, result: undefined, startedMs };
  if (!shown.response)
    return (
      own ?? {
        sent,
        error: new TypeError("a plugin returned an attempt outcome with neither a response nor an error"),
        startedMs,
      }
    );
  const result: FetchResult =
    own?.result && own.result.response === shown.response && own.result.data === shown.data
      ? own.result
      : { data: shown.data, error: shown.errorBody, response: shown.response };
  return { sent, result, startedMs };
}

/**
 * The plugins' say on an attempt (plugin-chain.ts); a fresh token for the next attempt when one
 * asked. The attempt's view is made here when its wraps were idle.
 */
async function pluginVerdicts(
  call: Call,
  attempt: number,
  outcome: Outcome,
  policy: RetryDecision,
): Promise<RetryDecision> {
  const view = (call.attemptView ??= new AttemptView(call.view!, attempt, () => attemptUrl(call)));
  const shown = (call.shown ??= outcomeForPlugins(call, outcome));
  const said = await verdicts(call.context.plugins, view, shown, policy, call.extra, call.signal);
  if (said.extra) call.extra++;
  if (said.decision.retry && said.refreshToken) call.refresh = true;
  return said.decision;
}

/** The URL openapi-fetch builds for an attempt, for the plugins that ask. */
function attemptUrl({ context, operation, init }: Call): string {
  const params = init["params"] as { path?: Record<string, unknown>; query?: Record<string, unknown> };
  const given = init["querySerializer"];
  const querySerializer =
    typeof given === "function"
      ? (given as (query: unknown) => string)
      : createQuerySerializer(given as Parameters<typeof createQuerySerializer>[0]);
  return createFinalURL(operation.path, {
    baseUrl: context.apiRoot,
    params,
    querySerializer,
    pathSerializer: defaultPathSerializer,
  });
}

/** Refuses a per-call option the client does not know (step 1's first check, before the tables load). */
function checkCallOptions(where: string, init: CallInit): void {
  const [key] = unknownOptions(init, CALL_OPTION_NAMES);
  if (key === undefined) return;
  const clientOption = key === "baseUrl" || key === "fetch" ? " (set it when creating the client)" : "";
  throw new TypeError(
    `${where} unknown per-call option \`${key}\`${clientOption}; a call takes ${CALL_OPTION_NAMES.join(", ")}. The request was not sent.`,
  );
}

/** Refuses what must not be sent for an operation of the contract: bad path values, a body on a GET, owned headers, bad numbers or `parseAs`. */
function checkInit(where: string, method: string, path: string, init: CallInit): void {
  checkPathParams(method, path, init.params?.path);
  if ((method === "GET" || method === "HEAD") && init.body !== undefined) {
    throw new TypeError(
      `${where} a ${method} request cannot have a body; the request was not sent. Pass filters in params.query.`,
    );
  }
  if (init.headers !== undefined) checkHeaders(init.headers, `${where} the per-call headers`);
  if (init.params?.header !== undefined) checkHeaders(init.params.header, `${where} params.header`);
  if (init.timeoutMs !== undefined)
    checkNumberOption(`${where} timeoutMs`, init.timeoutMs, (n) => n > 0, "a positive number of milliseconds");
  if (init.maxRetries !== undefined)
    checkNumberOption(
      `${where} maxRetries`,
      init.maxRetries,
      (n) => Number.isInteger(n) && n >= 0,
      "a whole number ≥ 0",
    );
  // openapi-fetch calls `response[parseAs]()`: any other name would read the body past the byte count, or call what is no reader.
  if (init.parseAs !== undefined && !PARSE_AS.includes(init.parseAs)) {
    throw new TypeError(
      `${where} parseAs must be one of ${PARSE_AS.join(", ")}, got ${describe(init.parseAs)}. The request was not sent.`,
    );
  }
}

/** Everything checked and computed once per call, before anything is sent. */
async function prepare(
  context: ClientContext,
  method: string,
  path: string,
  init: CallInit,
  view: CallView | undefined,
): Promise<Call> {
  const where = `[${method} ${path}]`;
  checkCallOptions(where, init);
  // The operations' facts load with the first call (tables.ts); later calls do not wait.
  const { operations } = loadedTables() ?? (await loadTables());
  const facts = operations[`${method === "HEAD" ? "GET" : method} ${path}` as OperationKey] as
    | OperationFacts
    | undefined;
  if (!facts) {
    throw new TypeError(
      `${where} is not an operation of the API contract; the request was not sent. ` +
        'Pass a path template such as "/users/{id}/" and the values in params.path.',
    );
  }
  checkInit(where, method, path, init);

  const signal = init.signal ?? undefined;
  const timeoutMs = init.timeoutMs ?? context.timeoutMs;
  const operation: Operation = { method, path };
  // Forms are built by a module loaded on the first call that may send one: most calls send JSON.
  const forms = !init.bodySerializer && (facts.multipart || facts.form || facts.filesMultipart);
  const body = (forms && (await import("./multipart.js")).formBody(init.body, facts)) || serializeBody(init);
  // A token function is called once per call: its attempts carry the same token. The caller's
  // signal ends the wait, and so does timeoutMs (a token service that hangs must not hang the call).
  const { token } = context;
  const accessToken = token.fixed ?? (await tokenWithin(token, signal, timeoutMs, operation));
  const params = init.params;
  // A fresh object per call: middleware may add to params.header, and that must stay this call's.
  const header: Record<string, unknown> = { ...params?.header, ...sdkHeaders(accessToken) };
  // openapi-fetch labels every body but FormData as JSON.
  if (body instanceof URLSearchParams) header["Content-Type"] = "application/x-www-form-urlencoded";
  return {
    context,
    method,
    operation,
    facts,
    signal,
    timeoutMs,
    maxRetries: init.maxRetries ?? context.maxRetries,
    // Every token the source handed out, this one first: a server may echo an earlier one (a cursor from the last call).
    secrets: token.secrets[0] === accessToken ? token.secrets : [accessToken, ...token.secrets],
    // openapi-fetch's options for every attempt: the caller's, checked above, with the SDK's headers on top.
    init: {
      // Its query serializer walks the query with `for…in` (inherited keys too), and takes `{}` for none.
      params: attemptParams(
        params,
        params?.query === undefined
          ? Object.create(null)
          : ownOptions(encodeQueryKeys(params.query, init.querySerializer)),
        header,
      ),
      body,
      // The body openapi-fetch is given is already serialized: it is passed through as it is.
      bodySerializer: serialized,
      headers: init.headers,
      parseAs: init.parseAs,
      querySerializer: init.querySerializer,
      middleware: init.middleware,
      // Middleware is shown real Requests; without it, fetch is called with the URL and init.
      Request: context.hasMiddleware() || (init.middleware?.length ?? 0) > 0 ? undefined : PlannedRequest,
      // openapi-fetch's defaults, given as undefined so that none is inherited; the last two are each attempt's (runAttempt).
      baseUrl: undefined,
      pathSerializer: undefined,
      signal: undefined,
      fetch: undefined,
    },
    streams: init.parseAs === "stream",
    view,
    extra: 0,
    refresh: false,
  };
}

const serialized = (body: unknown): unknown => body;

/**
 * openapi-fetch's `params` for every attempt: the caller's (own keys, core/own.ts), with the
 * query and header made here. Built key by key when the caller gave no other key (a spread of
 * the caller's prototype-less copy cost a stub call about 2 % of its time); spread otherwise, so
 * that any other key, a symbol or an own `__proto__` included, is copied as data.
 */
function attemptParams(
  params: CallInit["params"],
  query: unknown,
  header: Record<string, unknown>,
): Record<string, unknown> {
  const path = params?.path;
  for (const key in params)
    if (key !== "path" && key !== "query" && key !== "header") return { ...params, path, query, header };
  return { path, query, header };
}

/** What a token function answers, unless the caller's signal aborts or `timeoutMs` runs out first. */
async function tokenWithin(
  token: TokenSource,
  signal: AbortSignal | undefined,
  timeoutMs: number,
  operation: Operation,
): Promise<string> {
  const timedOut = Symbol("timed out");
  try {
    // Called only when the token is not fixed: then `resolve` is set.
    return await settleWithin(token.resolve!(), signal, timeoutMs, () => timedOut);
  } catch (thrown) {
    if (thrown === timedOut) throw new TimeoutError({ timeoutMs, operation, waitingForToken: true });
    throw thrown;
  }
}

/** openapi-fetch's `parseAs` values. */
const PARSE_AS: readonly unknown[] = ["json", "text", "blob", "arrayBuffer", "stream"];

/**
 * The body as it goes on the wire when it is not a form (`formBody()` of src/client/multipart.ts
 * builds those, in the media type the contract offers): openapi-fetch's own serializer
 * (JSON), or the caller's `bodySerializer`. Computed once per call.
 */
function serializeBody(init: CallInit): unknown {
  if (init.bodySerializer) return init.body === undefined ? undefined : init.bodySerializer(init.body, init.headers);
  if (init.body === undefined) return undefined;
  return (defaultBodySerializer as (body: unknown, headers?: unknown) => unknown)(init.body, init.headers);
}

/** Characters a query key may hold as it is; any other is percent-encoded. */
const PLAIN_KEY = /^[\w.~-]*$/;

/**
 * The query with every key percent-encoded, at any depth: openapi-fetch's serializer encodes
 * values but writes keys as they are, so `{ "b&cursor=X": 1 }` would add a parameter. A
 * caller's own serializer function gets the query as given.
 */
function encodeQueryKeys(query: Record<string, unknown>, querySerializer: unknown): unknown {
  if (typeof querySerializer === "function") return query;
  const encode = (value: unknown): unknown => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
    const entries = Object.entries(value);
    if (
      entries.every(
        ([key, item]) => PLAIN_KEY.test(key) && (item === null || typeof item !== "object" || Array.isArray(item)),
      )
    )
      return value;
    return Object.fromEntries(
      entries.map(([key, item]) => [PLAIN_KEY.test(key) ? key : encodeURIComponent(key), encode(item)]),
    );
  };
  return encode(query);
}

/** One attempt (the `attempt`th): one openapi-fetch call under its own deadline. Never throws. */
async function runAttempt(call: Call, attempt: number, headers?: Record<string, string>): Promise<Outcome> {
  const { context, method, operation, secrets, signal, timeoutMs } = call;
  const deadline = context.startDeadline(signal, call.streams, timeoutMs);
  // The request as openapi-fetch handed it to fetch, kept reachable until the attempt ends:
  // undici links a Request's signal to the one it follows through a WeakRef, and a garbage
  // collection of an unreachable Request cut that link, so a stalled body no longer timed out
  // (https://github.com/nodejs/undici/issues/4068; test/faults/timeout.test.ts).
  let sent: Request | PlannedRequest | undefined;
  let response: Response | undefined;
  let startedMs = 0;
  const fetchOnce = async (request: Request | PlannedRequest): Promise<Response> => {
    sent = request;
    if (call.view) startedMs = performance.now();
    let head: Response;
    try {
      head = await sendRequest(context.fetch, request);
    } catch (error) {
      // Middleware's onError sees what the caller would: the timeout, the abort, or the network error.
      const { timedOut } = deadline;
      if (signal?.aborted && !timedOut) throw signal.reason;
      throw timedOut
        ? new TimeoutError({ timeoutMs, operation, secrets })
        : ConnectionError.from(error, { phase: "request", operation, secrets });
    }
    const problem = responseHeadProblem(head, request, operation, secrets);
    if (problem) {
      await head.body?.cancel().catch(() => undefined);
      throw problem;
    }
    // Counted at the stream unless openapi-fetch alone reads it, with json() or text(): middleware
    // is handed the Response, and may re-wrap, clone or read it any way it likes.
    const { parseAs, Request } = call.init;
    const atStream = !Request || (parseAs !== undefined && parseAs !== "json" && parseAs !== "text");
    return (response = limitBody(head, context.maxResponseBytes, operation, atStream));
  };

  try {
    // The call's own options object, this attempt's signal and fetch written onto it: openapi-fetch
    // reads its options once, as the attempt starts, and a call's attempts never overlap.
    const init = headers ? withHeaders(call.init, headers) : call.init;
    init["signal"] = deadline.signal;
    init["fetch"] = fetchOnce;
    const result = await context.request(method, operation.path, init);
    // The body's JSON is checked, not its schema (that would cost every call a walk of its data):
    // `null`, `42` or `"hello"` is data, as a body that lacks a field is.
    if (expectsJsonBody(method, result.response) && result.data === undefined && !call.facts.noContent) {
      throw new InvalidResponseError({
        status: result.response.status,
        problem: "the body is empty",
        operation,
        secrets,
      });
    }
    return { sent: sent !== undefined, result, startedMs };
  } catch (thrown) {
    // Nothing was sent (a middleware threw): the error is the caller's own.
    if (sent === undefined) return { sent: false, error: thrown, startedMs };
    // The deadline and the caller's abort come first: whatever fetch threw then is their echo.
    const { timedOut } = deadline;
    if (signal?.aborted && !timedOut) return { sent: true, error: signal.reason, startedMs };
    if (timedOut) return { sent: true, error: new TimeoutError({ timeoutMs, operation, secrets }), startedMs };
    return { sent: true, error: attemptError(thrown, response, call), startedMs };
  } finally {
    deadline.stop();
  }
}

/** openapi-fetch's options with the plugins' headers over the caller's, under the SDK's own (which the plugins cannot set). */
function withHeaders(init: Record<string, unknown>, headers: Record<string, string>): Record<string, unknown> {
  const params = init["params"] as { header: Record<string, unknown> };
  return { ...init, params: { ...params, header: { ...params.header, ...headers } } };
}

/** The SDK error for what an attempt threw after its request went to `fetch`. */
function attemptError(thrown: unknown, response: Response | undefined, { operation, secrets }: Call): unknown {
  if (thrown instanceof StoreAdminError || response === undefined) return thrown;
  // openapi-fetch parses a 2xx body with JSON.parse and lets its SyntaxError escape.
  if (thrown instanceof SyntaxError) return invalidJson(operation, thrown, response.status, secrets);
  // What a fetch body throws when the connection breaks mid-body (Fetch standard: TypeError).
  if (thrown instanceof TypeError) return ConnectionError.from(thrown, { phase: "body", operation, secrets });
  return thrown; // a middleware's own error
}

/** What a successful attempt is told. */
const NOT_RETRIED: RetryDecision = { retry: false, reason: "not-retryable" };

/** Whether a failed attempt is retried, and when: the retry policy's answer. */
function retryDecision(
  { context, method, maxRetries, signal, view }: Call,
  outcome: Outcome,
  attempt: number,
): RetryDecision {
  const response = outcome.error === undefined ? outcome.result?.response : undefined;
  return decideRetry({
    method,
    idempotent: view?.idempotent,
    outcome: response ? { kind: "status", status: response.status } : policyOutcome(outcome.error, signal),
    attempt,
    maxRetries,
    get retryAfter() {
      return response?.headers.get("retry-after");
    },
    random: context.random,
  });
}

/** What the retry policy needs to know about an attempt that threw. */
function policyOutcome(error: unknown, signal: AbortSignal | undefined): PolicyOutcome {
  if (signal?.aborted) return { kind: "other" };
  if (error instanceof TimeoutError) return { kind: "timeout" };
  if (error instanceof ConnectionError) return { kind: "connection", requestSent: error.requestSent };
  // RedirectError, InvalidResponseError, ResponseTooLargeError and anything else: the same request gets the same answer.
  return { kind: "other" };
}

/**
 * The result as the caller gets it, or the attempt's error thrown. The contract leaves open
 * whether some list bodies (`GET /orders/{number}/fulfillment-orders/`: the spec describes a
 * list, its example is one object) are an array or one object; the generator flags them
 * (`singleOrList`) and callers always get an array, as the types promise.
 */
function finish({ facts, operation, secrets }: Call, outcome: Outcome): FetchResult {
  if (outcome.error !== undefined || outcome.result === undefined) throw outcome.error;
  const { result } = outcome;
  if (facts.singleOrList && result.response.ok && result.data != null && !Array.isArray(result.data)) {
    result.data = [result.data];
  }
  // An error made from the response derives `[[scope]]` from `scope` when `scopes` is not given.
  rememberCall(result.response, { operation, scope: facts.scope, requiredScopes: facts.scopes, secrets });
  return result;
}
