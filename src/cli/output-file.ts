/// <reference types="node" />
/**
 * The files the bulk command writes (failures, calls in doubt): checked before anything is sent,
 * and written so that a symlink planted at their name is replaced, never followed. A file is
 * written whole to a new temporary file beside it (created exclusively: `wx` opens no existing
 * file nor symlink) and renamed over its name, which replaces a symlink itself, not its target.
 */
import { randomBytes } from "node:crypto";
import { constants, type Stats } from "node:fs";
import { access, open, realpath, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join, resolve, sep } from "node:path";
import { ledgerLockPath } from "../bulk/ledger-lock-path.js";
import { InputError } from "./input-error.js";

/** A file the command writes, named by its flag (`--failures FILE`) for messages. */
export interface OutputFile {
  flag: string;
  path: string;
}

async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}

/** Where a file at `path` is written: its folder's real path and its name (a symlink at the name is replaced, not followed). */
async function location(path: string): Promise<string> {
  const folder = await realpath(dirname(resolve(path))).catch(() => dirname(resolve(path)));
  return join(folder, basename(path));
}

/** Where `path` leads: the file itself when it exists (dev and inode), else {@link location}. */
async function identity(path: string): Promise<string> {
  const found = await statOrUndefined(path);
  return found ? `${found.dev}:${found.ino}` : location(path);
}

/**
 * Refuses, before anything is sent, an output that is the input, the ledger or another output
 * (writing it would destroy that file), one at or inside the ledger's lock (a file there makes
 * every later run of the ledger refuse it as a lock), and one whose folder cannot be written
 * (the calls would be sent and their failures lost), each with an {@link InputError} naming the
 * files.
 */
export async function checkOutputs(
  outputs: readonly OutputFile[],
  others: readonly OutputFile[],
  ledger?: OutputFile,
): Promise<void> {
  // The lock is keyed by the ledger's real path, as the lock itself derives it.
  const lock = ledger && ledgerLockPath(await realpath(ledger.path).catch(() => location(ledger.path)));
  for (const output of outputs) {
    const at = await location(output.path);
    if (lock !== undefined && (at === lock || at.startsWith(`${lock}${sep}`))) {
      throw new InputError(
        `${output.flag} ${output.path} is the lock of ${ledger!.flag} ${ledger!.path} (${lock}): a file there would stop every later run of that ledger. Give ${output.flag} another path.`,
      );
    }
  }
  const seen: Array<OutputFile & { id: string }> = [];
  for (const other of others) seen.push({ ...other, id: await identity(other.path) });
  for (const output of outputs) {
    const id = await identity(output.path);
    const same = seen.find((other) => other.id === id);
    if (same) {
      throw new InputError(
        `${output.flag} ${output.path} is the same file as ${same.flag} ${same.path}: writing it would destroy that file. Give ${output.flag} another path.`,
      );
    }
    seen.push({ ...output, id });
    if ((await statOrUndefined(output.path))?.isDirectory())
      throw new InputError(`${output.flag} ${output.path} is a folder; give it the path of a file.`);
    const folder = dirname(resolve(output.path));
    const why = await access(folder, constants.W_OK).then(
      async () => ((await statOrUndefined(folder))?.isDirectory() ? undefined : `${folder} is not a folder`),
      (error: Error) => error.message,
    );
    if (why !== undefined)
      throw new InputError(
        `${output.flag} ${output.path}: its folder cannot be written (${why}); give ${output.flag} a path in a folder you can write.`,
      );
  }
}

/**
 * Writes the lines `write` produces to `path`: to a temporary file beside it, then renamed over
 * it. On an error the temporary file is removed and the error names `path`.
 */
export async function writeOutput(
  output: OutputFile,
  write: (line: (text: string) => Promise<void>) => Promise<void>,
): Promise<void> {
  const temporary = join(dirname(output.path), `.${basename(output.path)}.${randomBytes(6).toString("hex")}.tmp`);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(temporary, "wx", 0o644);
    const file = handle;
    // Lines are gathered into writes of about 64 KiB: a write a line would be a system call each.
    let buffered = "";
    await write(async (text) => {
      buffered += text;
      if (buffered.length < 65_536) return;
      const chunk = buffered;
      buffered = "";
      await file.write(chunk);
    });
    if (buffered !== "") await file.write(buffered);
    await handle.close();
    handle = undefined;
    await rename(temporary, output.path);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await unlink(temporary).catch(() => undefined);
    throw new Error(`${output.flag} ${output.path} could not be written (${(error as Error).message})`);
  }
}
