/**
 * How the messages of `errors.ts` are worded: reason phrases, the detail taken from an error
 * body, the validation list of a 422, and the next step to suggest for each status.
 * Not exported from the package.
 */

import { isIdempotent, parseRetryAfterMs } from "./retry-policy.js";
import { clip } from "./redact.js";

/** The operation an error belongs to: HTTP method and path template, e.g. `{ method: "GET", path: "/users/{id}/" }`. */
export interface Operation {
  method: string;
  path: string;
}

/** One invalid field, as a validating server (Prism) reports it. */
export interface ValidationIssue {
  /** Where the problem is, e.g. `["body", "title"]`. */
  location: string[];
  message: string;
  code?: string | number;
  severity?: string;
}

/**
 * Reason phrases of RFC 9110 §15 for the statuses this API, its proxies and the testing kit send (HTTP/2 sends
 * none, so `statusText` cannot be relied on); any other reads "Client Error" or "Server Error".
 */
const REASON_PHRASES: Readonly<Record<number, string>> = {
  200: "OK",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

/** The share of a message an HTML page's summary gets (other server text: 300 characters, `clip()`). */
const MAX_HTML_SUMMARY_CHARS = 80;

export function reasonPhrase(status: number): string {
  return REASON_PHRASES[status] ?? (status >= 500 ? "Server Error" : status >= 400 ? "Client Error" : "");
}

export function prefix(operation: Operation | undefined): string {
  return operation ? `[${operation.method} ${operation.path}] ` : "";
}

export function statusMessage(
  status: number,
  body: unknown,
  headers: Headers,
  operation: Operation | undefined,
  required: RequiredScopes | undefined,
  path: string | undefined,
  secrets: readonly string[],
): string {
  const fields = status === 422 ? validationSummary(body, secrets) : undefined;
  const detail = fields || bodyDetail(body, secrets);
  // The lookbehind makes the match start only at the first dot of a run: linear.
  const head = `${status} ${reasonPhrase(status)}`.trim() + (detail ? `: ${detail.replace(/(?<!\.)\.+$/, "")}` : "");
  // "Fix the fields named above" only where some are.
  const next =
    status === 422 && !fields
      ? "The store named no field: check the body against the operation's request schema."
      : nextStep(status, headers, operation, required, path);
  return next ? `${head}. ${next}` : `${head}.`;
}

/** What an operation's security asks (OpenAPI): alternatives, each of scopes all needed; `[]` no authentication, `[[]]` a token with no scope. */
export type RequiredScopes = readonly (readonly string[])[];

/** `a`, `a and b`, `a, b and c`. */
const all = (words: readonly string[]): string =>
  words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)!}`;

/**
 * The requirement in words, each scope written by `quote`: "no authentication", "no scope",
 * "a", "a and b", "a or b", "a and b, or c". The generators say it so too (scripts/contract-model.ts).
 */
export function requirementInWords(
  required: RequiredScopes,
  quote: (scope: string) => string = (scope) => `"${scope}"`,
): string {
  if (required.length === 0) return "no authentication";
  if (required.some((scopes) => scopes.length === 0)) return "no scope";
  const alternatives = required.map((scopes) => all(scopes.map(quote)));
  return alternatives.join(required.some((scopes) => scopes.length > 1) && required.length > 1 ? ", or " : " or ");
}

/** What a 403 means, by what the operation requires ("a and b", "a or b", "no scope", "no authentication"). */
function forbiddenAdvice(required: RequiredScopes | undefined): string {
  if (required === undefined) return "The access token lacks the scope this operation requires.";
  const words = requirementInWords(required);
  if (required.length === 1 && required[0]!.length === 1)
    return `The access token lacks the scope ${words} this operation requires: use a token that holds it.`;
  if (required.length === 0 || words === "no scope")
    return `The store refused the request, though this operation requires ${words === "no scope" ? "no particular scope" : "no authentication"}: the token may be revoked or barred from this resource.`;
  const several = required.length === 1;
  return `The access token lacks the scopes this operation requires (${words}): use a token that holds ${several ? "all of them" : "one of these"}.`;
}

/** The next step for the statuses whose advice is fixed. */
const ADVICE: Readonly<Record<number, string>> = {
  400: "Check the parameters and body.",
  401: "Check the access token: it is missing, malformed, expired or revoked.",
  409: "Fetch the resource and retry with its current state.",
  422: "Fix the fields named above.",
};

/** What the caller should do next, by status. */
function nextStep(
  status: number,
  headers: Headers,
  operation: Operation | undefined,
  required: RequiredScopes | undefined,
  path: string | undefined,
): string {
  if (status === 403) return forbiddenAdvice(required);
  if (status === 404)
    return `Check the ids in the path, and that baseUrl (or apiUrl) is the store's API address${path ? ` (requested ${path})` : ""}.`;
  if (status === 429) {
    const retryAfterMs = parseRetryAfterMs(headers.get("retry-after"));
    return retryAfterMs === undefined
      ? "Rate limited: wait before calling again."
      : `Rate limited: retry after ${Math.ceil(retryAfterMs / 1000)} s.`;
  }
  if (status >= 500) {
    return operation && !isIdempotent(operation.method)
      ? "The server failed; the request was not resent: check whether it took effect before calling again."
      : "The server failed; try again later.";
  }
  return ADVICE[status] ?? "";
}

/** A short, single-line detail from an error body: `detail`, `message`, `title` or `error`. */
export function bodyDetail(body: unknown, secrets: readonly string[]): string | undefined {
  if (typeof body === "string") {
    const text = body.trim();
    if (!text) return undefined;
    if (/^<(!doctype|!--|html|head|body|title|\?xml)/i.test(text)) return htmlSummary(text, secrets);
    return clip(text, secrets);
  }
  if (body === null || typeof body !== "object") return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ["detail", "message", "title", "error", "error_description"]) {
    const value = record[key];
    if (typeof value === "string" && value.trim()) return clip(value, secrets);
    if (value && typeof value === "object" && typeof (value as { message?: unknown }).message === "string") {
      return clip((value as { message: string }).message, secrets);
    }
  }
  return undefined;
}

export function validationIssues(body: unknown): ValidationIssue[] {
  const list = body && typeof body === "object" ? (body as { validation?: unknown }).validation : undefined;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item): ValidationIssue[] => {
    if (!item || typeof item !== "object") return [];
    const { location, message, code, severity } = item as Record<string, unknown>;
    const issue: ValidationIssue = {
      location: Array.isArray(location) ? location.map(String) : [],
      message: typeof message === "string" ? message : "invalid",
    };
    if (typeof code === "string" || typeof code === "number") issue.code = code;
    if (typeof severity === "string") issue.severity = severity;
    return [issue];
  });
}

function validationSummary(body: unknown, secrets: readonly string[]): string | undefined {
  const issues = validationIssues(body);
  if (issues.length === 0) return undefined;
  return clip(issues.map((issue) => `${issue.location.join(".") || "request"}: ${issue.message}`).join("; "), secrets);
}

/**
 * An HTML error page (a proxy's, a login page) in a few words: its title, else its first text.
 * Each pattern is linear: a tag ends at the next `<` or `>`, an unclosed script or style ends
 * the text, so no position is scanned twice however hostile the page (an error body is at
 * most 64 K characters: `BODY_BUDGET`).
 */
function htmlSummary(html: string, secrets: readonly string[]): string {
  const title = /<title[^<>]*>([^<]*)/i.exec(html)?.[1];
  const text = title?.trim() ? title : html.replace(/<(script|style)\b[^]*?(<\/\1\s*>|$)|<[^<>]*>/gi, " ");
  const summary = clip(text.replace(/&nbsp;/g, " "), secrets, MAX_HTML_SUMMARY_CHARS);
  return `the server sent an HTML page, not JSON${summary ? ` ("${summary}")` : ""}`;
}

/**
 * Where a 2xx body does not match the contract: a JSON pointer with array indices as `*`
 * (`/results/3/email` is reported as `/results/` `*` `/email`, one pointer for every item), what the contract allows there (`string or null`, `one of "open",
 * "closed"`, `required`, `format "email"`) and the JSON type that came (`null`, `missing`).
 * Never the value: bodies carry customers' data.
 */
export interface ContractDrift {
  pointer: string;
  expected: string;
  received: string;
}

/** A drift in words for a reader: `/id is missing, though the contract requires it`, `/email is null, where the contract expects string`. */
export function driftWords({ pointer, expected, received }: ContractDrift): string {
  const where = pointer || "the body";
  if (received === "missing") return `${where} is missing, though the contract requires it`;
  const article = received === "null" ? "" : /^[aeiou]/.test(received) ? "an " : "a ";
  return `${where} is ${article}${received}, where the contract expects ${expected}`;
}

/** `200 OK body does not match the contract: /email is null, where the contract expects string (and 2 more). …` */
export function driftMessage(status: number, drifts: readonly ContractDrift[], moreDrifts = 0): string {
  const [first] = drifts;
  const where = first ? `: ${driftWords(first)}` : "";
  const others = drifts.length - 1 + moreDrifts;
  const more = others > 0 ? ` (and ${others} more)` : "";
  return `${status} ${reasonPhrase(status)} body does not match the contract${where}${more}. The store changed, or the contract is behind it: validateResponses "report" logs this and returns the data.`;
}
