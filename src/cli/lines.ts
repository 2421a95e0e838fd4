/// <reference types="node" />
/**
 * The physical lines of an input file, read as bytes: a line longer than the limit is never
 * gathered into one string (a 545 MB line made readline throw `Invalid string length`), and a
 * line that is not UTF-8 is not turned into U+FFFD (`café` in Latin-1 would become another id).
 * Each line is decoded on its own, strictly, so that a bad line is named and the others go on.
 */
import { isUtf8 } from "node:buffer";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { InputError } from "./input-error.js";

/** The longest line read by default: far above any call of the contract, far below a string's limit. */
export const DEFAULT_MAX_LINE_BYTES = 1_048_576;

/** One line: its text (without the line feed; a carriage return stays), or why it cannot be read. */
export type Line =
  | { number: number; text: string; problem?: undefined }
  | { number: number; text?: undefined; problem: string };

/**
 * Refuses an input that is not a regular file (a pipe, `/dev/stdin`, a FIFO, a device, a
 * socket): the command reads its input twice (to count the calls, then to run them), and a
 * resume reads it again beside its ledger, so a stream would be run empty or hang. A missing
 * file or a folder is left to {@link readable}, which names it.
 */
export async function regularInput(file: string): Promise<void> {
  const found = await stat(file).catch(() => undefined);
  if (found === undefined || found.isFile() || found.isDirectory()) return;
  const kind = found.isFIFO()
    ? "a pipe"
    : found.isCharacterDevice()
      ? "a character device"
      : found.isSocket()
        ? "a socket"
        : "not a regular file";
  throw new InputError(
    `--input ${file} is ${kind}, not a file: the command reads its input more than once (to count the calls, to run them, and again to resume beside its ledger). Write the calls to a file first (… > calls.jsonl) and pass that file.`,
  );
}

/** Opens `file` for reading, or throws an {@link InputError} naming it (a missing file, a directory). */
export async function readable(file: string): Promise<ReturnType<typeof createReadStream>> {
  const stream = createReadStream(file);
  await new Promise<void>((resolve, reject) => {
    stream.once("readable", resolve);
    stream.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new InputError(
          error.code === "ENOENT"
            ? `--input ${file}: no such file.`
            : `--input ${file}: cannot be read (${error.message}).`,
        ),
      ),
    );
  });
  return stream;
}

/**
 * The lines of `file`, numbered from 1. A line of more than `maxBytes` bytes is skipped as it
 * streams (only its length is counted) and yielded with its problem; so is a line that is not
 * valid UTF-8. A UTF-8 byte order mark at the start of the file is dropped.
 */
export async function* lines(file: string, maxBytes: number): AsyncGenerator<Line> {
  const input = await readable(file);
  let parts: Buffer[] = [];
  let size = 0;
  let number = 1;
  const end = (): Line => {
    const line = number++;
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, Math.min(size, maxBytes));
    const length = size;
    parts = [];
    size = 0;
    if (length > maxBytes)
      return {
        number: line,
        problem: `the line is ${length} bytes long, over the limit of ${maxBytes} (--max-line-bytes).`,
      };
    // Checked before decoding: a byte sequence that is not UTF-8 would become U+FFFD.
    if (!isUtf8(bytes))
      return {
        number: line,
        problem: "not valid UTF-8 (save the file as UTF-8: a byte of another encoding would change the call).",
      };
    const text = bytes.toString("utf8");
    return { number: line, text: line === 1 && text.startsWith("\uFEFF") ? text.slice(1) : text };
  };
  for await (const chunk of input as AsyncIterable<Buffer>) {
    let from = 0;
    for (let at = chunk.indexOf(10, from); ; at = chunk.indexOf(10, from)) {
      const to = at === -1 ? chunk.length : at;
      // Bytes past the limit are counted, not kept.
      if (to > from && size < maxBytes) parts.push(chunk.subarray(from, Math.min(to, from + maxBytes - size)));
      size += to - from;
      if (at === -1) break;
      yield end();
      from = at + 1;
    }
  }
  if (size > 0) yield end();
}
