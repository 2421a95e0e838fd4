// Node's file system (Node, Bun and Deno have it); the rest of the bulk entry needs none.
/// <reference types="node" />
/**
 * The file ledger: an append-only log, one checksummed record a line, and an index of it in
 * memory (`LedgerIndex`). No server, no native module: Node's `fs` (also in Bun and Deno),
 * loaded when the ledger opens, so that importing the bulk entry needs no file system.
 *
 * A line is the CRC-32 of its payload (8 hex digits) and the payload: one letter and JSON.
 *
 *     H{"ledger":"store-admin-sdk/bulk","version":1,"runId":"expire-cards"}   the header, first
 *     s"key"   started          S"key"   about to send a POST or PATCH
 *     b["key","fingerprint"]     started, with what the task sends (runBulk's `fingerprint`)
 *     d"key"   done             f["key",422,"message"]   failed     i[…]   ended in doubt
 *     c"cursor" (or cnull)      the walk's checkpoint
 *
 * Crash safety: records are appended in the order they happen. `sending` is written whole to
 * the file before it returns (the request goes out after it; a short or failed write stops the
 * run instead); other records are written together a
 * moment later, so a crash may lose the last few, which a resume reads as "not ended" (re-run,
 * or in doubt after a POST or PATCH): never as done. A process killed mid-write leaves a torn
 * last line; opening the file drops it (it fails its checksum or has no newline). A bad record
 * followed by good ones is damage, not a crash, and is refused. With `fsync: true` the
 * `sending` record also survives the machine losing power (and a new file's name too: its
 * directory is synced). A `b` record is unknown to 0.3.0, which refuses such a file by name.
 */
import type { Ledger, LedgerResume } from "./types.js";
import { checkRunId, inUse, LedgerIndex } from "./memory-ledger.js";
import type { LedgerLock } from "./ledger-lock.js";

type Fs = typeof import("node:fs");

const FORMAT = "store-admin-sdk/bulk";
const VERSION = 1;

/** How long opening waits for a lock held by another run: past a lease, which a killed run leaves. */
const DEFAULT_LOCK_WAIT_MS = 12_000;

/** Bytes of records kept before they are written, at most. */
const MAX_PENDING = 64 * 1024;

/** Options of {@link fileLedger}. */
export interface FileLedgerOptions {
  /** Also `fsync` each `sending` record, so that it survives a power loss (slower). Default false. */
  fsync?: boolean | undefined;
  /**
   * How long opening waits for a lock another run holds, in milliseconds, before refusing.
   * Default 12000: longer than a lease (10 s), so that a resume right after a crash goes on by
   * itself once the dead run's lease expires. 0: refuse at once.
   */
  lockWaitMs?: number | undefined;
}

const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** CRC-32 (IEEE) of `bytes[start, end)`, and whether they are all ASCII: one pass, as reading a log needs both. */
function crc32(bytes: Uint8Array, start = 0, end = bytes.length): { crc: number; ascii: boolean } {
  let crc = -1;
  let high = 0;
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    high |= byte;
    crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  }
  return { crc: (crc ^ -1) >>> 0, ascii: high < 0x80 };
}

const encoder = new TextEncoder();

/** One line of the log: checksum, payload, newline. */
export function ledgerLine(payload: string): string {
  return crc32(encoder.encode(payload)).crc.toString(16).padStart(8, "0") + payload + "\n";
}

/** The key of a `s"key"`-style payload. */
function keyOf(payload: string): string {
  return payload.includes("\\") ? (JSON.parse(payload.slice(1)) as string) : payload.slice(2, -1);
}

const HEADER_START = encoder.encode(`H{"ledger":"${FORMAT}"`);

/** Whether `bytes` is the beginning of a header line cut short (no newline yet). */
function isTornHeader(bytes: Uint8Array): boolean {
  if (bytes.indexOf(10) >= 0) return false;
  const sum = bytes.subarray(0, 8);
  if (!sum.every((b) => (b >= 48 && b <= 57) || (b >= 97 && b <= 102))) return false;
  const rest = bytes.subarray(8);
  return rest.length <= HEADER_START.length
    ? rest.every((b, i) => b === HEADER_START[i])
    : HEADER_START.every((b, i) => b === rest[i]);
}

/** The value of a hex digit byte, or -1. */
const hexValue = (byte: number): number =>
  byte >= 48 && byte <= 57 ? byte - 48 : byte >= 97 && byte <= 102 ? byte - 87 : -1;

/** The 8-hex-digit checksum at `bytes[at]`, or -1. */
function checksumAt(bytes: Uint8Array, at: number): number {
  let sum = 0;
  for (let i = at; i < at + 8; i++) {
    const digit = hexValue(bytes[i]!);
    if (digit < 0) return -1;
    sum = sum * 16 + digit;
  }
  return sum;
}

/** The run a log's first record names; throws unless it is this format's header of this version. */
function headerRunId(kind: string | undefined, payload: string, path: string): string {
  const header =
    kind === "H" ? (JSON.parse(payload.slice(1)) as { ledger?: string; version?: number; runId?: string }) : undefined;
  if (header?.ledger !== FORMAT || typeof header.runId !== "string") {
    throw new Error(
      `The file ${path} is not a bulk ledger (its first record is not a ledger header); it is left as it is.`,
    );
  }
  if (header.version !== VERSION)
    throw new Error(`The ledger file ${path} has version ${header.version}; this SDK reads version ${VERSION}.`);
  return header.runId;
}

/** One good record after the header, applied to `index`; `goodBytes` (the end of this record) names where an unknown one is. */
function applyRecord(
  index: LedgerIndex,
  kind: string | undefined,
  payload: string,
  path: string,
  goodBytes: number,
): void {
  switch (kind) {
    case "s":
      index.set(keyOf(payload), "started");
      break;
    case "b": {
      const [key, fingerprint] = JSON.parse(payload.slice(1)) as [string, string];
      index.set(key, "started", undefined, undefined, fingerprint);
      break;
    }
    case "S":
      index.set(keyOf(payload), "sending");
      break;
    case "d":
      index.set(keyOf(payload), "done");
      break;
    case "f":
    case "i": {
      const [key, status, error] = JSON.parse(payload.slice(1)) as [string, number | null, string];
      index.set(key, kind === "f" ? "failed" : "inDoubt", status ?? undefined, error);
      break;
    }
    case "c":
      index.cursor = JSON.parse(payload.slice(1)) as string | null;
      break;
    default:
      throw new Error(
        `The ledger file ${path} has a record of an unknown kind (${JSON.stringify(kind)}) at byte ${goodBytes}: written by a newer SDK?`,
      );
  }
}

/** Reads a log into `index`; returns the run it belongs to and the byte length of its good records. */
function readLog(
  bytes: Uint8Array,
  path: string,
  index: LedgerIndex,
): { runId: string | undefined; goodBytes: number } {
  const decoder = new TextDecoder();
  // The whole file decoded once; an ASCII line (most are) is a slice of it, found by its byte offset.
  const text = decoder.decode(bytes);
  let runId: string | undefined;
  let goodBytes = 0;
  let badAt: number | undefined;
  let charOffset = 0; // where `pos` is in `text`
  for (let pos = 0; pos < bytes.length; ) {
    const newline = bytes.indexOf(10, pos);
    if (newline < 0) break; // a torn last line
    const line = crc32(bytes, pos + 8, newline);
    const good = newline - pos > 8 && checksumAt(bytes, pos) === line.crc;
    const lineChars =
      line.ascii && checksumAt(bytes, pos) >= 0 ? newline - pos : decoder.decode(bytes.subarray(pos, newline)).length;
    const payloadStart = charOffset + 8;
    charOffset += lineChars + 1;
    if (!good) {
      badAt ??= pos;
      pos = newline + 1;
      continue;
    }
    if (badAt !== undefined) {
      throw new Error(
        `The ledger file ${path} is damaged at byte ${badAt}: a record there fails its checksum and good records follow it. It was not written by a crash alone; it is left as it is.`,
      );
    }
    const payload = text.slice(payloadStart, charOffset - 1);
    pos = newline + 1;
    goodBytes = pos;
    const kind = payload[0];
    if (runId === undefined) {
      runId = headerRunId(kind, payload, path);
      continue;
    }
    applyRecord(index, kind, payload, path, goodBytes);
  }
  // No whole header: only a header torn by a crash may be dropped, never someone else's file.
  if (runId === undefined && bytes.length > 0 && !isTornHeader(bytes)) {
    throw new Error(
      `The file ${path} is not a bulk ledger (it does not start with a ledger header); it is left as it is.`,
    );
  }
  return { runId, goodBytes };
}

/** One file ledger's state: the open file and its lock, the records not yet written, and why the run must stop. */
interface FileLedgerState {
  path: string;
  options: FileLedgerOptions;
  lockWaitMs: number;
  /** `the ledger file …`, as messages name it. */
  where: string;
  index: LedgerIndex;
  fs: Fs | undefined;
  fd: number | undefined;
  lock: LedgerLock | undefined;
  opening: boolean;
  pending: string;
  timer: ReturnType<typeof setTimeout> | undefined;
  failure: unknown;
}

/**
 * A ledger in one file at `path` (created if missing): an append-only log of checksummed
 * records. A file of another run is refused; a file another run holds (its lock, see
 * `ledger-lock.ts`) is refused. One object serves one run at a time, and again after it ends.
 */
export function fileLedger(path: string, options: FileLedgerOptions = {}): Ledger {
  if (typeof path !== "string" || path === "")
    throw new TypeError("fileLedger(path) takes the path of the ledger file, a non-empty string.");
  const lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
  if (!(Number.isFinite(lockWaitMs) && lockWaitMs >= 0))
    throw new TypeError(
      `fileLedger(path, { lockWaitMs }) takes a number of milliseconds ≥ 0, got ${String(options.lockWaitMs)}.`,
    );
  const state: FileLedgerState = {
    path,
    options,
    lockWaitMs,
    where: `the ledger file ${path}`,
    index: new LedgerIndex(),
    fs: undefined,
    fd: undefined,
    lock: undefined,
    opening: false,
    pending: "",
    timer: undefined,
    failure: undefined,
  };
  return {
    name: state.where,
    open: (runId) => open(state, runId),
    get: (key) => state.index.entries.get(key),
    start(key, fingerprint) {
      append(state, fingerprint === undefined ? "s" + JSON.stringify(key) : "b" + JSON.stringify([key, fingerprint]));
      state.index.set(key, "started", undefined, undefined, fingerprint);
    },
    sending: (key) => sending(state, key),
    end(key, end) {
      append(
        state,
        end.state === "done"
          ? "d" + JSON.stringify(key)
          : (end.state === "failed" ? "f" : "i") + JSON.stringify([key, end.status ?? null, end.error]),
      );
      state.index.end(key, end);
    },
    checkpoint(cursor) {
      append(state, "c" + JSON.stringify(cursor));
      state.index.cursor = cursor;
    },
    close: () => close(state),
  };
}

/** Writes `text` whole, or throws: a short write (a full disk, a file-size limit) is a failure. */
function write(state: FileLedgerState, text: string): void {
  const bytes = encoder.encode(text);
  for (let at = 0; at < bytes.length; ) {
    const wrote = state.fs!.writeSync(state.fd!, bytes, at, bytes.length - at);
    if (wrote <= 0) throw new Error(`the disk took ${at} of ${bytes.length} bytes`);
    at += wrote;
  }
}

/** Writes the pending records, or records why not in `failure`. */
function flush(state: FileLedgerState): void {
  if (state.timer !== undefined) clearTimeout(state.timer);
  state.timer = undefined;
  if (state.pending === "" || state.failure !== undefined) return;
  const text = state.pending;
  state.pending = "";
  try {
    // A run that lost the lock writes nothing more.
    state.lock!.check();
  } catch (error) {
    state.failure = error;
    return;
  }
  try {
    write(state, text);
  } catch (error) {
    state.failure = new Error(
      `Could not write ${state.where}: ${(error as Error).message}. The run stops: no request is sent after a record that is not whole on disk.`,
      { cause: error },
    );
  }
}

/** Adds a record to those written a moment later (at once past MAX_PENDING bytes). */
function append(state: FileLedgerState, payload: string): void {
  if (state.failure !== undefined) throw state.failure;
  if (state.fd === undefined) throw new Error(`${state.where} is not open: runBulk opens it.`);
  state.pending += ledgerLine(payload);
  if (state.pending.length >= MAX_PENDING) flush(state);
  else state.timer ??= setTimeout(() => flush(state), 0);
}

/** Creates the file if missing, locks it, reads its log (for `runId` only) and opens it to append. */
async function open(state: FileLedgerState, runId: string): Promise<LedgerResume> {
  const { path, options } = state;
  if (state.fd !== undefined || state.opening) throw inUse(`The ledger file ${path}`);
  state.opening = true;
  try {
    const fs = (state.fs = await import("node:fs"));
    const { dirname } = await import("node:path");
    // A ledger named in a directory not made yet (`runs/cards.ledger`): make it.
    fs.mkdirSync(dirname(path), { recursive: true });
    // The lock belongs to the file itself (its real path), so the file exists before it is locked.
    const created = !fs.existsSync(path);
    fs.closeSync(fs.openSync(path, "a"));
    if (created && options.fsync) syncDirectory(fs, dirname(path));
    const lock = (state.lock = await (await import("./ledger-lock.js")).lockLedger(path, state.lockWaitMs));
    state.index = new LedgerIndex();
    state.failure = undefined;
    try {
      readAndOpen(state, fs, runId);
    } catch (error) {
      if (state.fd !== undefined) fs.closeSync(state.fd);
      state.fd = undefined;
      await lock.release();
      throw error;
    }
  } finally {
    state.opening = false;
  }
  return state.index.resume();
}

/** Reads the locked file's log into the index, drops a torn last record, and opens it to append (a new file gets its header). */
function readAndOpen(state: FileLedgerState, fs: Fs, runId: string): void {
  const { path } = state;
  const bytes = fs.readFileSync(path);
  const log = readLog(bytes, path, state.index);
  if (log.runId !== undefined) checkRunId(`The ledger file ${path}`, log.runId, runId);
  // A torn last record is dropped before anything is appended after it.
  if (log.goodBytes < bytes.length) fs.truncateSync(path, log.goodBytes);
  state.fd = fs.openSync(path, "a");
  if (log.runId === undefined) {
    write(state, ledgerLine("H" + JSON.stringify({ ledger: FORMAT, version: VERSION, runId })));
    if (state.options.fsync) fs.fsyncSync(state.fd);
  }
}

/** The `sending` record, whole on disk (and synced with `fsync`) before the request may go out. */
function sending(state: FileLedgerState, key: string): void {
  append(state, "S" + JSON.stringify(key));
  flush(state);
  if (state.failure !== undefined) throw state.failure;
  try {
    if (state.options.fsync) state.fs!.fsyncSync(state.fd!);
    // Whole on disk, and still this run's: only then may the request go out.
    state.lock!.check();
  } catch (error) {
    state.failure = error;
    throw error;
  }
  state.index.set(key, "sending");
}

async function close(state: FileLedgerState): Promise<void> {
  if (state.fd === undefined) return;
  flush(state);
  state.fs!.closeSync(state.fd);
  state.fd = undefined;
  await state.lock!.release();
  if (state.failure !== undefined) throw state.failure;
}

/** Makes a new file's name durable: its directory's entry is synced too. */
function syncDirectory(fs: Fs, directory: string): void {
  const dirFd = fs.openSync(directory, "r");
  try {
    fs.fsyncSync(dirFd);
  } finally {
    fs.closeSync(dirFd);
  }
}
