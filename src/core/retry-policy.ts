/**
 * Deciding whether and when to retry, kept apart from doing it (the attempt loop of `client/request.ts`), as in
 * Octokit's plugin-retry (`src/error-request.ts` decides, `src/wrap-request.ts` schedules).
 * Everything here is pure: the clock and the random source are parameters.
 */

/** How long the client waits before the first retry when the server gives no hint. */
export const INITIAL_RETRY_DELAY_MS = 500;

/** Upper bound of the exponential backoff (not of a server's `Retry-After`). */
export const MAX_RETRY_DELAY_MS = 8_000;

/**
 * Share of the backoff removed at random, so that clients that failed together do not
 * retry together. 0.25 → each delay is 75–100 % of the exponential value.
 */
export const JITTER_RATIO = 0.25;

/**
 * Longest `Retry-After` the SDK waits out on its own. A server that asks for more is
 * telling the caller to come back later, not to hold a connection's worth of work asleep:
 * the 429 (or 503) is returned to the caller, who can read `RateLimitError.retryAfterMs`.
 * openai-node makes the same 60 s cut; there, longer hints fall back to the backoff,
 * which would send a request the server already said it will refuse.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Methods that RFC 9110 §9.2.2 defines as idempotent: sending one twice has the same
 * effect as sending it once, so a retry after an ambiguous failure cannot duplicate work.
 * https://www.rfc-editor.org/rfc/rfc9110#section-9.2.2
 * POST and PATCH are absent on purpose: POST /subscriptions/{id}/renew/ sent twice
 * creates two renewal orders.
 */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

/** What one attempt ended with, as far as the policy needs to know. */
export type AttemptOutcome =
  /** A response arrived with this status. */
  | { kind: "status"; status: number }
  /** The attempt ran out of `timeoutMs`; the request may have reached the server. */
  | { kind: "timeout" }
  /**
   * The network failed. `requestSent`: `"no"` when the connection was refused before a
   * byte was sent, `"maybe"` when it broke before a response, `"yes"` when it broke while
   * the response body was being read.
   */
  | { kind: "connection"; requestSent: "no" | "maybe" | "yes" }
  /** Anything else (redirect, invalid body, a bug): retrying cannot help. */
  | { kind: "other" };

/** Whether `method` is idempotent per RFC 9110 §9.2.2 (case-insensitive). */
export function isIdempotent(method: string): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase());
}

/**
 * Whether an attempt that ended with `outcome` may be sent again, ignoring how many
 * attempts were made (see {@link decideRetry} for the whole decision).
 */
export function isRetryable(
  method: string,
  outcome: AttemptOutcome,
  idempotent: boolean = isIdempotent(method),
): boolean {
  switch (outcome.kind) {
    case "status":
      // 429 Too Many Requests (RFC 6585 §4): a rate limiter refuses the request before
      // any handler runs, so resending cannot duplicate work, whatever the method.
      // https://www.rfc-editor.org/rfc/rfc6585#section-4
      if (outcome.status === 429) return true;
      // 408 Request Timeout (RFC 9110 §15.5.9) and 5xx: the server may have acted on the
      // request before failing, so only an idempotent request can be resent safely.
      // https://www.rfc-editor.org/rfc/rfc9110#section-15.5.9
      if (outcome.status === 408 || outcome.status >= 500) return idempotent;
      // Every other status is the server's considered answer; sending it again gets the same.
      return false;
    case "timeout":
      // The request may have been received and acted on; only idempotent ones are resent.
      return idempotent;
    case "connection":
      // Refused before anything was sent: the server never saw it, any method is safe.
      if (outcome.requestSent === "no") return true;
      // A reset or a cut body: the server may have acted on it.
      return idempotent;
    case "other":
      return false;
  }
}

/**
 * Parses `Retry-After` (RFC 9110 §10.2.3): either delay-seconds or an HTTP-date.
 * https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3
 * Fractional seconds are accepted (some servers and test suites send `0.5`). A date in the
 * past means "now" (0). A header a proxy joined (`3600, 3600`) is read by its first value.
 * Returns `undefined` for a missing, negative or unreadable value (digits beyond a double's range included).
 */
export function parseRetryAfterMs(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  // The first value: up to a comma, except the one inside an HTTP-date ("Wed, 21 Oct 2015 …").
  const text = /^\s*(\w{3},)?[^,]*/.exec(value)![0].trim();
  if (text === "") return undefined;
  // delay-seconds; a number too large for a double (400 digits) is as unreadable as any other text.
  const seconds = Number(text);
  if (/^\d+(\.\d+)?$/.test(text) && seconds < Infinity) return Math.round(seconds * 1000);
  // delay-seconds are digits only, so anything else must be an HTTP-date to be valid.
  if (/^[+-]?[\d.]+$/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * How long to wait before retry number `retry` (1 for the first retry).
 *
 * - A readable `Retry-After` is honoured exactly (the server knows best).
 * - Otherwise: `min(INITIAL_RETRY_DELAY_MS · 2^(retry−1), MAX_RETRY_DELAY_MS) · (1 − JITTER_RATIO · random())`,
 *   that is 375–500 ms, 750–1000 ms, 1.5–2 s, … up to 6–8 s: the same curve as the Stainless
 *   SDKs' `min(0.5·2ⁿ, 8 s)` with up to 25 % jitter.
 *
 * @param random returns a number in [0, 1); injected by tests.
 */
export function retryDelayMs(
  retry: number,
  retryAfter?: string | null,
  now: number = Date.now(),
  random: () => number = Math.random,
): number {
  const hintMs = parseRetryAfterMs(retryAfter, now);
  if (hintMs !== undefined) return hintMs;
  const exponentialMs = Math.min(INITIAL_RETRY_DELAY_MS * 2 ** Math.max(0, retry - 1), MAX_RETRY_DELAY_MS);
  return Math.round(exponentialMs * (1 - JITTER_RATIO * random()));
}

/** The decision {@link decideRetry} returns; `reason` says why not, for logs and tests. */
export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; reason: "not-retryable" | "not-idempotent" | "retries-exhausted" | "retry-after-too-long" };

/** Everything {@link decideRetry} looks at. */
interface RetryQuestion {
  method: string;
  /** Whether a resend cannot duplicate work: the method's (RFC 9110), unless a plugin made the call safe to resend (an idempotency key). */
  idempotent?: boolean | undefined;
  outcome: AttemptOutcome;
  /** Attempts made so far, including the one that just ended (1 after the first). */
  attempt: number;
  maxRetries: number;
  /** The response's `Retry-After` header, if any; read only when the outcome may be retried. */
  retryAfter?: string | null;
  now?: number;
  random?: () => number;
}

/** The whole retry decision: the rules of {@link isRetryable}, the attempt budget and the `Retry-After` cap. */
export function decideRetry(question: RetryQuestion): RetryDecision {
  const { method, outcome, attempt, maxRetries } = question;
  // `not-idempotent`: the same outcome of a GET would be retried.
  const idempotent = question.idempotent ?? isIdempotent(method);
  if (!isRetryable(method, outcome, idempotent))
    return { retry: false, reason: isRetryable("GET", outcome) ? "not-idempotent" : "not-retryable" };
  if (attempt > maxRetries) return { retry: false, reason: "retries-exhausted" };
  // An absent `now` or `random` takes retryDelayMs()'s default.
  const delayMs = retryDelayMs(attempt, question.retryAfter, question.now, question.random);
  if (delayMs > MAX_RETRY_AFTER_MS) return { retry: false, reason: "retry-after-too-long" };
  return { retry: true, delayMs };
}
