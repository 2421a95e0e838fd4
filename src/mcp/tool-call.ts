/**
 * One tool call: its arguments checked and turned into the operation's request, that request
 * checked against the contract by the testing kit (nothing sent when it fails), then sent by
 * the SDK's client (retries, timeouts, typed errors), and the answer shaped for a model: JSON
 * text and `structuredContent`, the whole result at most `maxResultBytes` (result-size.ts), a
 * list page cut to fit with the offset of the rest and the API's cursor of the next page.
 */
import { cursorOf, ownOptions, type StoreAdminClient, unwrap } from "#shared";
import { MAX_UPLOAD_BYTES, mcpTools, type McpToolRow } from "../../generated/mcp-tools.js";
import { bytesOf as bytes, cutResult, quoted, resultBytes as size, shown, type ToolResult } from "./result-size.js";
import { selectProblem } from "./select.js";

export type { ToolResult };

export interface CallArguments {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  offset?: number;
  /** Field paths kept from the result (select.ts). */
  select?: string[];
}

/** A tool call refused before anything was sent; its message says what to fix. */
export class ToolArgumentError extends Error {
  override name = "ToolArgumentError";
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null);

const isScalar = (value: unknown) =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean";

/**
 * Each of `values` must be a path parameter the contract declares, holding a scalar:
 * openapi-fetch would drop an unknown path name, so the testing kit would never see it.
 */
function checkPathParameters(tool: McpToolRow, values: Record<string, unknown> | undefined): void {
  if (values === undefined) return;
  const schema = (tool.inputSchema.properties as Record<string, { properties?: Record<string, unknown> }> | undefined)
    ?.path;
  const declared = schema?.properties ?? {};
  for (const [name, value] of Object.entries(values)) {
    if (!Object.hasOwn(declared, name)) {
      const names = Object.keys(declared);
      throw new ToolArgumentError(
        `${tool.name}: path.${shown(name)} is not a path parameter of ${tool.operation} (${names.length > 0 ? `it takes ${names.join(", ")}` : "it takes none"}).`,
      );
    }
    if (!isScalar(value))
      throw new ToolArgumentError(
        `${tool.name}: path.${name} must be a string, number or boolean, got ${quoted(value)}.`,
      );
  }
}

/**
 * Each query value must be what openapi-fetch writes into the URL as it is: a scalar, a list of
 * them, or null (left out). An object would reach the URL as `a[b]=1` and a list in a list as
 * its items' text. Which names and types the operation takes is the testing kit's check, run
 * over the request openapi-fetch makes.
 */
function checkQueryValues(tool: McpToolRow, values: Record<string, unknown> | undefined): void {
  for (const [name, value] of Object.entries(values ?? {})) {
    if (value === null || isScalar(value) || (Array.isArray(value) && value.every(isScalar))) continue;
    throw new ToolArgumentError(
      `${tool.name}: query.${shown(name)} must be a string, number or boolean, or a list of them, got ${quoted(value)}.`,
    );
  }
}

/** The arguments of `tool`'s call, or a {@link ToolArgumentError} naming what is wrong (nothing else reaches the request: no URL, no header). */
export function checkArguments(tool: McpToolRow, input: unknown): CallArguments {
  const given = input === undefined ? {} : input;
  if (!isPlainObject(given))
    throw new ToolArgumentError(`${tool.name} takes an object { path?, query?, body? }, got ${quoted(given)}.`);
  // Own properties only: a polluted Object.prototype.query must not become every call's query.
  const args = ownOptions(given);
  // `select` is every tool's (select.ts), beside what its generated schema declares.
  const allowed = [
    ...Object.keys((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {}),
    "select",
  ];
  const unknown = Object.keys(args).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    throw new ToolArgumentError(
      `${tool.name} takes ${allowed.length > 0 ? allowed.join(", ") : "no arguments"}; ${unknown.map((k) => quoted(k)).join(", ")} ${unknown.length > 1 ? "are" : "is"} not one of them.`,
    );
  }
  for (const part of ["path", "query"] as const) {
    if (args[part] !== undefined && !isPlainObject(args[part]))
      throw new ToolArgumentError(
        `${tool.name}: ${part} must be an object of parameter values, got ${quoted(args[part])}.`,
      );
    if (args[part] !== undefined) args[part] = ownOptions(args[part]);
  }
  checkPathParameters(tool, args.path as Record<string, unknown> | undefined);
  checkQueryValues(tool, args.query as Record<string, unknown> | undefined);
  const required = (tool.inputSchema.required as string[] | undefined) ?? [];
  const missing = required.filter((key) => args[key] === undefined);
  if (missing.length > 0)
    throw new ToolArgumentError(
      `${tool.name}: ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} required.`,
    );
  const offset = args.offset;
  if (offset !== undefined && (typeof offset !== "number" || !Number.isSafeInteger(offset) || offset < 0)) {
    throw new ToolArgumentError(`${tool.name}: offset must be a whole number ≥ 0, got ${quoted(offset)}.`);
  }
  const problem = args.select === undefined ? undefined : selectProblem(args.select);
  if (problem !== undefined) throw new ToolArgumentError(`${tool.name}: ${problem}`);
  return args as CallArguments;
}

/** A `{ filename, contentType?, base64 }` argument as the `File` a multipart body sends; other values as they are. */
function withFiles(tool: McpToolRow, value: unknown, where: string): unknown {
  if (Array.isArray(value)) return value.map((item, i) => withFiles(tool, item, `${where}[${i}]`));
  if (!isPlainObject(value)) return value;
  if (typeof value.base64 === "string" && typeof value.filename === "string") {
    const text = value.base64.replace(/\s+/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1)
      throw new ToolArgumentError(`${tool.name}: ${where}.base64 is not base64.`);
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    if (bytes.byteLength > MAX_UPLOAD_BYTES)
      throw new ToolArgumentError(
        `${tool.name}: ${where} is ${bytes.byteLength} bytes; a tool uploads at most ${MAX_UPLOAD_BYTES}.`,
      );
    return new File([bytes], value.filename, {
      type: typeof value.contentType === "string" ? value.contentType : "application/octet-stream",
    });
  }
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, withFiles(tool, item, `${where}.${key}`)]),
  );
}

/** The call as openapi-fetch's `request()` takes it. */
function requestOf(
  tool: McpToolRow,
  args: CallArguments,
): { params: { path?: unknown; query?: unknown }; body?: unknown } {
  const body = tool.multipart ? withFiles(tool, args.body, "body") : args.body;
  return { params: { path: args.path, query: args.query }, ...(body !== undefined ? { body } : {}) };
}

type Request = (
  method: string,
  path: string,
  init: unknown,
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** Sends the call through `client`: its data, or the SDK's typed error thrown. */
export function send(
  client: StoreAdminClient,
  tool: McpToolRow,
  args: CallArguments,
  signal?: AbortSignal,
): Promise<unknown> {
  const request = client.request as unknown as Request;
  return unwrap(request(tool.method, tool.path, { ...requestOf(tool, args), ...(signal ? { signal } : {}) }) as never);
}

/** As {@link send}, with the answer's HTTP status (code mode lists each call's). */
export async function sendWithStatus(
  client: StoreAdminClient,
  tool: McpToolRow,
  args: CallArguments,
  signal?: AbortSignal,
): Promise<{ data: unknown; status: number }> {
  const request = client.request as unknown as Request;
  const result = await request(tool.method, tool.path, { ...requestOf(tool, args), ...(signal ? { signal } : {}) });
  return { data: await unwrap(result as never), status: result.response.status };
}

/** What a page's fields beside its items (and its next cursor) may take of the cap, each: a quarter. */
const BESIDE_SHARE = 4;

/**
 * A page's fields beside its items, each shown if together they take at most `budget` bytes;
 * else the largest are replaced by a note of their size until they do.
 */
function besideItems(
  rest: Record<string, unknown>,
  budget: number,
  clean: (text: string) => string,
): Record<string, unknown> {
  const sizes = Object.entries(rest).map(
    ([key, value]) => [key, bytes(clean(JSON.stringify(value) ?? "null"))] as const,
  );
  let total = bytes(clean(JSON.stringify(rest)));
  const kept = { ...rest };
  for (const [key, valueBytes] of [...sizes].sort((a, b) => b[1] - a[1])) {
    if (total <= budget) break;
    kept[key] = `[cut: ${valueBytes} bytes, over what a result shows beside its items]`;
    total -= valueBytes;
  }
  return kept;
}

/**
 * The answer as a result of at most `maxBytes` (the whole result as serialized, see
 * result-size.ts), `clean` applied to every string that leaves (the token's redaction).
 */
export function resultOf(
  tool: McpToolRow,
  data: unknown,
  offset: number,
  maxBytes: number,
  clean: (text: string) => string,
  nameOf: (tool: McpToolRow) => string = (row) => row.name,
): ToolResult {
  const shaped = (structured: Record<string, unknown>): ToolResult => {
    const text = clean(JSON.stringify(structured));
    return { content: [{ type: "text", text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
  };
  // A page of a cursor list, or an answer that is a whole array: as many items from `offset` as fit.
  const page = tool.list && isPlainObject(data) && Array.isArray(data.results) ? data : undefined;
  if (
    page ||
    (Array.isArray(data) && "offset" in ((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {}))
  ) {
    const items = (page ? page.results : data) as unknown[];
    const { results: _results, next, previous: _previous, ...fields } = page ?? {};
    const rest = besideItems(fields, maxBytes / BESIDE_SHARE, clean);
    const found = typeof next === "string" ? (cursorOf(next, "http://relative.invalid") ?? null) : null;
    // A cursor too long for a result is named, not shown: cut, it would be no cursor.
    const cursor = found !== null && bytes(clean(found)) <= maxBytes / BESIDE_SHARE ? found : null;
    const hidden =
      found !== null && cursor === null
        ? `the next page's cursor is ${found.length} characters long, too long for a result under ${maxBytes} bytes: a server started with a larger maxResultBytes (--max-result-bytes) shows it.`
        : undefined;
    const whole = page ? "page" : "answer";
    // The item at `offset` when it alone is over the cap: a marker naming it, so that every call moves on.
    let first: unknown;
    const part = (count: number): ToolResult => {
      const end = offset + count;
      const cut = end < items.length;
      const results = items.slice(offset, end);
      if (first !== undefined && results.length > 0) results[0] = first;
      const more = cut
        ? `This result shows items ${offset} to ${end - 1} of the ${whole}'s ${items.length}, to stay under ${maxBytes} bytes. Call ${tool.name} again with the same arguments and offset ${end} for the rest of this ${whole}${cursor ? "; after it, the next page is query.cursor set to next_cursor" : ""}.`
        : undefined;
      const note = [more, hidden && `Of this ${whole}: ${hidden}`].filter(Boolean).join(" ");
      return shaped({
        ...rest,
        results,
        [`${whole}_items`]: items.length,
        offset,
        ...(page ? { next_cursor: cursor } : {}),
        ...(note ? { note } : {}),
      });
    };
    // The most items from `offset` that fit: a binary search over the count.
    let low = 0;
    let high = Math.max(0, items.length - offset);
    if (size(part(high)) <= maxBytes) return part(high);
    if (size(part(1)) > maxBytes) {
      first = omitted(
        tool,
        items[offset],
        offset,
        bytes(clean(JSON.stringify(items[offset]))),
        maxBytes,
        whole,
        nameOf,
      );
      low = 1;
      if (size(part(high)) <= maxBytes) return part(high);
    }
    while (low < high - 1) {
      const mid = (low + high) >> 1;
      if (size(part(mid)) <= maxBytes) low = mid;
      else high = mid;
    }
    return part(low);
  }
  const whole = shaped(isPlainObject(data) ? data : { result: data ?? null });
  if (size(whole) <= maxBytes) return whole;
  // One resource over the cap: its JSON text cut, marked as such, without a structured copy.
  return cutResult(clean(JSON.stringify(data)), maxBytes);
}

/** What stands for a list item over the cap: its place, its size, and the tool that reads it alone where there is one. */
function omitted(
  tool: McpToolRow,
  item: unknown,
  index: number,
  size: number,
  maxBytes: number,
  whole: string,
  nameOf: (tool: McpToolRow) => string,
): { omitted: string } {
  const what = `Item ${index} of this ${whole} is ${size} bytes, over the ${maxBytes}-byte result cap, and is not shown`;
  // The operation reading one item: GET <the list's path>{param}/, e.g. users_retrieve for users_list.
  for (const one of mcpTools) {
    const param =
      one.method === "GET" && one.path.startsWith(tool.path)
        ? /^\{(\w+)\}\/$/.exec(one.path.slice(tool.path.length))?.[1]
        : undefined;
    const value = param !== undefined && isPlainObject(item) ? item[param] : undefined;
    if (typeof value === "string" || typeof value === "number") {
      const text = JSON.stringify(value);
      // A value too long to quote could not be passed back whole either.
      if (text !== shown(text))
        return { omitted: `${what}: its ${param} is ${String(value).length} characters long, too long to quote.` };
      const also = tool.path.includes("{") ? " and this call's path parameters" : "";
      return {
        omitted: `${what}: read it with ${nameOf(one)}, path.${param} ${text}${also} (a result over the cap is cut, marked).`,
      };
    }
  }
  return { omitted: `${what}: a server started with a larger maxResultBytes (--max-result-bytes) shows it.` };
}

/** A refusal or an API error as a result: `isError`, the message a model can act on. */
export function errorResult(message: string, clean: (text: string) => string): ToolResult {
  return { content: [{ type: "text", text: clean(message) }], isError: true };
}
