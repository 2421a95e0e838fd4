/**
 * The client's public hook chain: what a plugin is, and every object the client hands one.
 *
 * A plugin is a plain object of optional hooks, given to `createStoreAdminClient({ …, plugins })`.
 * The shape follows Octokit's `hook.wrap` (each hook wraps the next and calls it, errors propagate)
 * for the two "around" hooks, and ofetch's `on*` hooks / Speakeasy's `afterSuccess`/`afterError`
 * for the one that sees an attempt's end:
 *
 * ```text
 * client.GET(…) ─▶ wrapCall (1st plugin ▸ 2nd ▸ …) ─▶ prepare: checks, body once, token
 *                    └─▶ for each attempt:
 *                          wrapAttempt (1st ▸ 2nd ▸ …) ─▶ [timeoutMs starts] openapi-fetch call:
 *                                                          use() middleware ─▶ fetch ─▶ body read
 *                          retry policy ─▶ onAttemptEnd (1st, 2nd, …): each may change the decision
 *                          retry? wait delayMs, next attempt : finish
 * ```
 *
 * Order: the client's pause after a 429 waits first, then `plugins` in the order given, then the
 * logger of the `logger` option (so it hears their decision), then the pause's release (a retry
 * the pause covers waits in it). The first plugin's wrap is the outermost; the `onAttemptEnd`s
 * run in the same order. `use()` middleware stays openapi-fetch's: it runs
 * inside each attempt, after every `wrapAttempt` has called `next()`.
 *
 * The token: no object handed to a plugin holds it. Headers a plugin reads and writes are its
 * own and the call's plugins' (never `Authorization`, which the client adds below the chain);
 * the errors are the SDK's, scrubbed of every token the client's source handed out; a plugin
 * that needs to print a server's text has {@link PluginCall.redact}. A plugin that refreshes a
 * token keeps its own token source (the client's `accessToken` function) and asks for a
 * fresh one with {@link AttemptVerdict} `refreshToken`.
 *
 * A hook that throws (or rejects) fails the call with its error; nothing is sent after it.
 */
import type { FetchResult } from "./call-types.js";
import type { ContractDriftError } from "./errors.js";
import type { Logger } from "./logger.js";
import type { RetryDecision } from "./retry-policy.js";

export type { RetryDecision } from "./retry-policy.js";

/** A value of a telemetry attribute (OpenTelemetry's primitive attribute values). */
export type PluginAttributeValue = string | number | boolean;

/**
 * A plugin: any of the hooks below, all optional. The same object may serve many clients (a
 * `rateLimit()` given to two clients is one budget for both); a client derived from another
 * (the bulk runner's, the MCP server's) runs its parent's plugins, the same objects.
 *
 * @example
 * const requestLog: StoreAdminPlugin = {
 *   name: "request-log",
 *   wrapCall(call, next) {
 *     call.headers.set("X-Team", "billing");
 *     return next();
 *   },
 *   onAttemptEnd(attempt, outcome) {
 *     console.log(`${attempt.call.method} ${attempt.call.path} #${attempt.number}`, outcome.response?.status ?? outcome.error);
 *   },
 * };
 */
export interface StoreAdminPlugin {
  /** Names the plugin in the errors the client raises about it (a refused header, a bad verdict). */
  readonly name: string;

  /**
   * Once per client that runs the plugin (a derived client included), when it is created.
   * What it is handed is the client's, never the token.
   */
  setup?(client: PluginClient): void;

  /**
   * Around the whole call, from the method the caller used to its result (Octokit's
   * `hook.wrap`). Before `next()`: set headers every attempt carries ({@link PluginCall.headers}),
   * add attributes, mark the call safe to resend ({@link PluginCall.idempotent}), wait. `next()`
   * resolves to the call's result (openapi-fetch's `{ data, error, response }`) or rejects with
   * what the caller would get; return (or throw) that, or something else in its place.
   * Call `next()` once.
   */
  wrapCall?(call: PluginCall, next: () => Promise<FetchResult>): Promise<FetchResult>;

  /**
   * Around each attempt (the first and every retry). Before `next()`: wait (outside the
   * attempt's `timeoutMs`, which starts inside `next()`), set this attempt's own headers
   * ({@link PluginAttempt.headers}). `next()` runs the attempt and resolves to its outcome; it
   * rejects only when a plugin further in does (`rateLimit()`, when the call's signal aborts
   * while the attempt waits for its slot). Return that outcome, or another (a success turned into a failure: `{ …outcome,
   * error }`). Call `next()` once.
   */
  wrapAttempt?(attempt: PluginAttempt, next: () => Promise<AttemptOutcome>): Promise<AttemptOutcome>;

  /**
   * After each attempt has run its wraps and the retry policy has decided: see the outcome,
   * and have a say in whether the call sends again. `decision` is the policy's, as the
   * plugins before this one left it. Return nothing to keep it, or an {@link AttemptVerdict}.
   */
  onAttemptEnd?(
    attempt: PluginAttempt,
    outcome: AttemptOutcome,
    decision: RetryDecision,
  ): AttemptVerdict | void | Promise<AttemptVerdict | void>;
}

/** What a plugin's `setup` is handed: the client that runs it. */
export interface PluginClient {
  /** The API root every path is appended to (`https://shop.example.com/api/admin`). */
  readonly apiRoot: string;
  /**
   * `text` with every token the client's source has handed out replaced by `[REDACTED]` where
   * it stands whole: for a plugin that records text a server or a caller wrote, outside any call.
   * No part of a token is matched, so the function tells nothing of a token to a plugin that
   * probes it with strings of its own.
   */
  redact(text: string): string;
  /** The client's logger (the `logger` option, or `STORE_ADMIN_LOG`), if any. */
  readonly logger: Logger | undefined;
}

/** One call, as its plugins see it: the same object in every hook of that call. */
export interface PluginCall {
  /** The HTTP method, upper case (`"POST"`). */
  readonly method: string;
  /** The operation's path template (`"/users/{id}/"`), never filled in. */
  readonly path: string;
  /** The caller's signal, if any. */
  readonly signal: AbortSignal | undefined;
  /** How the body is read (openapi-fetch's `parseAs`): `data` is parsed JSON only for `"json"`. */
  readonly parseAs: string;
  /**
   * Headers every attempt of this call carries, set by its plugins: empty when the call
   * starts. They win over the caller's headers of the same name. The client's own
   * (`Authorization`, the API version header) and fetch's (`Content-Length`, `Host`, …)
   * cannot be set: the call fails with a `TypeError` naming the plugin.
   */
  readonly headers: Headers;
  /**
   * Attributes on every span, event and metric point of this call, when the client has the
   * `telemetry()` plugin. Add before `next()` of `wrapCall` to reach the first attempt.
   */
  readonly attributes: Record<string, PluginAttributeValue>;
  /**
   * Whether the call may be sent again after a failure that may have reached the server (a
   * 5xx, a timeout, a connection cut): `true` for GET, HEAD, PUT, DELETE and OPTIONS. A plugin
   * that makes a resend harmless (an idempotency key the store honours) sets it to `true`
   * in `wrapCall`; the retry policy then treats the call as it treats a GET.
   */
  idempotent: boolean;
  /** `text` with this call's token (and every other its source handed out) replaced by `[REDACTED]` where it stands whole. */
  redact(text: string): string;
}

/** One attempt of a call, as its plugins see it. */
export interface PluginAttempt {
  readonly call: PluginCall;
  /** 1 for the first attempt, 2 for the first retry, … */
  readonly number: number;
  /**
   * Headers of this attempt only (a `traceparent`), on top of {@link PluginCall.headers}; the
   * same rules. Set them before `next()` of `wrapAttempt`.
   */
  readonly headers: Headers;
  /**
   * The attempt's URL as openapi-fetch builds it (the API root, the path filled in, the
   * query). Never carries the token: the client sends it in a header.
   */
  readonly url: string;
  /** Milliseconds the attempt waited in plugins' `wrapAttempt` before it started (a pause, a rate limit); 0 before it starts. */
  readonly waitedMs: number;
}

/**
 * How an attempt ended. A response whose body was read, or an error; a response and an error
 * both when a plugin failed an answered attempt (a body that does not match the contract).
 */
export interface AttemptOutcome {
  /** The response, its body already read (into `data` or `errorBody`); absent when none arrived. */
  readonly response?: Response | undefined;
  /** The parsed body of a 2xx response. */
  readonly data?: unknown;
  /** The parsed body of any other status. */
  readonly errorBody?: unknown;
  /**
   * What the attempt failed with, thrown to the caller if the call ends on it: an SDK error
   * (`TimeoutError`, `ConnectionError`, `RedirectError`, …, scrubbed of the token), the
   * caller's abort reason, or a middleware's or plugin's own error. Absent for a response,
   * whatever its status: an error status is returned as openapi-fetch returns it.
   */
  readonly error?: unknown;
  /** Milliseconds from the attempt's start (after its waits) to its body read or its failure. */
  readonly durationMs: number;
  /**
   * Set by `validateResponses()`: the 2xx body's drifts from the contract (the error it
   * made, thrown only by `"strict"`), for the plugins that report it (telemetry, the logger).
   */
  readonly drift?: ContractDriftError | undefined;
}

/**
 * A plugin's say on an attempt's end.
 *
 * - `{ retry: true }`: send again, after `delayMs` (default: the policy's delay, or 0 when the
 *   policy would not retry). With `refreshToken`, the next attempt asks the client's
 *   `accessToken` function again instead of reusing the call's token (a 401 answered by a
 *   refresh). A retry the policy would not have made (any method, any status) is an extra
 *   attempt: a call makes at most {@link MAX_EXTRA_ATTEMPTS} of them, past which the verdict
 *   is ignored and the call ends on the outcome.
 * - `{ retry: false }`: do not send again.
 */
export type AttemptVerdict =
  | { retry: true; delayMs?: number | undefined; refreshToken?: boolean | undefined }
  | { retry: false; delayMs?: never; refreshToken?: never };

/** Extra attempts plugins may add to one call beyond the retry policy's (see {@link AttemptVerdict}). */
export const MAX_EXTRA_ATTEMPTS = 3;
