/**
 * The optional logger hook: one event per attempt, after it ends. Events carry the method
 * and the path *template* (`/users/{id}/`, not `/users/42/`), never a header, a query
 * string, a body or the token, so they can go to any log sink as they are.
 */
import { errorFromResponse, StoreAdminError, type ContractDrift, type Operation } from "./errors.js";
import { bodyDetail, driftWords } from "./error-messages.js";
import { clip, describe } from "./redact.js";
import { requestIdOf } from "./request-id.js";
import type { RetryDecision } from "./retry-policy.js";

/** One attempt of one request, reported when it ends. */
export interface RequestLogEvent {
  /** HTTP method, e.g. `"POST"`. */
  method: string;
  /** Path template of the operation (`/users/{id}/`); the URL pathname when the operation is unknown. */
  path: string;
  /** The response status, when a response arrived. */
  status?: number;
  /** 1 for the first attempt, 2 for the first retry, … */
  attempt: number;
  /** Time from sending to the whole body received (or to the failure), in milliseconds. */
  durationMs: number;
  /**
   * The failure (token redacted): what the attempt threw; for an error status, the class of the
   * error it makes (`NotFoundError`) and the store's `detail` (empty when the body has none).
   */
  error?: { name: string; message: string };
  /** Whether the SDK is about to send the request again. */
  willRetry: boolean;
  /** How long it waits first, when `willRetry`. */
  retryDelayMs?: number;
  /**
   * Why a failed attempt is not sent again: its method is not idempotent (`not-idempotent`: a
   * POST or PATCH answered 5xx, or cut off), the retries are used up, the server asked for a
   * wait over the cap (`retry-after-too-long`), or retrying cannot change the answer (`not-retryable`).
   */
  notRetried?: "not-idempotent" | "retries-exhausted" | "retry-after-too-long" | "not-retryable";
  /** How long the attempt waited, before it started, for the client's pause after a 429 (client-wide; omitted when it did not wait). */
  pausedMs?: number;
  /** The server's `x-request-id` (or `request-id`), when it sent one. */
  requestId?: string;
  /**
   * With `validateResponses`: where the attempt's 2xx body drifted from the contract (types
   * only, never a value), on the attempt's own event. Each drift once per operation, pointer
   * and type received per process: an attempt whose drifts were all logged before has none.
   */
  drifts?: readonly ContractDrift[];
  /** How many more drifts the body had past the 10 the check keeps (with `drifts` only). */
  moreDrifts?: number;
}

/** What the validateResponses() plugin (plugins/validate-responses.ts) leaves for an attempt's event, by its response. */
interface DriftNote {
  drifts: readonly ContractDrift[];
  moreDrifts: number;
}

const driftNotes = new WeakMap<Response, DriftNote>();

/** Leaves `note` for the event of the attempt that read `response`. */
export function noteDrifts(response: Response, note: DriftNote): void {
  driftNotes.set(response, note);
}

/**
 * Receives a {@link RequestLogEvent} per attempt. Called synchronously and not awaited; an
 * exception it throws and a promise it rejects are ignored, so logging can never change what
 * a request does.
 *
 * @example
 * createStoreAdminClient({ …, logger: (event) => console.log(formatLogEvent(event)) });
 */
export type Logger = (event: RequestLogEvent) => unknown;

const ignore = (): void => undefined;

/** Calls `logger` with the event `report` makes, ignoring anything either throws or rejects. */
export function emitLogEvent(logger: Logger, report: () => RequestLogEvent): void {
  try {
    // An async logger's rejection would otherwise be unhandled, which ends a Node process.
    void Promise.resolve(logger(report())).catch(ignore);
  } catch {
    // A broken logger must not turn a successful request into a failed one.
  }
}

/** What `formatLogEvent` says of each `notRetried` reason (`not-retryable`: the status or the error says it). */
const NOT_RETRIED: Record<string, string> = {
  "not-idempotent": "is not idempotent",
  "retries-exhausted": "attempts used up",
  "retry-after-too-long": "Retry-After over 60 s",
};

/**
 * One line for an event: `POST /subscriptions/{id}/renew/ 503 attempt 1 12 ms`, followed by
 * the wait in the client's pause, the request id, the error, and the retry plan or why there is
 * none (`not retried: POST is not idempotent`), when there are any.
 */
export function formatLogEvent(event: RequestLogEvent): string {
  const parts = [event.method, event.path];
  const { error, notRetried } = event;
  if (event.status !== undefined) parts.push(String(event.status));
  parts.push(`attempt ${event.attempt}`, `${event.durationMs} ms`);
  if (event.pausedMs) parts.push(`paused ${event.pausedMs} ms`);
  if (event.requestId) parts.push(`request-id ${event.requestId}`);
  if (error) parts.push(error.message ? `${error.name}: ${error.message}` : error.name);
  // A strict check's error names the first drift already; "report" throws nothing, the drifts say it.
  else if (event.drifts?.length)
    parts.push(
      `contract drift: ${event.drifts.map(driftWords).join("; ")}${event.moreDrifts ? ` (and ${event.moreDrifts} more)` : ""}`,
    );
  if (event.willRetry) parts.push(`retrying in ${event.retryDelayMs ?? 0} ms`);
  const why = NOT_RETRIED[notRetried!];
  if (why) parts.push(`not retried: ${why[0] === "i" ? `${event.method} ` : ""}${why}`);
  return parts.join(" ");
}

/** What an attempt ended with, for {@link attemptEvent}. */
interface AttemptReport {
  operation: Operation;
  attempt: number;
  startedMs: number;
  /** The response, when one arrived and was read. */
  response?: Response | undefined;
  /** The parsed body of an error response (openapi-fetch's `error`). */
  body?: unknown;
  /** What the attempt threw, when no response was read. */
  error?: unknown;
  decision: RetryDecision;
  secrets: readonly string[];
  pausedMs: number;
}

/**
 * The event for one attempt. What the server sent (`x-request-id`) and foreign errors'
 * messages are scrubbed of the token and of control characters; the SDK's own messages already are.
 */
export function attemptEvent({
  operation,
  attempt,
  startedMs,
  response,
  body,
  error,
  decision,
  secrets,
  pausedMs,
}: AttemptReport): RequestLogEvent {
  const event: RequestLogEvent = {
    method: operation.method,
    path: operation.path,
    attempt,
    durationMs: Math.round(performance.now() - startedMs),
    willRetry: decision.retry,
  };
  if (response) {
    const { status, headers } = response;
    event.status = status;
    const requestId = requestIdOf(headers, secrets);
    if (requestId) event.requestId = clip(requestId, secrets);
    if (status >= 400)
      event.error = {
        name: errorFromResponse({ status, body, headers }).name,
        message: bodyDetail(body, secrets) ?? "",
      };
  } else {
    const name = error instanceof Error ? error.name : typeof error;
    const message = error instanceof Error ? error.message : describe(error);
    event.error = { name, message: error instanceof StoreAdminError ? message : clip(message, secrets) };
  }
  if (decision.retry) event.retryDelayMs = decision.delayMs;
  else if (event.error) event.notRetried = decision.reason;
  if (pausedMs) event.pausedMs = pausedMs;
  // A strict check throws ContractDriftError, which holds the response (not enumerable).
  const drifted =
    response ?? (error instanceof StoreAdminError ? (error as { response?: Response }).response : undefined);
  const note = drifted && driftNotes.get(drifted);
  if (note) {
    event.drifts = note.drifts;
    if (note.moreDrifts) event.moreDrifts = note.moreDrifts;
  }
  return event;
}

/**
 * What `STORE_ADMIN_LOG` (client/env-logger.ts) prints to stderr (`console.error`), one line per attempt in
 * {@link formatLogEvent}'s format (method, path template, status, attempt, duration,
 * request id, the error and the retry plan; never a header, a query, a body or the token):
 *
 * - `warn`: the attempts that end a call with an error (an error status or a thrown error, no retry left), and a body's drift from the contract (`validateResponses`);
 * - `info`: those, and every attempt that is retried;
 * - `debug`: every attempt, successes too.
 *
 * Any other value prints one warning line, once per process, and nothing else.
 */
const LEVELS = ["warn", "info", "debug"];

let warned = false;

/** Prints `event` when `level` asks for it. */
export function printEnvLog(level: string, event: RequestLogEvent): void {
  const rank = LEVELS.indexOf(level.trim().toLowerCase());
  if (rank < 0) {
    if (!warned)
      console.error(
        `store-admin-sdk: STORE_ADMIN_LOG=${JSON.stringify(level)} is not one of ${LEVELS.join(", ")}; nothing is logged.`,
      );
    warned = true;
    return;
  }
  const failed = event.error !== undefined || (event.status ?? 0) >= 400 || event.drifts !== undefined;
  const shown = event.willRetry ? 1 : failed ? 0 : 2;
  // Tagged: the line goes to a process's stderr among others.
  if (rank >= shown) console.error(`store-admin-sdk: ${formatLogEvent(event)}`);
}
