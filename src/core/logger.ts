/**
 * The optional logger hook: one event per attempt, after it ends. Events carry the method
 * and the path *template* (`/users/{id}/`, not `/users/42/`), never a header, a query
 * string, a body or the token, so they can go to any log sink as they are.
 */
import { StoreAdminError, type ContractDrift, type Operation } from "./errors.js";
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
  /** The failure, when the attempt threw (token redacted). */
  error?: { name: string; message: string };
  /** Whether the SDK is about to send the request again. */
  willRetry: boolean;
  /** How long it waits first, when `willRetry`. */
  retryDelayMs?: number;
  /** The server's `x-request-id` (or `request-id`), when it sent one. */
  requestId?: string;
  /**
   * With `validateResponses`: where the attempt's 2xx body drifted from the contract (types
   * only, never a value). An event of its own, once per operation and pointer per process,
   * whose `error` is `ContractDriftError` and the drift in words, so that it prints at `warn`.
   */
  drift?: ContractDrift;
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

/**
 * One line for an event: `POST /subscriptions/{id}/renew/ 503 attempt 1 12 ms`, followed by
 * the error and the retry plan when there are any.
 */
export function formatLogEvent(event: RequestLogEvent): string {
  const parts = [event.method, event.path];
  if (event.status !== undefined) parts.push(String(event.status));
  parts.push(`attempt ${event.attempt}`, `${event.durationMs} ms`);
  if (event.requestId) parts.push(`request-id ${event.requestId}`);
  if (event.error) parts.push(`${event.error.name}: ${event.error.message}`);
  if (event.willRetry) parts.push(`retrying in ${event.retryDelayMs ?? 0} ms`);
  return parts.join(" ");
}

/** What an attempt ended with, for {@link attemptEvent}. */
interface AttemptReport {
  operation: Operation;
  attempt: number;
  startedMs: number;
  /** The response, when one arrived and was read. */
  response?: Response | undefined;
  /** What the attempt threw, when no response was read. */
  error?: unknown;
  decision: RetryDecision;
  secrets: readonly string[];
}

/**
 * The event for one attempt. What the server sent (`x-request-id`) and foreign errors'
 * messages are scrubbed of the token and of control characters; the SDK's own messages already are.
 */
export function attemptEvent({ operation, attempt, startedMs, response, error, decision, secrets }: AttemptReport): RequestLogEvent {
  const event: RequestLogEvent = {
    method: operation.method,
    path: operation.path,
    attempt,
    durationMs: Math.round(performance.now() - startedMs),
    willRetry: decision.retry,
  };
  if (response) {
    event.status = response.status;
    const requestId = requestIdOf(response.headers, secrets);
    if (requestId) event.requestId = clip(requestId, secrets);
  } else {
    const name = error instanceof Error ? error.name : typeof error;
    const message = error instanceof Error ? error.message : describe(error);
    event.error = { name, message: error instanceof StoreAdminError ? message : clip(message, secrets) };
  }
  if (decision.retry) event.retryDelayMs = decision.delayMs;
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
    if (!warned) console.error(`store-admin-sdk: STORE_ADMIN_LOG=${JSON.stringify(level)} is not one of ${LEVELS.join(", ")}; nothing is logged.`);
    warned = true;
    return;
  }
  const failed = event.error !== undefined || (event.status ?? 0) >= 400;
  const shown = event.willRetry ? 1 : failed ? 0 : 2;
  if (rank >= shown) console.error(formatLogEvent(event));
}
