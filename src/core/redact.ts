/**
 * Scrubbing credentials out of text, error bodies and `cause` chains before they are put
 * on an error the caller may log, print or serialise, and bounding what an error keeps of a
 * body. Not exported from the package.
 */

/** What replaces a secret. */
export const REDACTED = "[REDACTED]";

/**
 * `text` with each of `secrets` replaced where it stands whole: the redaction handed to plugins.
 * Unlike {@link redact}, no part of a token is matched (nor its case changed or its encodings),
 * so a plugin that calls it with strings of its choosing learns nothing of a token it does not
 * hold whole already (partial matching would let it grow a known prefix a character at a time).
 */
export function redactWhole(text: string, secrets: readonly string[]): string {
  let out = String(text);
  for (const secret of secrets) if (secret) out = out.split(secret).join(REDACTED);
  return out;
}

/**
 * `Bearer <token>` anywhere in a text, whatever the token: a safety net for the case where
 * the exact token is not known (an error built far from the request).
 * RFC 6750 §2.1 b64token: https://www.rfc-editor.org/rfc/rfc6750#section-2.1
 */
const BEARER_CREDENTIALS = /\b(Bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi;

/**
 * The shortest run of a secret's characters that is scrubbed wherever it appears: a server
 * may echo part of a token (`Invalid API key provided: sk_live_4eC39HqLyjWDarjt…`). A secret
 * shorter than this (a test's `"t"`) is scrubbed only where it stands whole: a whole string
 * value, or a word of its own (no letter, digit, `_` or `'` on either side), never inside
 * another word, so that `"type"` and `"validation"` survive a token `"t"`.
 */
const MIN_SECRET_RUN = 8;

/** A character that continues a word: a short secret next to one is part of that word, not itself. */
const WORD_CHAR = /[\p{L}\p{N}_'’]/u;

/** Where each short secret stands whole in `lower` (lowered): its [start, end) spans. Linear per secret. */
function wholeWords(lower: string, shortSecrets: readonly string[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const secret of shortSecrets) {
    for (let at = lower.indexOf(secret); at >= 0; at = lower.indexOf(secret, at + 1)) {
      const end = at + secret.length;
      if ((at === 0 || !WORD_CHAR.test(lower[at - 1]!)) && (end === lower.length || !WORD_CHAR.test(lower[end]!)))
        spans.push([at, end]);
    }
  }
  return spans;
}

/** Levels of `cause` followed before giving up: a cycle must not hang us. */
const MAX_DEPTH = 8;

/** The scrubber of each call's secrets, built once: their pieces of 8 characters in a set. */
const scrubbers = new WeakMap<readonly string[], (text: string) => string>();

/**
 * A secret as a server may echo it inside a longer base64 string (standard and URL-safe): its
 * encoding at each of the three byte alignments, less the characters that also depend on the
 * bytes around it. `btoa` is in every runtime the client supports.
 */
function base64Forms(secret: string): string[] {
  const forms: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const bytes = "\0".repeat(shift) + secret;
    let encoded: string;
    try {
      encoded = btoa(bytes).slice(Math.ceil((shift * 8) / 6), Math.floor((bytes.length * 8) / 6));
    } catch {
      continue; // not Latin-1: a token never is (auth.ts)
    }
    forms.push(encoded, encoded.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return forms;
}

/**
 * Escapes a server may put a token's characters in: percent-encoding (either letter case),
 * HTML character references (decimal or hex, leading zeros), JSON `\\u` escapes and `\\/`.
 */
const ESCAPES = /%([0-9a-f]{2})|&#(?:x0*([0-9a-f]{1,6})|0*(\d{1,7}));|\\u([0-9a-f]{4})|\\([/"\\])/gi;

/** `text` with {@link ESCAPES} decoded, and where each of its characters came from in `text`. */
function unescaped(text: string): { text: string; from: number[]; to: number[] } | undefined {
  let out = "";
  const from: number[] = [];
  const to: number[] = [];
  let last = 0;
  const keep = (upTo: number): void => {
    for (; last < upTo; last++) (out += text[last]), from.push(last), to.push(last + 1);
  };
  for (const match of text.matchAll(ESCAPES)) {
    const [whole, percent, hex, decimal, unicode, plain] = match;
    const code = parseInt(percent ?? hex ?? unicode ?? decimal ?? "", decimal ? 10 : 16);
    if (!plain && !(code <= 0x10ffff)) continue;
    keep(match.index);
    const char = plain ?? String.fromCodePoint(code);
    for (let i = 0; i < char.length; i++) (out += char[i]), from.push(match.index), to.push(match.index + whole.length);
    last = match.index + whole.length;
  }
  if (last === 0) return undefined;
  keep(text.length);
  return { text: out, from, to };
}

function scrubber(secrets: readonly string[]): (text: string) => string {
  const run = MIN_SECRET_RUN;
  const pieces = new Set<string>();
  // A secret shorter than a run is looked for whole, as a word (base64 forms of it would be a character or two: found everywhere).
  const shortSecrets = [
    ...new Set(secrets.filter((secret) => secret.length > 0 && secret.length < run).map(asciiLower)),
  ];
  const forms = secrets.flatMap((secret) => (secret.length >= run ? [secret, ...base64Forms(secret)] : []));
  for (const form of forms) {
    for (let i = 0; i + run <= form.length; i++) pieces.add(asciiLower(form.slice(i, i + run)));
  }
  // Each window of `text` that is a piece of a secret, in any letter case (a server may echo the
  // token upper-cased): its [start, end). Lowering ASCII letters only keeps every position.
  const found = (text: string): Array<[number, number]> => {
    const lower = asciiLower(text);
    const spans = shortSecrets.length > 0 ? wholeWords(lower, shortSecrets) : [];
    if (pieces.size > 0)
      for (let i = 0; i + run <= text.length; i++) if (pieces.has(lower.slice(i, i + run))) spans.push([i, i + run]);
    return spans;
  };
  return (text) => {
    if (pieces.size > 0 || shortSecrets.length > 0) {
      // The text as it is, and with its escapes decoded (each span mapped back to the escapes).
      const spans = found(text);
      const decoded = unescaped(text);
      if (decoded)
        for (const [start, end] of found(decoded.text)) spans.push([decoded.from[start]!, decoded.to[end - 1]!]);
      spans.sort((a, b) => a[0] - b[0]);
      // Every run of overlapping or touching spans becomes one REDACTED.
      let out = "";
      let from = 0;
      for (let i = 0; i < spans.length; ) {
        const start = spans[i]![0];
        let end = spans[i]![1];
        for (i++; i < spans.length && spans[i]![0] <= end; i++) end = Math.max(end, spans[i]![1]);
        out += text.slice(from, start) + REDACTED;
        from = end;
      }
      text = out + text.slice(from);
    }
    return text.replace(BEARER_CREDENTIALS, `$1 ${REDACTED}`);
  };
}

/** `text` with A–Z lowered and nothing else changed: the same length, so positions hold. */
const asciiLower = (text: string): string => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/**
 * `text` with every run of {@link MIN_SECRET_RUN} or more characters of a `secret`, in any
 * letter case (a shorter secret where it stands whole: a word of its own), in base64 (standard or URL-safe, at any alignment),
 * or in escapes (percent, HTML character references, JSON `\\u`), and every `Bearer …`
 * credential replaced by `[REDACTED]`. Linear in the text's length, whatever the secret's.
 * Adjacent matches become one `[REDACTED]`. The one redaction of the SDK: the client's errors
 * and log events, and the bulk runner's failures, reports and ledger all use it.
 */
export function redact(text: string, secrets: readonly string[] = []): string {
  let scrub = scrubbers.get(secrets);
  if (!scrub) scrubbers.set(secrets, (scrub = scrubber(secrets)));
  return scrub(text);
}

/** Control and bidi characters: a terminal or a log viewer acts on them (`\x1b[31m`, U+202E). */
const CONTROLS = /[\0-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Outside text as it enters a message: one line, without control or bidi characters, at most `max` characters, scrubbed. */
export function clip(text: string, secrets: readonly string[] | undefined, max = 300): string {
  const line = text.replace(/\s+/g, " ").replace(CONTROLS, "").trim();
  return redact(line.length > max ? `${headOf(line, max)}…` : line, secrets);
}

/** The first `max` UTF-16 units of `text`, one fewer when the last would be half of a surrogate pair (a lone surrogate is not valid UTF-8). */
export function headOf(text: string, max: number): string {
  const head = text.slice(0, Math.max(0, max));
  return /[\ud800-\udbff]$/.test(head) ? head.slice(0, -1) : head;
}

/**
 * What an error keeps of a body: {@link BODY_BUDGET} characters' worth, counting each value
 * as one and each string and key by its length, in document order, down to {@link BODY_DEPTH}
 * levels. What is cut is marked with its full size (`"…(11184810 items)"`), so building
 * an error costs a bounded walk, whatever the body within `maxResponseBytes`.
 */
export const BODY_BUDGET = 65_536;
export const BODY_DEPTH = 32;

const cut = (count: number, unit: string): string => `…(${count} ${unit})`;

/**
 * A bounded copy (see {@link BODY_BUDGET}) of a parsed body with {@link redact} applied to
 * every string in it, keys included. A key `__proto__` stays an own property and never sets
 * a prototype.
 */
export function redactDeep(value: unknown, secrets: readonly string[] = []): unknown {
  let budget = BODY_BUDGET;
  const text = (item: string): string => {
    const kept = item.slice(0, Math.max(budget, 0));
    budget -= kept.length;
    return redact(kept.length < item.length ? kept + cut(item.length, "characters") : item, secrets);
  };
  const copy = (item: unknown, depth: number): unknown => {
    budget--;
    if (typeof item === "string") return text(item);
    if (item === null || typeof item !== "object") return item;
    if (depth === BODY_DEPTH) return "…(nested deeper)";
    const list = Array.isArray(item);
    const keys: unknown[] = list ? item : Object.keys(item);
    const kept: unknown[] = [];
    for (const key of keys) {
      if (budget <= 0) break;
      kept.push(
        list
          ? copy(key, depth + 1)
          : [text(key as string), copy((item as Record<string, unknown>)[key as string], depth + 1)],
      );
    }
    if (kept.length < keys.length) kept.push(list ? cut(keys.length, "items") : ["…", cut(keys.length, "keys")]);
    // fromEntries defines own properties: a key "__proto__" never sets a prototype.
    return list ? kept : Object.fromEntries(kept as [string, unknown][]);
  };
  return copy(value, 0);
}

/** A copy of response headers with {@link redact} applied to every value (a server may echo the token). */
export function redactHeaders(headers: Headers, secrets: readonly string[]): Headers {
  const copy = new Headers();
  headers.forEach((value, name) => copy.append(name, redact(value, secrets)));
  return copy;
}

/** A thrown value as text, whatever it is: `String()` throws for `Object.create(null)` (then: "object"). */
export function describe(value: unknown): string {
  try {
    return String(value);
  } catch {
    return typeof value;
  }
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
  if (!(value instanceof Error)) return redact(describe(value), secrets);
  const inner = sanitizeCause((value as { cause?: unknown }).cause, secrets, depth + 1);
  const copy: SanitizedCause = new Error(
    redact(value.message, secrets),
    inner === undefined ? undefined : { cause: inner },
  );
  copy.name = value.name;
  const code = (value as { code?: unknown }).code;
  if (typeof code === "string" || typeof code === "number") copy.code = code;
  if (value.stack) copy.stack = redact(value.stack, secrets);
  return copy;
}

/** The innermost `code` and message of a `cause` chain: `UND_ERR_SOCKET: other side closed`. */
export function summarizeCause(value: unknown): string | undefined {
  let summary: string | undefined;
  for (let depth = 0; value instanceof Error && depth < MAX_DEPTH; depth++) {
    const code = (value as { code?: unknown }).code;
    summary = `${typeof code === "string" ? `${code}: ` : ""}${value.message}`;
    value = (value as { cause?: unknown }).cause;
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
