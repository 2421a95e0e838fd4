/**
 * What one tool result may hold. The cap bounds the whole result as the JSON-RPC response
 * carries it (`JSON.stringify` of `{ content, structuredContent?, isError? }`, in UTF-8 bytes:
 * the text's escapes count), and a value a message quotes from the arguments or the store is
 * clipped, so that no argument or answer can make a result grow with it.
 */
import { headOf } from "#shared";

/** The most characters a message quotes of one name or value. */
const MAX_QUOTED = 200;

/** What a tool answers: MCP's `CallToolResult`. */
export interface ToolResult {
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

/** UTF-8 bytes of a text. */
export const bytesOf = (text: string): number => new TextEncoder().encode(text).byteLength;

/** The bytes a result takes in the JSON-RPC response. */
export const resultBytes = (result: ToolResult): number => bytesOf(JSON.stringify(result));

/** `text` as a message quotes it: at most {@link MAX_QUOTED} characters, then its full length. */
export function shown(text: string, max = MAX_QUOTED): string {
  return text.length > max ? `${headOf(text, max)}…(${text.length} characters)` : text;
}

/** A value as a message quotes it: its JSON, {@link shown}. */
export const quoted = (value: unknown, max = MAX_QUOTED): string => shown(JSON.stringify(value) ?? String(value), max);

/**
 * `text` as one text result of at most `maxBytes`: whole if it fits, else its start (on a code
 * point) and a note of its size; without `structuredContent`.
 */
export function cutResult(text: string, maxBytes: number, isError = false): ToolResult {
  const of = (shownText: string): ToolResult => ({
    content: [{ type: "text", text: shownText }],
    ...(isError ? { isError: true } : {}),
  });
  const whole = of(text);
  if (resultBytes(whole) <= maxBytes) return whole;
  const note = `\n[cut: the result is ${bytesOf(text)} bytes; this shows the first part, under ${maxBytes} bytes]`;
  // The longest start that fits with the note: a binary search over its length.
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (resultBytes(of(`${headOf(text, mid)}${note}`)) <= maxBytes) low = mid;
    else high = mid - 1;
  }
  return of(`${headOf(text, low)}${note}`);
}

/** `result` if it is within `maxBytes`, else its text cut to fit ({@link cutResult}): no result leaves over the cap. */
export function withinCap(result: ToolResult, maxBytes: number): ToolResult {
  if (resultBytes(result) <= maxBytes) return result;
  return cutResult(result.content.map((part) => part.text).join("\n"), maxBytes, result.isError === true);
}
