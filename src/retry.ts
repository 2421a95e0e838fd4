/**
 * `withRetry(fetch, options)`: sends a request again when `retry-policy.ts` says it may.
 * It lives at the fetch layer because openapi-fetch middleware cannot resend a request
 * whose body has been read: here the body is read once and its bytes go with every attempt.
 *
 * Deciding (retry-policy.ts) is kept apart from doing (this file), as in Octokit's
 * plugin-retry. The caller's `AbortSignal` ends the loop at once, during an attempt or
 * during the wait before the next one, and its reason is rethrown unchanged.
 */

import { ConnectionError, TimeoutError, type Operation } from "./errors.js";
import { emitLogEvent, type Logger, type RequestLogEvent } from "./logger.js";
import { decideRetry, DEFAULT_MAX_RETRIES, type AttemptOutcome } from "./retry-policy.js";
import { hold } from "./internal/hold.js";
import { operationOf, rememberOperation } from "./internal/operation.js";
import { redact } from "./internal/redact.js";
import { attachSecrets, secretsOfRequest } from "./internal/secrets.js";
import { sleep as abortableSleep } from "./internal/sleep.js";
import type { FetchLike } from "./timeout.js";

/** Options of {@link withRetry}. */
export interface RetryOptions {
  /**
   * Retries after the first attempt; `0` disables retrying.
   * @default 2
   */
  maxRetries?: number;
  /** Called once per attempt when it ends (the client's `logger` option). */
  onAttempt?: Logger | undefined;
  /**
   * Names the operation of a request as openapi-fetch built it (method and path template),
   * for log events and error messages. May return `undefined`: the URL pathname is used.
   */
  describe?: ((request: Request) => { method: string; path: string } | undefined) | undefined;
  /** Random source in [0, 1) for the backoff jitter. For tests. @default Math.random */
  random?: () => number;
  /** Waits between attempts; must reject with `signal.reason` when `signal` aborts. For tests. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * Wraps `fetch` so that a failed attempt is sent again when that cannot duplicate work:
 * 429 for every method; 408, 5xx, timeouts and broken connections for idempotent methods
 * only; a refused connection (nothing sent) for every method. Waits for `Retry-After` up to
 * `MAX_RETRY_AFTER_MS`, else backs off exponentially with jitter (see `retryDelayMs`).
 *
 * Returns the last response (a 429 or 5xx the caller turns into an `ApiError`), or throws the
 * last attempt's error: `TimeoutError`, `ConnectionError`, `RedirectError`,
 * `InvalidResponseError`, or the caller's abort reason.
 *
 * @example
 * const transport = withRetry(withTimeout(fetch, 30_000), { maxRetries: 2 });
 */
export function withRetry(fetch: FetchLike, options: RetryOptions = {}): FetchLike {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new RangeError(`maxRetries must be a whole number ≥ 0, got ${maxRetries}`);
  }
  const { onAttempt, describe, random = Math.random, sleep = abortableSleep } = options;

  return async function fetchWithRetry(original: Request, init?: RequestInit): Promise<Response> {
    const signal = original.signal;
    const described = describe?.(original);
    const operation: Operation = described ? { method: described.method, path: described.path } : operationOf(original);
    const secrets = secretsOfRequest(original);
    rememberOperation(original, operation);
    // A body can be read once: read it once here and send the same bytes with every attempt
    // (cheaper than a clone per attempt, which tees the stream). Without retries, or without
    // a body, the request goes as it is.
    const attemptInit = original.body === null || maxRetries === 0 ? init : { ...init, body: await original.arrayBuffer() };

    for (let attempt = 1; ; attempt++) {
      if (signal.aborted) throw signal.reason;
      const startedMs = performance.now();
      let response: Response | undefined;
      let error: unknown;
      let outcome: AttemptOutcome;
      // The attempt's copy of the request follows the caller's signal only while the original
      // is reachable (see internal/hold.ts).
      const release = hold(original);
      try {
        response = await fetch(original, attemptInit);
        outcome = { kind: "status", status: response.status };
      } catch (thrown) {
        error = signal.aborted ? signal.reason : ConnectionError.from(thrown, { phase: "request", operation, secrets });
        outcome = signal.aborted ? { kind: "other" } : outcomeOf(error);
      } finally {
        release();
      }
      const decision = decideRetry({
        method: original.method,
        outcome,
        attempt,
        maxRetries,
        retryAfter: response?.headers.get("retry-after"),
        random,
      });
      if (onAttempt) emitLogEvent(onAttempt, logEvent(operation, attempt, startedMs, response, error, decision, secrets));

      if (!decision.retry) {
        if (response === undefined) throw error;
        attachSecrets(response, secrets);
        return response;
      }
      // Release the connection of a response we will not read (withTimeout has already read it).
      await response?.body?.cancel().catch(() => undefined);
      await sleep(decision.delayMs, signal);
    }
  };
}

/** What the policy needs to know about a thrown error. */
function outcomeOf(error: unknown): AttemptOutcome {
  if (error instanceof TimeoutError) return { kind: "timeout" };
  if (error instanceof ConnectionError) return { kind: "connection", requestSent: error.requestSent };
  // RedirectError, InvalidResponseError and anything else: the same request gets the same answer.
  return { kind: "other" };
}

function logEvent(
  operation: Operation,
  attempt: number,
  startedMs: number,
  response: Response | undefined,
  error: unknown,
  decision: ReturnType<typeof decideRetry>,
  secrets: readonly string[],
): RequestLogEvent {
  const event: RequestLogEvent = {
    method: operation.method,
    path: operation.path,
    attempt,
    durationMs: Math.round(performance.now() - startedMs),
    willRetry: decision.retry,
  };
  if (response) event.status = response.status;
  const requestId = response?.headers.get("x-request-id");
  if (requestId) event.requestId = requestId;
  if (response === undefined) {
    const name = error instanceof Error ? error.name : typeof error;
    const message = error instanceof Error ? error.message : String(error);
    event.error = { name, message: redact(message, secrets) };
  }
  if (decision.retry) event.retryDelayMs = decision.delayMs;
  return event;
}
