/**
 * One call of one operation, from the client method the caller used to the result it gets.
 *
 * 1. Before anything is sent: per-call options that would bypass the client are refused,
 *    path parameters are checked, the body is serialized once (its bytes go with every
 *    attempt, even if the caller changes the object meanwhile).
 * 2. Each attempt is one openapi-fetch call with a per-call `fetch` (openapi-fetch's own
 *    extension point): the attempt's deadline (`timeout.ts`) starts with the attempt, the
 *    response head is checked (`transport.ts`), openapi-fetch reads and parses the body, and
 *    only then does the deadline stop, so the limit covers the whole body.
 * 3. `retry-policy.ts` decides whether the attempt may be sent again; a retry is a new
 *    openapi-fetch call with the same body and token, so middleware runs again for it.
 *
 * Retries live here, above openapi-fetch, rather than in its `fetch`: a body cut off
 * mid-stream or a stall after the headers only shows while openapi-fetch reads the body,
 * and reading it below openapi-fetch to find out would mean reading every body twice.
 */
import { defaultBodySerializer } from "openapi-fetch";
import { operations, type OperationFacts, type OperationKey } from "../generated/operations.js";
import { API_VERSION, API_VERSION_HEADER } from "./api-version.js";
import type { TokenSource } from "./auth.js";
import { ConnectionError, InvalidResponseError, invalidJson, StoreAdminError, TimeoutError, type Operation } from "./errors.js";
import { attemptEvent, emitLogEvent, type Logger } from "./logger.js";
import { toFormData } from "./multipart.js";
import { checkPathParams } from "./path-params.js";
import { decideRetry, isRetryable, type AttemptOutcome, type RetryDecision } from "./retry-policy.js";
import { deadlineClock, type Deadline } from "./timeout.js";
import { NULL_BODY_STATUSES, PlannedRequest, responseHeadProblem, sendRequest, type FetchLike } from "./transport.js";
import { rememberCall } from "./internal/call-info.js";

/** The result of every client call: openapi-fetch's `{ data, error, response }`. */
export type FetchResult = { data?: unknown; error?: unknown; response: Response };

/** The per-call options the client reads; the rest go to openapi-fetch as they are. */
export interface CallInit {
  params?: { path?: Record<string, unknown>; header?: Record<string, unknown>; [location: string]: unknown };
  body?: unknown;
  headers?: unknown;
  signal?: AbortSignal | null;
  bodySerializer?: (body: unknown, headers?: unknown) => unknown;
  middleware?: unknown[];
  [option: string]: unknown;
}

/** Per-call options of openapi-fetch that would bypass the client's origin or transport. */
const PER_CALL_FORBIDDEN = ["baseUrl", "fetch"] as const;

/** What the calls of one client share. */
export interface RequestPipeline {
  /** openapi-fetch's own `request(method, path, init)` of the client. */
  request: (method: string, path: string, init: Record<string, unknown>) => Promise<FetchResult>;
  fetch: FetchLike;
  token: TokenSource;
  timeoutMs: number;
  maxRetries: number;
  logger: Logger | undefined;
  /** Whether middleware is registered with `use()`: it must be shown real `Request`s. */
  hasMiddleware: () => boolean;
  /** Waits between attempts; rejects with `signal.reason` when `signal` aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random source in [0, 1) for the backoff jitter. */
  random: () => number;
}

const NOT_RETRYABLE: RetryDecision = { retry: false, reason: "not-retryable" };

/** The body openapi-fetch is given is already serialized: it is passed through as it is. */
const serialized = (body: unknown): unknown => body;

/** Builds the function every client method calls: `send("GET", "/users/{id}/", init)`. */
export function createSend(pipeline: RequestPipeline): (method: string, path: string, init?: CallInit) => Promise<FetchResult> {
  const { fetch, token, timeoutMs, maxRetries, logger, sleep, random } = pipeline;
  const startDeadline = deadlineClock(timeoutMs);
  const fixedSecrets = token.fixed === undefined ? undefined : [token.fixed];

  return async function send(method, path, init = {}) {
    for (const option of PER_CALL_FORBIDDEN) {
      if (init[option] !== undefined) {
        // openapi-fetch honours both: the first would send the token to another origin, the
        // second would skip retries, timeouts and the redirect guard.
        throw new TypeError(`[${method} ${path}] a per-call \`${option}\` is not supported; set it when creating the client. The request was not sent.`);
      }
    }
    checkPathParams(method, path, init.params?.path);
    const facts: OperationFacts | undefined = operations[`${method} ${path}` as OperationKey];
    const operation: Operation = { method, path };
    const callerSignal = init.signal ?? undefined;
    const body = serializeBody(init, facts?.multipart === true);
    // Middleware is shown real Requests; without it, fetch is called with the URL and init.
    const planned = !pipeline.hasMiddleware() && !init.middleware?.length;
    // A token function is called once per call: its attempts carry the same token.
    const accessToken = token.fixed ?? (await token.resolve());
    const secrets = fixedSecrets ?? [accessToken];
    const params = ownHeaders(init, token, accessToken);

    for (let attempt = 1; ; attempt++) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      // A body read after the call returns (`parseAs: "stream"`) needs a deadline of its own.
      const deadline = startDeadline(callerSignal, init.parseAs === "stream");
      const timeoutError = (): TimeoutError => new TimeoutError({ timeoutMs, operation, secrets });
      // The request of this attempt, as openapi-fetch handed it to fetch. Kept reachable until
      // the attempt ends: undici links a Request's signal to the one it follows through a
      // WeakRef, and once optimized code had dropped an unreachable Request, a garbage
      // collection cut that link, so a stalled body no longer timed out
      // (https://github.com/nodejs/undici/issues/4068; test/faults/timeout.test.ts).
      let sent: Request | PlannedRequest | undefined;
      let response: Response | undefined;
      let startedMs = 0;
      const fetchOnce = async (request: Request | PlannedRequest): Promise<Response> => {
        sent = request;
        if (logger) startedMs = performance.now();
        try {
          response = await sendRequest(fetch, request);
        } catch (error) {
          if (deadline.timedOut) throw timeoutError();
          throw callerSignal?.aborted ? callerSignal.reason : ConnectionError.from(error, { phase: "request", operation, secrets });
        }
        const problem = responseHeadProblem(response, request, operation, secrets);
        if (problem) {
          await response.body?.cancel().catch(() => undefined);
          throw problem;
        }
        return response;
      };

      let result: FetchResult | undefined;
      let error: unknown;
      try {
        result = await pipeline.request(method, path, {
          ...init,
          params,
          body,
          bodySerializer: serialized,
          signal: deadline.signal,
          fetch: fetchOnce,
          Request: planned ? PlannedRequest : undefined,
        });
        const { status, ok } = result.response;
        if (ok && result.data === undefined && method !== "HEAD" && !NULL_BODY_STATUSES.has(status)) {
          throw new InvalidResponseError({ status, problem: "the body is empty", operation, secrets });
        }
      } catch (thrown) {
        error = sent === undefined ? thrown : failure(thrown, deadline, timeoutError, callerSignal, response, operation, secrets);
      } finally {
        deadline.stop();
      }
      // Nothing was sent (a middleware or the token function threw): not an attempt.
      if (sent === undefined) {
        if (error !== undefined) throw error;
        return finish(result!, facts, operation, secrets);
      }
      const outcome: AttemptOutcome = error === undefined ? { kind: "status", status: result!.response.status } : outcomeOf(error, callerSignal);
      const answered = error === undefined ? result!.response : undefined;
      const decision = isRetryable(method, outcome)
        ? decideRetry({ method, outcome, attempt, maxRetries, retryAfter: answered?.headers.get("retry-after"), random })
        : NOT_RETRYABLE;
      if (logger) emitLogEvent(logger, attemptEvent(operation, attempt, startedMs, answered, error, decision, secrets));
      sent = undefined;

      if (!decision.retry) {
        if (error !== undefined) throw error;
        return finish(result!, facts, operation, secrets);
      }
      await sleep(decision.delayMs, callerSignal);
    }
  };
}

/**
 * The body as it goes on the wire, computed once per call: form data for the operations the
 * contract marks multipart (even without a file: the operation takes form data), else
 * openapi-fetch's own serializer (JSON), or the caller's `bodySerializer`.
 */
function serializeBody(init: CallInit, multipart: boolean): unknown {
  if (init.bodySerializer) return init.body === undefined ? undefined : init.bodySerializer(init.body, init.headers);
  if (multipart) return toFormData(init.body ?? {});
  if (init.body === undefined) return undefined;
  return (defaultBodySerializer as (body: unknown, headers?: unknown) => unknown)(init.body, init.headers);
}

/**
 * The client's headers go as defaults of the openapi-fetch client. When a call brings its own
 * headers, or the token is a function, they are put back on top through `params.header`,
 * which openapi-fetch merges last (callers' types never offer `params.header`).
 */
function ownHeaders(init: CallInit, token: TokenSource, accessToken: string): CallInit["params"] {
  if (token.fixed !== undefined && init.headers === undefined && init.params?.header === undefined) return init.params;
  return {
    ...init.params,
    header: { ...init.params?.header, Authorization: `Bearer ${accessToken}`, [API_VERSION_HEADER]: API_VERSION },
  };
}

/** The SDK error for what an attempt threw after its request went to `fetch`. */
function failure(
  thrown: unknown,
  deadline: Deadline,
  timeoutError: () => TimeoutError,
  callerSignal: AbortSignal | undefined,
  response: Response | undefined,
  operation: Operation,
  secrets: readonly string[],
): unknown {
  if (deadline.timedOut) return timeoutError();
  if (callerSignal?.aborted) return callerSignal.reason;
  if (thrown instanceof StoreAdminError || response === undefined) return thrown;
  // openapi-fetch parses a 2xx body with JSON.parse and lets its SyntaxError escape.
  if (thrown instanceof SyntaxError) return invalidJson(operation, thrown, response, secrets);
  // What a fetch body throws when the connection breaks mid-body (Fetch standard: TypeError).
  if (thrown instanceof TypeError) return ConnectionError.from(thrown, { phase: "body", operation, secrets });
  return thrown; // a middleware's own error
}

/** What the retry policy needs to know about an attempt that threw. */
function outcomeOf(error: unknown, callerSignal: AbortSignal | undefined): AttemptOutcome {
  if (callerSignal?.aborted) return { kind: "other" };
  if (error instanceof TimeoutError) return { kind: "timeout" };
  if (error instanceof ConnectionError) return { kind: "connection", requestSent: error.requestSent };
  // RedirectError, InvalidResponseError and anything else: the same request gets the same answer.
  return { kind: "other" };
}

/**
 * The result as the caller gets it. The contract leaves open whether some list bodies
 * (`GET /orders/{number}/fulfillment-orders/`: the spec describes a list, its example is one
 * object) are an array or one object; the generator flags them (`singleOrList`) and callers
 * always get an array, as the types promise.
 */
function finish(
  result: FetchResult,
  facts: OperationFacts | undefined,
  operation: Operation,
  secrets: readonly string[],
): FetchResult {
  if (facts?.singleOrList && result.response.ok && result.data != null && !Array.isArray(result.data)) {
    result.data = [result.data];
  }
  rememberCall(result.response, { operation, scope: facts?.scope, secrets });
  return result;
}
