/**
 * Scrubbing credentials out of text, error bodies and `cause` chains before they are put
 * on an error the caller may log, print or serialise. Not exported from the package.
 */

/** What replaces a secret. */
export const REDACTED = "[REDACTED]";

/**
 * `Bearer <token>` anywhere in a text, whatever the token: a safety net for the case where
 * the exact token is not known (an error built far from the request).
 * RFC 6750 §2.1 b64token: https://www.rfc-editor.org/rfc/rfc6750#section-2.1
 */
const BEARER_CREDENTIALS = /\b(Bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi;

/** Levels of `cause` followed before giving up: a cycle must not hang us. */
const MAX_DEPTH = 8;

/** `text` with every `secret` and every `Bearer …` credential replaced by `[REDACTED]`. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret) out = out.split(secret).join(REDACTED);
  }
  return out.replace(BEARER_CREDENTIALS, `$1 ${REDACTED}`);
}

/**
 * A copy of a parsed JSON value with {@link redact} applied to every string in it, keys
 * included, however deep. Walked with a stack of its own, not recursion, so no nesting depth
 * overflows it; a key `__proto__` stays an own property and never sets a prototype.
 */
export function redactDeep(value: unknown, secrets: readonly string[] = []): unknown {
  const copies = new Map<object, object>();
  const pending: [object, Record<string, unknown>][] = [];
  const copyOf = (item: unknown): unknown => {
    if (typeof item === "string") return redact(item, secrets);
    if (item === null || typeof item !== "object") return item;
    let copy = copies.get(item);
    if (!copy) {
      copy = Array.isArray(item) ? [] : {};
      copies.set(item, copy);
      pending.push([item, copy as Record<string, unknown>]);
    }
    return copy;
  };
  const root = copyOf(value);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [from, to] = next;
    for (const [key, item] of Object.entries(from)) {
      Object.defineProperty(to, Array.isArray(to) ? key : redact(key, secrets), { value: copyOf(item), enumerable: true, writable: true, configurable: true });
    }
  }
  return root;
}

/** A copy of response headers with {@link redact} applied to every value (a server may echo the token). */
export function redactHeaders(headers: Headers, secrets: readonly string[]): Headers {
  const copy = new Headers();
  headers.forEach((value, name) => copy.append(name, redact(value, secrets)));
  return copy;
}

/** An `Error` that stands in for a foreign one: same name, message, code and stack, scrubbed. */
interface SanitizedCause extends Error {
  code?: string | number;
}

/**
 * A scrubbed copy of a thrown value and of its `cause` chain. Errors from `fetch` are
 * foreign objects: they keep only what is listed here (name, message, code, stack), with
 * secrets removed, so no header, socket or request object rides along on our errors.
 */
export function sanitizeCause(value: unknown, secrets: readonly string[] = [], depth = 0): unknown {
  if (value === undefined || value === null) return undefined;
  if (depth >= MAX_DEPTH) return undefined;
  if (!(value instanceof Error)) return redact(String(value), secrets);
  const inner = sanitizeCause((value as { cause?: unknown }).cause, secrets, depth + 1);
  const copy: SanitizedCause = new Error(redact(value.message, secrets), inner === undefined ? undefined : { cause: inner });
  copy.name = value.name;
  const code = (value as { code?: unknown }).code;
  if (typeof code === "string" || typeof code === "number") copy.code = code;
  if (value.stack) copy.stack = redact(value.stack, secrets);
  return copy;
}

/** The innermost `code` and message of a `cause` chain: `UND_ERR_SOCKET: other side closed`. */
export function summarizeCause(value: unknown): string | undefined {
  let current: unknown = value;
  let summary: string | undefined;
  for (let depth = 0; current instanceof Error && depth < MAX_DEPTH; depth++) {
    const code = (current as { code?: unknown }).code;
    const codeText = typeof code === "string" ? `${code}: ` : "";
    summary = `${codeText}${current.message}`;
    current = (current as { cause?: unknown }).cause;
  }
  return summary;
}

/** Every `code` found along a `cause` chain (and in `AggregateError.errors`). */
export function causeCodes(value: unknown): string[] {
  const codes: string[] = [];
  const visit = (current: unknown, depth: number): void => {
    if (!(current instanceof Error) || depth >= MAX_DEPTH) return;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    if (current instanceof AggregateError) for (const inner of current.errors) visit(inner, depth + 1);
    visit((current as { cause?: unknown }).cause, depth + 1);
  };
  visit(value, 0);
  return codes;
}
