/**
 * Every error the SDK throws, and the one place where a returned error (openapi-fetch's
 * `{ error, response }`) becomes a thrown one: {@link errorFromResponse}.
 *
 * Shape after the Stainless SDKs (`src/core/error.ts`): one base class, `ApiError` for
 * HTTP error statuses with one-line subclasses chosen by a factory, and status-less
 * classes for the network. Messages read `[METHOD /path/template] 404 Not Found: <detail>.
 * <what to do next>`. The secrets of the call are passed in (`secrets`), and everything that
 * came from outside is scrubbed of them where it is put on an error (`redact.ts`):
 * the body, headers, `requestId`, server text in a message, `cause`. The SDK's own words are
 * not, so a short token cannot garble them. `toJSON()` gives every field but `headers` (and
 * `ContractDriftError`'s `body`: a success body is customers' data).
 */

import { isIdempotent, parseRetryAfterMs } from "./retry-policy.js";
import {
  driftMessage,
  prefix,
  reasonPhrase,
  statusMessage,
  validationIssues,
  type ContractDrift,
  type Operation,
  type RequiredScopes,
  type ValidationIssue,
} from "./error-messages.js";
import {
  causeCodes,
  clip,
  redact,
  REDACTED,
  redactDeep,
  redactHeaders,
  sanitizeCause,
  summarizeCause,
} from "./redact.js";
import { requestIdOf } from "./request-id.js";

export type { ContractDrift, Operation, ValidationIssue };

/** Options shared by every SDK error. */
interface StoreAdminErrorOptions {
  operation?: Operation | undefined;
  cause?: unknown;
  /** Strings to scrub from `cause` and from whatever the server sent (the caller's credentials). */
  secrets?: readonly string[] | undefined;
}

// Fields are `declare`d and set in the constructors: the same own properties, in the same order,
// without a class field's declaration in the bundle.

/**
 * Base class of every error the SDK throws. `catch (e) { if (e instanceof StoreAdminError) … }`
 * catches them all; the abort reason of a caller's own `AbortSignal` is rethrown as is.
 */
export class StoreAdminError extends Error {
  override name = "StoreAdminError";
  /** The operation that failed, when known. */
  declare readonly operation: Operation | undefined;

  constructor(message: string, options: StoreAdminErrorOptions = {}) {
    const secrets = options.secrets ?? [];
    const cause = sanitizeCause(options.cause, secrets);
    // The message is the SDK's own words: whatever came from outside was scrubbed where it was inserted.
    super(prefix(options.operation) + message, cause === undefined ? undefined : { cause });
    this.operation = options.operation;
  }

  /**
   * The name, the message and every field of the error but `headers` (a response header can
   * carry a cookie). Errors hold nothing of the request, so every other field is safe to log:
   * a field added to an error class must be too.
   */
  toJSON(): Record<string, unknown> {
    const { headers: _headers, ...fields } = this as unknown as Record<string, unknown>;
    return { name: this.name, message: this.message, ...fields };
  }
}

// ─── HTTP error statuses ────────────────────────────────────────────────────────────

/** What {@link errorFromResponse} needs; `body` is the parsed error body (JSON or text). */
interface ErrorResponseInput {
  status: number;
  body: unknown;
  /** The response headers (`response.headers`). */
  headers: Headers;
  operation?: Operation | undefined;
  /** The scope the operation requires, when it requires exactly one. */
  scope?: string | undefined;
  /** What the operation requires, named in the 403 message: alternatives, each a set of scopes all needed (`[["a"]]` when `scope` is "a"). */
  requiredScopes?: RequiredScopes | undefined;
  /** The URL requested, if known: its path is named in a 404's advice. */
  url?: string | undefined;
  /** The credentials the request carried, scrubbed from everything the server sent. */
  secrets?: readonly string[] | undefined;
}

/**
 * Thrown for an HTTP error status (4xx, 5xx) that has no more specific subclass. Every
 * status error is an `ApiError`: check `status`, or `instanceof` a subclass.
 */
export class ApiError extends StoreAdminError {
  override name = "ApiError";
  /** The HTTP status code. */
  declare readonly status: number;
  /** The parsed error body (JSON value, or the text when not JSON), token scrubbed. */
  declare readonly body: unknown;
  /** The response headers (token scrubbed). */
  declare readonly headers: Headers;
  /** The scope the operation requires, when known and it requires exactly one (else see `requiredScopes`). */
  declare readonly scope: string | undefined;
  /**
   * What the operation requires, when known: alternatives (any one suffices), each a set of
   * scopes all needed. `[["users:read"]]` for one scope, `[["a", "b"]]` for two together,
   * `[["a"], ["b"]]` for either, `[[]]` for a token with no particular scope, `[]` for none.
   */
  declare readonly requiredScopes: RequiredScopes | undefined;
  /** The server's `x-request-id` (or `request-id`), to quote to the API's support. */
  declare readonly requestId: string | undefined;

  constructor(input: ErrorResponseInput) {
    const secrets = input.secrets ?? [];
    const body = redactDeep(input.body, secrets);
    const headers = redactHeaders(input.headers, secrets);
    const requiredScopes = input.requiredScopes ?? (input.scope === undefined ? undefined : [[input.scope]]);
    super(
      statusMessage(
        input.status,
        body,
        headers,
        input.operation,
        requiredScopes,
        requestedPath(input.url, secrets),
        secrets,
      ),
      {
        operation: input.operation,
        secrets,
      },
    );
    this.status = input.status;
    this.body = body;
    this.headers = headers;
    this.scope =
      input.scope ??
      (requiredScopes?.length === 1 && requiredScopes[0]!.length === 1 ? requiredScopes[0]![0] : undefined);
    this.requiredScopes = requiredScopes;
    this.requestId = requestIdOf(input.headers, secrets);
  }
}

/** Thrown for 400 Bad Request: the request is malformed. */
export class BadRequestError extends ApiError {
  override name = "BadRequestError";
}
/** Thrown for 401 Unauthorized: the access token is missing, malformed, expired or revoked. */
export class AuthenticationError extends ApiError {
  override name = "AuthenticationError";
}
/** Thrown for 403 Forbidden: the access token lacks the scope the operation requires (`scope`). */
export class PermissionDeniedError extends ApiError {
  override name = "PermissionDeniedError";
}
/** Thrown for 404 Not Found: no such resource, or not the API's address (check the ids and baseUrl). */
export class NotFoundError extends ApiError {
  override name = "NotFoundError";
}
/** Thrown for 409 Conflict: the resource is in a state that does not allow the change. */
export class ConflictError extends ApiError {
  override name = "ConflictError";
}
/** Thrown for 500 and every other 5xx, after the retries idempotent methods get. */
export class InternalServerError extends ApiError {
  override name = "InternalServerError";
}

/** Thrown for 422 Unprocessable Content: the request failed validation; `validation` lists each field. */
export class UnprocessableEntityError extends ApiError {
  override name = "UnprocessableEntityError";
  /** The invalid fields, from the body's `validation` list (empty when the server sent none). */
  readonly validation: ValidationIssue[] = validationIssues(this.body);
}

/**
 * Thrown for 429 Too Many Requests once retries are used up, or at once when the server's
 * `Retry-After` is longer than the SDK waits on its own (`MAX_RETRY_AFTER_MS`).
 */
export class RateLimitError extends ApiError {
  override name = "RateLimitError";
  /** How long the server asked to wait (from `Retry-After`), in milliseconds. */
  readonly retryAfterMs: number | undefined = parseRetryAfterMs(this.headers.get("retry-after"));
}

const ERROR_BY_STATUS: Readonly<Record<number, new (input: ErrorResponseInput) => ApiError>> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/**
 * The typed error for an HTTP error response: the subclass for its status, `InternalServerError`
 * for any 5xx, `ApiError` otherwise.
 *
 * @example
 * const { data, error, response } = await client.GET("/users/{id}/", { params: { path: { id } } });
 * if (error !== undefined || !response.ok) {
 *   throw errorFromResponse({ status: response.status, body: error, headers: response.headers, url: response.url,
 *     operation: { method: "GET", path: "/users/{id}/" }, scope: "users:read" });
 * }
 */
export function errorFromResponse(input: ErrorResponseInput): ApiError {
  const ErrorClass = ERROR_BY_STATUS[input.status] ?? (input.status >= 500 ? InternalServerError : ApiError);
  return new ErrorClass(input);
}

/**
 * The path of the requested URL, without its query. The path is the caller's, not the
 * server's: only a segment that is a secret is scrubbed, so a short token cannot garble it.
 */
function requestedPath(url: string | undefined, secrets: readonly string[]): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).pathname
      .split("/")
      .map((segment) => (secrets.includes(decodeURIComponent(segment)) ? REDACTED : segment))
      .join("/");
  } catch {
    return undefined;
  }
}

// ─── Network and protocol errors (no status, or a status that is not the problem) ───

/**
 * Thrown when an attempt exceeds `timeoutMs`, which covers connecting, sending and reading
 * the whole response body. Idempotent requests were retried before this is thrown.
 */
export class TimeoutError extends StoreAdminError {
  override name = "TimeoutError";
  /** The per-attempt limit that ran out, in milliseconds. */
  declare readonly timeoutMs: number;

  constructor(input: { timeoutMs: number; waitingForToken?: boolean } & StoreAdminErrorOptions) {
    const method = input.operation?.method ?? "";
    super(
      input.waitingForToken
        ? `timed out after ${input.timeoutMs} ms (timeoutMs) waiting for accessToken(); the request was not sent.`
        : `timed out after ${input.timeoutMs} ms (timeoutMs per attempt, body included). ` +
            (isIdempotent(method)
              ? "Raise timeoutMs if the server is slow."
              : "The request may have reached the server: check whether it took effect before calling again."),
      input,
    );
    this.timeoutMs = input.timeoutMs;
  }
}

/**
 * Thrown when the network fails: connection refused or reset, DNS failure, or a response
 * body cut off mid-stream. `cause` holds the runtime's error (scrubbed).
 */
export class ConnectionError extends StoreAdminError {
  override name = "ConnectionError";
  /**
   * Whether the server can have received the request: `"no"` (refused before sending),
   * `"maybe"` (broke before a response), `"yes"` (broke while reading the response body).
   */
  declare readonly requestSent: "no" | "maybe" | "yes";

  constructor(input: { requestSent: "no" | "maybe" | "yes" } & StoreAdminErrorOptions) {
    const summary = summarizeCause(input.cause);
    const reason = summary && clip(summary, input.secrets);
    const what = {
      no: "could not connect; nothing was sent",
      maybe: "the connection broke before a response; the server may have the request",
      yes: "the connection broke while the body was read; the server had the request",
    }[input.requestSent];
    const next =
      input.requestSent === "no"
        ? "Check the API address."
        : isIdempotent(input.operation?.method ?? "")
          ? "It is safe to call again."
          : "It was not resent: check whether it took effect before calling again.";
    super(`${what}${reason ? ` (${reason})` : ""}. ${next}`, input);
    this.requestSent = input.requestSent;
  }

  /**
   * The SDK error for anything a `fetch` threw: an SDK error as it is, else a
   * `ConnectionError`. `phase` says whether response headers had already arrived.
   */
  static from(
    error: unknown,
    context: { phase: "request" | "body" } & Omit<StoreAdminErrorOptions, "cause">,
  ): StoreAdminError {
    if (error instanceof StoreAdminError) return error;
    const requestSent =
      context.phase === "body" ? "yes" : causeCodes(error).some((code) => NOT_SENT_CODES.has(code)) ? "no" : "maybe";
    return new ConnectionError({ ...context, requestSent, cause: error });
  }
}

/**
 * Codes that mean the connection never opened, so nothing of the request was sent (safe to
 * resend whatever the method). undici (Node's fetch) puts them on `cause.code`; errors of
 * other runtimes carry no such code and count as "may have been sent".
 * https://nodejs.org/api/errors.html#common-system-errors
 */
const NOT_SENT_CODES: ReadonlySet<string> = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN"]);

/**
 * Thrown for a 2xx response whose body is not the JSON the API declares: invalid JSON,
 * an HTML page (a proxy or captive portal answered), or an empty body.
 */
export class InvalidResponseError extends StoreAdminError {
  override name = "InvalidResponseError";
  /** The HTTP status of the response, when known. */
  declare readonly status: number | undefined;

  constructor(input: { status?: number | undefined; problem: string } & StoreAdminErrorOptions) {
    const status = input.status === undefined ? "" : `${input.status} ${reasonPhrase(input.status)} `;
    super(
      `${status}with a body that is not the declared JSON: ${input.problem}. A proxy or login page may have answered: check baseUrl/apiUrl.`,
      input,
    );
    this.status = input.status;
  }
}

/**
 * The `InvalidResponseError` for a 2xx body that openapi-fetch could not parse. The parser's
 * message quotes the start of the body (`Unexpected token 's', "sk_live_ab"...`), which can be
 * a prefix of a secret no exact match finds, so the cause keeps only the position.
 */
export function invalidJson(
  operation: Operation,
  thrown: SyntaxError,
  status: number,
  secrets: readonly string[],
): InvalidResponseError {
  const position = /position \d+/.exec(thrown.message)?.[0];
  const cause = new SyntaxError(`the body is not valid JSON${position ? ` (at ${position})` : ""}`);
  return new InvalidResponseError({ status, problem: "it is not valid JSON", operation, cause, secrets });
}

/**
 * Thrown when a response body, decoded, grows past `maxResponseBytes` (2xx and error bodies
 * alike). Reading stops at the limit, so memory stays near it; the request is not resent.
 */
export class ResponseTooLargeError extends StoreAdminError {
  override name = "ResponseTooLargeError";
  /** The HTTP status of the response. */
  declare readonly status: number;
  /** The limit that was exceeded, in decoded bytes. */
  declare readonly maxResponseBytes: number;

  constructor(input: { status: number; maxResponseBytes: number } & StoreAdminErrorOptions) {
    super(
      `${input.status} ${reasonPhrase(input.status)} with a body over maxResponseBytes (${input.maxResponseBytes} bytes, decoded); reading stopped; not resent.`,
      input,
    );
    this.status = input.status;
    this.maxResponseBytes = input.maxResponseBytes;
  }
}

/**
 * Thrown for a 3xx response. The SDK never follows redirects: the request carried the
 * access token, and a redirect could lead it to another origin. `targetOrigin` names where
 * the server pointed (origin only: a full URL can carry secrets in its query).
 */
export class RedirectError extends StoreAdminError {
  override name = "RedirectError";
  /** The 3xx status (0 for a browser's opaque redirect). */
  declare readonly status: number;
  /** Origin of the `Location` header, when readable. */
  declare readonly targetOrigin: string | undefined;

  constructor(input: { status: number; targetOrigin?: string | undefined } & StoreAdminErrorOptions) {
    // The origin comes from the server's Location header: scrubbed like anything it sends.
    const targetOrigin = input.targetOrigin && redact(input.targetOrigin, input.secrets);
    super(
      `${input.status || "opaque"} redirect${targetOrigin ? ` to ${targetOrigin}` : ""} was not followed; the token was not sent there. If the API moved, update baseUrl/apiUrl.`,
      input,
    );
    this.status = input.status;
    this.targetOrigin = targetOrigin;
  }
}

/**
 * Thrown by `paginate()` when the pages themselves cannot be walked: a page without a
 * `results` array, a `next` link that is not a URL or carries no `cursor`, or a cursor the
 * server already sent (which would loop forever). The pages before it were yielded.
 */
export class PaginationError extends StoreAdminError {
  override name = "PaginationError";
  /** How many pages were read before the problem. */
  declare readonly pagesRead: number;

  constructor(input: { problem: string; pagesRead: number } & StoreAdminErrorOptions) {
    super(`pagination stopped after ${input.pagesRead} page(s): ${input.problem}.`, input);
    this.pagesRead = input.pagesRead;
  }
}

/**
 * Thrown with `validateResponses: "strict"` for a 2xx body that does not match the operation's
 * response schema (an enum value it does not list, a `null` it does not allow, a missing
 * required field, a wrong type, a broken format, pattern or length; an extra field is no drift).
 * Both call styles throw it, as openapi-fetch throws on a body it cannot parse; it is never
 * retried. The message names the first drift; `drifts` lists them (at most 10), types only.
 */
export class ContractDriftError extends StoreAdminError {
  override name = "ContractDriftError";
  /** The HTTP status of the response (2xx). */
  declare readonly status: number;
  /** The first drift: where, what the contract allows there, and the type that came. */
  declare readonly pointer: string;
  declare readonly expected: string;
  declare readonly received: string;
  /** Every drift found in the body (at most 10). */
  declare readonly drifts: readonly ContractDrift[];
  /** How many more drifts the body had past the 10 in `drifts` (counted, not kept). */
  declare readonly moreDrifts: number;
  /**
   * The parsed body, token scrubbed (as `ApiError` bodies are), copied when first read: a
   * report that never reads it costs no copy of a large page. Left out of `toJSON()`: a 2xx
   * body is customers' data, which a logged error must not carry.
   */
  declare readonly body: unknown;
  /** The server's `x-request-id` (or `request-id`), to quote to the API's support. */
  declare readonly requestId: string | undefined;
  /** The response, its body read. Not enumerable: its headers may carry a cookie, and a logged error must not show them. */
  declare readonly response: Response;

  constructor(
    input: {
      response: Response;
      body: unknown;
      drifts: readonly ContractDrift[];
      moreDrifts?: number;
    } & StoreAdminErrorOptions,
  ) {
    const { response, drifts } = input;
    const moreDrifts = input.moreDrifts ?? 0;
    super(driftMessage(response.status, drifts, moreDrifts), input);
    this.status = response.status;
    this.pointer = drifts[0]?.pointer ?? "";
    this.expected = drifts[0]?.expected ?? "";
    this.received = drifts[0]?.received ?? "";
    this.drifts = drifts;
    this.moreDrifts = moreDrifts;
    this.requestId = requestIdOf(response.headers, input.secrets);
    let body: { scrubbed: unknown } | undefined;
    Object.defineProperty(this, "body", {
      enumerable: true,
      get: () => (body ??= { scrubbed: redactDeep(input.body, input.secrets) }).scrubbed,
    });
    Object.defineProperty(this, "response", { value: response, enumerable: false });
  }

  /**
   * Every field but `headers` and `body`: the body of a success is customers' data (names,
   * emails), never logged. The fields are read one by one, so `body` is not copied to be dropped.
   */
  override toJSON(): Record<string, unknown> {
    const fields: Record<string, unknown> = { name: this.name, message: this.message };
    for (const key of Object.keys(this)) if (key !== "body") fields[key] = this[key as keyof this];
    return fields;
  }
}
