/**
 * How contract text reaches generated code: through one of these encoders, never pasted into a
 * template any other way. The contract is someone else's text (a vendor's next version, a pull
 * request), and every generated file is built, imported and published: a name or a description
 * that ends a comment or a string would run as code.
 *
 * - {@link stringLiteral}: a JavaScript string literal (JSON's, with U+2028 and U+2029 escaped,
 *   which older parsers end a line at).
 * - {@link jsonCode}: a JSON value as a JavaScript expression: JSON, except that a key
 *   `"__proto__"` is written as a computed key, which makes an own property (as a literal key it
 *   would set the object's prototype and the key would be lost).
 * - {@link docComment}: a `/** … *\/` comment: no `*\/` inside; every line break (`\r`, `\n`,
 *   U+2028, U+2029, U+0085) starts a new ` * ` line; an `@` at the start of a line or after a
 *   space is escaped (`\@`, which Markdown shows as `@`), so text cannot start a tag.
 * - `//` comments carry no contract text at all.
 * - Markdown for the reference: Redoc renders it with `untrustedSpec` (scripts/docs.ts).
 *
 * {@link encodedCopy} walks a contract for those that encode its text in place (openapi-typescript's
 * doc comments, the reference's Markdown).
 */

/** Every line break a reader or a parser may see: JavaScript's line terminators, and U+0085. */
const LINE_BREAK = /\r\n|[\r\n\u2028\u2029\u0085]/;

/** `value` as a JavaScript (and TypeScript) string literal. */
export function stringLiteral(value: string): string {
  return JSON.stringify(value).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/**
 * A JSON value as a JavaScript expression, on one line, or indented by `indent` spaces (as
 * `JSON.stringify(value, null, indent)`). Object keys are string literals, `"__proto__"` a
 * computed key.
 */
export function jsonCode(value: unknown, indent = 0): string {
  const text = JSON.stringify(value, null, indent);
  if (text === undefined) return "undefined";
  // JSON.stringify's own output with its strings re-encoded: a key is a string followed by `:`.
  return text.replace(/("(?:[^"\\]|\\.)*")(:?)/g, (_, string: string, colon: string) => {
    const literal = stringLiteral(JSON.parse(string) as string);
    return colon && literal === '"__proto__"' ? `[${literal}]:` : `${literal}${colon}`;
  });
}

/**
 * Contract text for a doc comment: `*\/` escaped, an `@` at the start of a line or after white
 * space escaped (`\@`), every line break made `\n` (which {@link docComment} makes a new line).
 */
export function docText(text: string): string {
  return text.split(LINE_BREAK).map((line) => line.replace(/\*\//g, "*\\/").replace(/(^|\s)@/g, "$1\\@")).join("\n");
}

/**
 * A doc comment of `lines`, indented by `indent`: each line break in a line starts a new one.
 * Contract text in them has gone through {@link docText}; `*\/` is escaped again here, so no
 * line can end the comment whatever it holds.
 */
export function docComment(lines: readonly string[], indent = ""): string {
  const body = lines
    .flatMap((line) => line.split(LINE_BREAK))
    .map((line) => `${indent} *${line === "" ? "" : ` ${line.replace(/\*\//g, "*\\/")}`}`)
    .join("\n");
  return `${indent}/**\n${body}\n${indent} */\n`;
}

/**
 * Contract Markdown for the reference page: an HTML tag or comment (`<` before a letter, `/`,
 * `!` or `?`) outside code is written `&lt;`, so it shows as text. Redoc's `untrustedSpec` sanitises what
 * it renders in the browser, but the page is also rendered ahead of time, where the contract's
 * own description is HTML as written (an `<img>` there loaded its URL with the page).
 */
export function untrustedMarkdown(text: string): string {
  // Code (a fenced block, a code span) shows `<` as written: only text outside it is escaped.
  return text.replace(/(```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|(`+)[\s\S]*?\2)|<(?=[A-Za-z/!?])/g, (match, code: string | undefined) => code ?? "&lt;");
}

/**
 * An empty object to hold keys taken from the contract: without a prototype, so that a key
 * `__proto__` is set as a key (on `{}` it would set the object's prototype, and be lost).
 */
export const keyed = <T = unknown>(): Record<string, T> => Object.create(null) as Record<string, T>;

/**
 * A copy of a parsed contract with its text encoded where `encode` says: it is handed each
 * member (key and value, at any depth) and returns what the copy holds instead (an encoded
 * string, or the value as it is), or `undefined` to walk into the value.
 */
export function encodedCopy(node: unknown, encode: (key: string, value: unknown) => unknown): unknown {
  if (Array.isArray(node)) return node.map((item) => encodedCopy(item, encode));
  if (typeof node !== "object" || node === null) return node;
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, encode(key, value) ?? encodedCopy(value, encode)]));
}
