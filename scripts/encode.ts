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
import MarkdownIt from "markdown-it";
import type StateInline from "markdown-it/lib/rules_inline/state_inline.js";

/** Every line break a reader or a parser may see: JavaScript's line terminators, and U+0085. */
const LINE_BREAK = /\r\n|[\r\n\u2028\u2029\u0085]/;

/** `value` as a JavaScript (and TypeScript) string literal. */
export function stringLiteral(value: string): string {
  return JSON.stringify(value)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
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
  return text
    .split(LINE_BREAK)
    .map((line) => line.replace(/\*\//g, "*\\/").replace(/(^|\s)@/g, "$1\\@"))
    .join("\n");
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
 *
 * Code (fenced and indented blocks, code spans) is found by the parser Redoc renders with
 * (Markdoc's markdown-it 12, pinned in devDependencies), so that the two cannot disagree: a
 * backslash-escaped backtick opens no code span, and a line indented four spaces is a code
 * block. Code the parser read where it cannot be placed back in the text (a span inside a block
 * quote or list whose line prefixes it stripped) is escaped like text: safe, if less tidy.
 */
export function untrustedMarkdown(text: string): string {
  const source = text.replace(/\r\n|\r/g, "\n");
  let out = "";
  let from = 0;
  for (const [start, end] of codeRanges(source)) {
    if (start < from) continue;
    out += escapeTags(source.slice(from, start)) + source.slice(start, end);
    from = end;
  }
  return out + escapeTags(source.slice(from));
}

const escapeTags = (text: string): string => text.replace(/<(?=[A-Za-z/!?])/g, "&lt;");

/** A parser as Redoc's: CommonMark, raw HTML allowed (Redoc then sanitises it), recording where each code span starts and ends. */
function codeParser(spans: Array<[number, number]>): MarkdownIt {
  const md = new MarkdownIt({ html: true });
  // markdown-it names its rules only in the ruler's own list; its code-span rule is wrapped, not replaced.
  const rules = (
    md.inline.ruler as unknown as {
      __rules__: Array<{ name: string; fn: (state: StateInline, silent: boolean) => boolean }>;
    }
  ).__rules__;
  const backticks = rules.find((rule) => rule.name === "backticks")!.fn;
  md.inline.ruler.at("backticks", (state, silent) => {
    const start = state.pos;
    const found = backticks(state, silent);
    if (found && !silent && state.tokens.at(-1)?.type === "code_inline") spans.push([start, state.pos]);
    return found;
  });
  return md;
}

/** Where Redoc's parser reads code in `source`: [start, end) ranges, in order. */
function codeRanges(source: string): Array<[number, number]> {
  const lineStarts = [0];
  for (let i = source.indexOf("\n"); i >= 0; i = source.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  const lineAt = (line: number): number => lineStarts[line] ?? source.length;
  const ranges: Array<[number, number]> = [];
  const spans: Array<[number, number]> = [];
  const md = codeParser(spans);
  for (const token of md.parse(source, {})) {
    if (!token.map) continue;
    const [first, last] = token.map;
    if ((token.type === "fence" || token.type === "code_block") && token.level === 0)
      ranges.push([lineAt(first), lineAt(last)]);
    if (token.type !== "inline") continue;
    spans.length = 0;
    md.inline.parse(token.content, md, {}, []);
    const block = source.slice(lineAt(first), lineAt(last));
    const offset = block.indexOf(token.content);
    // Placed back only where the inline text stands in the source as it is.
    if (offset < 0 || spans.length === 0) continue;
    for (const [start, end] of spans) ranges.push([lineAt(first) + offset + start, lineAt(first) + offset + end]);
  }
  return ranges.sort((a, b) => a[0] - b[0]);
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
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, encode(key, value) ?? encodedCopy(value, encode)]),
  );
}
