/// <reference types="node" />
/**
 * The command's input: one call a line of JSON, or a row of CSV with dotted column headers
 * (`path.id,body.expired_at`), read as a stream. CSV cells are text; a body field whose
 * contract type is not a string is converted as the contract's own validator asks (see
 * {@link convertCells}).
 */
import { Readable } from "node:stream";
import { parse, type Options as CsvOptions } from "csv-parse";
import type { OperationKey } from "../../generated/operations.js";
import { mockOperations, type ValidationError, type Validator } from "../../generated/testing/operations.js";
import { loadOperation } from "../testing/operation-modules.js";
import { InputError } from "./input-error.js";
import { lines, readable, type Line } from "./lines.js";
import { parseData, record, RefusedKeyError, refusedName } from "./plain-data.js";

export { InputError };

/** One call of the input: each part optional. `line` is where it came from (1-based, the CSV header is line 1). */
export interface InputCall {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  line: number;
  /** Why this line is not a call (`cards.jsonl:31: not JSON …`): it becomes a failed item, nothing is sent. */
  invalid?: string;
  /** The line as written, kept for an invalid line so that the failures file shows it. */
  text?: string;
}

const PARTS = ["path", "query", "body"] as const;
/** Keys a JSON line may carry besides the call: a failures or in-doubt file written by the command is valid input. */
const IGNORED_KEYS: ReadonlySet<string> = new Set(["failure", "inDoubt"]);

/** The operation `METHOD PATH` of the contract, or an error listing what the contract has. */
export function operationOf(method: string, path: string): OperationKey {
  const key = `${method.toUpperCase()} ${path}`;
  if (Object.hasOwn(mockOperations, key)) return key as OperationKey;
  const known = Object.keys(mockOperations)
    .filter((k) => !k.startsWith("GET "))
    .join(", ");
  throw new InputError(
    `${key} is not an operation of the contract. The operations that change something are: ${known}.`,
  );
}

type InputFormat = "jsonl" | "csv";

/** The format named by `--format`, or by the file's extension (`.csv`: CSV, anything else: JSON lines). */
export function formatOf(file: string, format: string | undefined): InputFormat {
  if (format === undefined) return file.toLowerCase().endsWith(".csv") ? "csv" : "jsonl";
  if (format === "jsonl" || format === "csv") return format;
  throw new InputError(`--format must be jsonl or csv, got ${JSON.stringify(format)}.`);
}

/**
 * The calls of a JSON-lines file, one a line; empty lines are skipped, and a UTF-8 byte order
 * mark at the start is dropped. A line that is not a call (not JSON, not UTF-8, longer than
 * `maxLineBytes`) is yielded with `invalid` set, so that the run counts it as failed and goes on.
 */
export async function* jsonLines(file: string, maxLineBytes: number): AsyncGenerator<InputCall> {
  for await (const line of lines(file, maxLineBytes)) {
    if (line.problem !== undefined) yield { line: line.number, invalid: `${file}:${line.number}: ${line.problem}` };
    else if (line.text.trim() !== "") yield callOf(line.text.replace(/\r$/, ""), `${file}:${line.number}`, line.number);
  }
}

function callOf(text: string, where: string, number: number): InputCall {
  const invalid = (why: string): InputCall => ({ line: number, invalid: `${where}: ${why}`, text });
  let value: unknown;
  try {
    value = parseData(text);
  } catch (error) {
    return invalid(error instanceof RefusedKeyError ? error.message : `not JSON (${(error as Error).message}).`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return invalid(`a line must be a JSON object { "path": {…}, "query": {…}, "body": {…} }.`);
  }
  const call: InputCall = { line: number };
  for (const [key, part] of Object.entries(value)) {
    if (IGNORED_KEYS.has(key)) continue;
    if (!(PARTS as readonly string[]).includes(key)) {
      return invalid(`unknown key ${JSON.stringify(key)}; a line has path, query and body, each optional.`);
    }
    if (key !== "body" && (part === null || typeof part !== "object" || Array.isArray(part))) {
      return invalid(`${key} must be an object of ${key} parameters.`);
    }
    (call as unknown as Record<string, unknown>)[key] = part;
  }
  return call;
}

/**
 * The calls of a CSV file whose header names dotted fields (`path.id`, `query.status`,
 * `body.expired_at`). A row that cannot be read (the wrong number of cells, a physical line
 * longer than `maxLineBytes` or not UTF-8) is yielded with `invalid` set, in the file's order.
 */
export async function* csvRows(file: string, operation: OperationKey, maxLineBytes: number): AsyncGenerator<InputCall> {
  // A row with the wrong number of cells is a failed item (`on_skip`); other CSV errors end the run.
  const pending: InputCall[] = [];
  const parser = csvParser(
    file,
    maxLineBytes,
    (line) => pending.push({ line: line.number, invalid: `${file}:${line.number}: ${line.problem}` }),
    {
      skip_records_with_error: true,
      on_skip: (error: (Error & { lines?: number }) | undefined, raw?: string) => {
        const line = error?.lines ?? 0;
        pending.push({
          line,
          invalid: `${file}:${line}: ${error?.message ?? "not a CSV row"}`,
          text: raw?.replace(/\r?\n$/, ""),
        });
      },
      raw: true,
      info: true,
    },
  );
  // What could not be read before `line`, in the file's order.
  const before = (line: number): InputCall[] => {
    pending.sort((a, b) => a.line - b.line);
    const count = pending.findIndex((call) => call.line >= line);
    return pending.splice(0, count === -1 ? pending.length : count);
  };
  let header: string[][] | undefined;
  const rows = (async function* () {
    try {
      for await (const { record: row, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>)
        yield { row, line: info.lines };
    } catch (error) {
      if (error instanceof InputError) throw error;
      const lines = (error as { lines?: number }).lines ?? parser.info.lines;
      throw new InputError(`${file}:${lines}: ${(error as Error).message}`);
    }
  })();
  for await (const { row, line } of rows) {
    if (header === undefined) {
      header = headerOf(row, file);
      continue;
    }
    yield* before(line);
    const call: InputCall = { line };
    header.forEach(([part, ...names], index) => {
      const cell = row[index]!;
      if (cell === "") return; // an empty cell leaves the field out
      const parts = call as unknown as Record<string, Record<string, unknown>>;
      let target = (parts[part!] ??= record());
      for (const name of names.slice(0, -1)) target = (target[name] ??= record()) as Record<string, unknown>;
      target[names.at(-1)!] = cell;
    });
    try {
      if (call.body !== undefined) {
        const { operationId, validators } = await loadOperation(operation);
        call.body = convertCells(call.body as Record<string, unknown>, validators[`${operationId}_body`]);
      }
    } catch (error) {
      if (!(error instanceof RefusedKeyError)) throw error;
      call.invalid = `${file}:${line}: a cell of JSON: ${error.message}`;
    }
    yield call;
  }
  yield* before(Infinity);
}

/**
 * The header's dotted fields, each split at its dots; a column that is not one, names a
 * prototype (`query.__proto__.baseUrl`), or holds another column's field (`body.a`, `body.a.b`)
 * is refused with its column number.
 */
function headerOf(row: string[], file: string): string[][] {
  const fields = row.map((column) => column.trim());
  const seen = new Set<string>();
  return fields.map((column, index) => {
    const where = `${file}:1: column ${index + 1} (${JSON.stringify(column)})`;
    const [part, ...rest] = column.split(".");
    if (!(PARTS as readonly string[]).includes(part!) || rest.length === 0 || rest.some((segment) => segment === "")) {
      throw new InputError(`${where} is not a dotted field such as path.id, query.status or body.expired_at.`);
    }
    const refused = rest.map(refusedName).find((why) => why !== undefined);
    if (refused) throw new InputError(`${where}: ${refused}`);
    const prefixes = rest.map((_, i) => [part, ...rest.slice(0, i)].join("."));
    if (
      seen.has(column) ||
      fields.some((other) => other.startsWith(`${column}.`)) ||
      prefixes.some((prefix) => fields.includes(prefix))
    ) {
      throw new InputError(`${where} names a field another column names too.`);
    }
    seen.add(column);
    return [part!, ...rest];
  });
}

/**
 * csv-parse over the lines of `file` (see {@link lines}): a line that cannot be read reaches the
 * parser empty (so that line numbers hold) and is handed to `onProblem`; a bad header line ends
 * the run.
 */
function csvParser(
  file: string,
  maxLineBytes: number,
  onProblem: (line: Line & { problem: string }) => void,
  options: CsvOptions,
) {
  const text = (async function* () {
    for await (const line of lines(file, maxLineBytes)) {
      if (line.problem === undefined) yield Buffer.from(`${line.text}\n`);
      else if (line.number === 1) throw new InputError(`${file}:1: the header ${line.problem}`);
      else {
        onProblem(line);
        yield Buffer.from("\n");
      }
    }
  })();
  return Readable.from(text).pipe(parse({ bom: true, skip_empty_lines: true, relax_column_count: false, ...options }));
}

/**
 * The body with its text cells converted where the contract's validator wants another type:
 * a number or an integer from a number as written (`12`, `-3.5`); a boolean from `true` or
 * `false`; `null` from `null` wherever the field admits null, even a string-or-null field
 * (see {@link nullCells}); an array or an object from JSON, as the operation's body
 * `validator` says. A cell that fits none stays
 * text, and the request is refused with the field's name (by the dry run or the server).
 */
function convertCells(body: Record<string, unknown>, validator: Validator | undefined): Record<string, unknown> {
  if (!validator) return body;
  nullCells(body, body, "", validator);
  // Each round converts the fields the last validation named; a converted object may name more.
  for (let round = 0; round < 8; round++) {
    if (validator(body)) return body;
    const wanted = new Map<string, Set<string>>();
    for (const error of (validator.errors ?? []) as ValidationError[]) {
      if (error.keyword !== "type") continue;
      const types = wanted.get(error.instancePath) ?? new Set<string>();
      for (const type of String(error.params.type).split(",")) types.add(type);
      wanted.set(error.instancePath, types);
    }
    let changed = false;
    for (const [pointer, types] of wanted) {
      const segments = pointer
        .split("/")
        .slice(1)
        .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
      const field = segments.pop();
      if (field === undefined) continue;
      let parent: unknown = body;
      for (const segment of segments) parent = (parent as Record<string, unknown> | undefined)?.[segment];
      if (parent === null || typeof parent !== "object") continue;
      const cell = (parent as Record<string, unknown>)[field];
      if (typeof cell !== "string") continue;
      const converted = convertCell(cell, types);
      if (converted !== undefined) {
        (parent as Record<string, unknown>)[field] = converted.value;
        changed = true;
      }
    }
    if (!changed) return body;
  }
  return body;
}

/**
 * Each `null` cell becomes JSON null where the contract admits null for its field — also a
 * string-or-null field, whose validator would take the text "null" as a string (or refuse it
 * by its format). Whether null is admitted is asked of the validator itself: the field set to
 * null must draw no error at its path.
 */
function nullCells(
  root: Record<string, unknown>,
  object: Record<string, unknown>,
  pointer: string,
  validator: Validator,
): void {
  for (const [field, cell] of Object.entries(object)) {
    const at = `${pointer}/${field.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    if (cell !== null && typeof cell === "object" && !Array.isArray(cell))
      nullCells(root, cell as Record<string, unknown>, at, validator);
    if (typeof cell !== "string" || cell.trim() !== "null") continue;
    object[field] = null;
    validator(root);
    const refused = ((validator.errors ?? []) as ValidationError[]).some(
      (error) => error.instancePath === at || error.instancePath.startsWith(`${at}/`),
    );
    if (refused) object[field] = cell;
  }
}

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

function convertCell(cell: string, types: Set<string>): { value: unknown } | undefined {
  const text = cell.trim();
  if (types.has("null") && text === "null") return { value: null };
  if ((types.has("integer") || types.has("number")) && NUMBER.test(text)) return { value: Number(text) };
  if (types.has("boolean") && (text === "true" || text === "false")) return { value: text === "true" };
  if (types.has("array") || types.has("object")) {
    let value: unknown;
    try {
      value = parseData(text);
    } catch (error) {
      if (error instanceof RefusedKeyError) throw error;
      return undefined; // not JSON: stays text
    }
    if (
      (Array.isArray(value) && types.has("array")) ||
      (value !== null && typeof value === "object" && !Array.isArray(value) && types.has("object"))
    ) {
      return { value };
    }
  }
  return undefined;
}

/** How many calls a file holds (for the ETA): its non-empty lines, or its CSV rows after the header (undefined: not CSV). */
export async function countCalls(file: string, format: InputFormat, maxLineBytes: number): Promise<number | undefined> {
  if (format === "csv") {
    let rows = 0;
    try {
      for await (const _ of csvParser(file, maxLineBytes, () => rows++, { relax_column_count: true })) rows++;
    } catch (error) {
      if (error instanceof InputError) throw error;
      return undefined; // reading the calls reports where the file is broken
    }
    return Math.max(0, rows - 1);
  }
  const input = await readable(file);
  let count = 0;
  let blank = true;
  for await (const chunk of input) {
    for (const byte of chunk as Buffer) {
      if (byte === 10) {
        if (!blank) count++;
        blank = true;
      } else if (byte !== 13 && byte !== 32 && byte !== 9) blank = false;
    }
  }
  return blank ? count : count + 1;
}
