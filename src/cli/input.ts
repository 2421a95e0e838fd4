/// <reference types="node" />
/**
 * The command's input: one call a line of JSON, or a row of CSV with dotted column headers
 * (`path.id,body.expired_at`), read as a stream. CSV cells are text; a body field whose
 * contract type is not a string is converted as the contract's own validator asks (see
 * {@link convertCells}).
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { parse } from "csv-parse";
import type { OperationKey } from "../../generated/operations.js";
import { mockOperations } from "../../generated/testing/operations.js";
import type { ValidationError, Validator } from "../../generated/testing/operations.js";
import { loadOperation } from "../testing/operation-modules.js";

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

/** An input error: the message names the file, the line and what is wrong. */
export class InputError extends Error {
  override name = "InputError";
}

/** The operation `METHOD PATH` of the contract, or an error listing what the contract has. */
export function operationOf(method: string, path: string): OperationKey {
  const key = `${method.toUpperCase()} ${path}`;
  if (Object.hasOwn(mockOperations, key)) return key as OperationKey;
  const known = Object.keys(mockOperations).filter((k) => !k.startsWith("GET ")).join(", ");
  throw new InputError(`${key} is not an operation of the contract. The operations that change something are: ${known}.`);
}

export type InputFormat = "jsonl" | "csv";

/** The format named by `--format`, or by the file's extension (`.csv`: CSV, anything else: JSON lines). */
export function formatOf(file: string, format: string | undefined): InputFormat {
  if (format === undefined) return file.toLowerCase().endsWith(".csv") ? "csv" : "jsonl";
  if (format === "jsonl" || format === "csv") return format;
  throw new InputError(`--format must be jsonl or csv, got ${JSON.stringify(format)}.`);
}

/** Opens `file` for reading, or throws an {@link InputError} naming it (a missing file, a directory). */
async function readable(file: string): Promise<ReturnType<typeof createReadStream>> {
  const stream = createReadStream(file);
  await new Promise<void>((resolve, reject) => {
    stream.once("readable", resolve);
    stream.once("error", (error: NodeJS.ErrnoException) =>
      reject(new InputError(error.code === "ENOENT" ? `--input ${file}: no such file.` : `--input ${file}: cannot be read (${error.message}).`)),
    );
  });
  return stream;
}

/**
 * The calls of a JSON-lines file, one a line; empty lines are skipped, and a UTF-8 byte order
 * mark at the start is dropped. A line that is not a call is yielded with `invalid` set, so
 * that the run counts it as failed and goes on.
 */
export async function* jsonLines(file: string): AsyncGenerator<InputCall> {
  const input = await readable(file);
  input.setEncoding("utf8");
  const lines = createInterface({ input, crlfDelay: Infinity });
  let number = 0;
  for await (const read of lines) {
    number++;
    const text = number === 1 && read.startsWith("\uFEFF") ? read.slice(1) : read;
    if (text.trim() === "") continue;
    yield callOf(text, `${file}:${number}`, number);
  }
}

function callOf(text: string, where: string, number: number): InputCall {
  const invalid = (why: string): InputCall => ({ line: number, invalid: `${where}: ${why}`, text });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return invalid(`not JSON (${(error as Error).message}).`);
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

/** The calls of a CSV file whose header names dotted fields (`path.id`, `query.status`, `body.expired_at`). */
export async function* csvRows(file: string, operation: OperationKey): AsyncGenerator<InputCall> {
  // A row with the wrong number of cells is a failed item (`on_skip`); other CSV errors end the run.
  const skipped: InputCall[] = [];
  const parser = (await readable(file)).pipe(
    parse({
      bom: true,
      skip_empty_lines: true,
      relax_column_count: false,
      skip_records_with_error: true,
      on_skip: (error: (Error & { lines?: number }) | undefined, raw?: string) => {
        const line = error?.lines ?? 0;
        skipped.push({ line, invalid: `${file}:${line}: ${error?.message ?? "not a CSV row"}`, text: raw?.replace(/\r?\n$/, "") });
      },
      raw: true,
      info: true,
    }),
  );
  let header: string[] | undefined;
  let number: number;
  const rows = (async function* () {
    try {
      for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) yield { row: record, lines: info.lines };
    } catch (error) {
      const lines = (error as { lines?: number }).lines ?? parser.info.lines;
      throw new InputError(`${file}:${lines}: ${(error as Error).message}`);
    }
  })();
  for await (const { row, lines } of rows) {
    if (header !== undefined) yield* skipped.splice(0);
    number = lines;
    if (header === undefined) {
      header = row.map((column) => column.trim());
      for (const column of header) {
        const [part, ...rest] = column.split(".");
        if (!(PARTS as readonly string[]).includes(part!) || rest.length === 0 || rest.some((segment) => segment === "")) {
          throw new InputError(`${file}:1: the column ${JSON.stringify(column)} is not a dotted field such as path.id, query.status or body.expired_at.`);
        }
      }
      continue;
    }
    const call: InputCall = { line: number };
    header.forEach((column, index) => {
      const cell = row[index]!;
      if (cell === "") return; // an empty cell leaves the field out
      const [part, ...names] = column.split(".") as [(typeof PARTS)[number], ...string[]];
      let target = ((call as unknown as Record<string, Record<string, unknown>>)[part] ??= {});
      for (const name of names.slice(0, -1)) target = (target[name] ??= {}) as Record<string, unknown>;
      target[names.at(-1)!] = cell;
    });
    if (call.body !== undefined) {
      const { operationId, validators } = await loadOperation(operation);
      call.body = convertCells(call.body as Record<string, unknown>, validators[`${operationId}_body`]);
    }
    yield call;
  }
  yield* skipped.splice(0);
}

/**
 * The body with its text cells converted where the contract's validator wants another type:
 * a number or an integer from a number as written (`12`, `-3.5`); a boolean from `true` or
 * `false`; `null` from `null` wherever the field admits null, even a string-or-null field
 * (see {@link nullCells}); an array or an object from JSON, as the operation's body
 * `validator` says. A cell that fits none stays
 * text, and the request is refused with the field's name (by the dry run or the server).
 */
export function convertCells(body: Record<string, unknown>, validator: Validator | undefined): Record<string, unknown> {
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
      const segments = pointer.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
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
function nullCells(root: Record<string, unknown>, object: Record<string, unknown>, pointer: string, validator: Validator): void {
  for (const [field, cell] of Object.entries(object)) {
    const at = `${pointer}/${field.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    if (cell !== null && typeof cell === "object" && !Array.isArray(cell)) nullCells(root, cell as Record<string, unknown>, at, validator);
    if (typeof cell !== "string" || cell.trim() !== "null") continue;
    object[field] = null;
    validator(root);
    const refused = ((validator.errors ?? []) as ValidationError[]).some((error) => error.instancePath === at || error.instancePath.startsWith(`${at}/`));
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
    try {
      const value: unknown = JSON.parse(text);
      if ((Array.isArray(value) && types.has("array")) || (value !== null && typeof value === "object" && !Array.isArray(value) && types.has("object"))) {
        return { value };
      }
    } catch {
      // not JSON: stays text
    }
  }
  return undefined;
}

/** How many calls a file holds (for the ETA): its non-empty lines, or its CSV rows after the header (undefined: not CSV). */
export async function countCalls(file: string, format: InputFormat): Promise<number | undefined> {
  const input = await readable(file);
  if (format === "csv") {
    let rows = 0;
    try {
      for await (const _ of input.pipe(parse({ bom: true, skip_empty_lines: true, relax_column_count: true }))) rows++;
    } catch {
      return undefined; // reading the calls reports where the file is broken
    }
    return Math.max(0, rows - 1);
  }
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
