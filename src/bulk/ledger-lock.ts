/// <reference types="node" />
/**
 * The lock of a ledger file: one run at a time writes it. It belongs to the file, not to the
 * path as typed (a symlink, `dir//a.ledger`, a relative or an absolute path all resolve to the
 * same lock, `<real path>.lock`), is taken atomically, and is a lease: the holder renews it
 * (proper-lockfile's mtime heartbeat), and a lock whose lease was not renewed for `LEASE_MS` is
 * stale and may be taken over. No process id is read: containers share a volume, not their
 * process ids.
 *
 * proper-lockfile takes a stale lock by `rmdir` then `mkdir`, and a contender that saw the lock
 * stale a moment earlier can remove a lock just taken again, so that two hold it
 * (moxystudio/node-proper-lockfile#121). Its `fs` option is where that is closed:
 * - a lock directory is made whole elsewhere, holding a file named by the holder's token, and
 *   renamed into place: a rename onto a lock that exists (never empty) fails;
 * - a stale lock is removed by one contender at a time (`<lock>.takeover`, made with `mkdir`),
 *   which looks at it again first, and moves it aside before deleting it; a release removes
 *   only the releaser's own lock.
 * `check()` looks for the token after a record is written and before its request goes out: a
 * run that finds it gone, or whose renewal failed, sends nothing more. A contender reads the
 * ledger only once it holds the lock, so a record written before a successful check is seen.
 */
import { existsSync, lstatSync, mkdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as fs from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { lock } from "proper-lockfile";
import { ledgerLockPath } from "./ledger-lock-path.js";

// Node ignores SIGXFSZ, so that a write past a file-size limit fails with EFBIG; proper-lockfile's
// signal-exit listens for it and then kills the process with it, unless another listener exists.
// This one keeps Node's behaviour: the write fails, and the run says why.
process.on("SIGXFSZ", () => undefined);

/** How long a lock lives without being renewed; it is renewed every half of it. */
const LEASE_MS = 10_000;

/** Between two looks at a lock another run holds, while waiting for it. */
const RETRY_MS = 500;

export interface LedgerLock {
  /** Throws, saying why, unless this run still holds the lock. */
  check(): void;
  /** Releases the lock (a lost one is left alone). */
  release(): Promise<void>;
}

type Callback = (error?: NodeJS.ErrnoException | null) => void;

/** The ledger files (real paths) this process holds: a refusal of one of them says so. */
const heldHere = new Set<string>();

const held = (message: string): NodeJS.ErrnoException => Object.assign(new Error(message), { code: "ELOCKED" });

/** One lock being taken or held: where it is, this run's token in it, and what became of it. */
interface LockState {
  /** The ledger's path as given (messages name it). */
  readonly path: string;
  /** The ledger's real path. */
  readonly file: string;
  readonly lockPath: string;
  readonly token: string;
  /** The file named by the token, inside the lock directory while this run holds it. */
  readonly mine: string;
  /** Made with `mkdir` by the one contender taking over a stale lock. */
  readonly takeover: string;
  /** Why the lock was lost, once it was. */
  lost: string | undefined;
  releasing: boolean;
  /** Locks moved aside so far (each aside gets a name of its own). */
  asides: number;
}

/**
 * Takes the lock of the ledger file at `path` (which must exist), waiting up to `waitMs` for a
 * lock another run holds (a lease left by a killed process expires meanwhile), or throws saying
 * who holds it.
 */
export async function lockLedger(path: string, waitMs: number): Promise<LedgerLock> {
  const file = realpathSync(path);
  const lockPath = ledgerLockPath(file);
  if (heldHere.has(file))
    throw refusal(
      path,
      lockPath,
      "it is already open in this process (another runBulk call, or a ledger object not closed)",
    );
  if (lstatSync(lockPath, { throwIfNoEntry: false })?.isFile()) {
    throw refusal(
      path,
      lockPath,
      `a lock file of an earlier store-admin-sdk (0.3.0) is there, holding a process id; if no run of that version uses this ledger, delete it`,
    );
  }
  const token = randomUUID();
  const state: LockState = {
    path,
    file,
    lockPath,
    token,
    mine: join(lockPath, token),
    takeover: `${lockPath}.takeover`,
    lost: undefined,
    releasing: false,
    asides: 0,
  };
  const unlock = await acquire(state, waitMs);
  heldHere.add(file);
  return {
    check() {
      if (state.lost === undefined && !existsSync(state.mine)) state.lost = "another run took its lock";
      if (state.lost !== undefined) {
        throw new Error(
          `The run lost the lock of the ledger ${path}: ${state.lost}. It sends nothing more; the ledger holds what was sent, so the run that holds the lock, or a resume, goes on from there.`,
        );
      }
    },
    async release() {
      state.releasing = true;
      heldHere.delete(file);
      await unlock().catch(() => undefined);
    },
  };
}

function refusal(path: string, lockPath: string, why: string, cause?: unknown): Error {
  return new Error(
    `The ledger ${path} is in use: ${why} (${lockPath}). Two runs must not write one ledger at once; wait for the other run to end, or give this run another ledger.`,
    { cause },
  );
}

/** proper-lockfile's lease over our `fs` steps; resolves with its unlock, or throws saying who holds the lock. */
async function acquire(state: LockState, waitMs: number): Promise<() => Promise<void>> {
  try {
    return await lock(state.file, {
      lockfilePath: state.lockPath,
      realpath: false,
      stale: LEASE_MS,
      retries: { retries: Math.ceil(waitMs / RETRY_MS), factor: 1, minTimeout: RETRY_MS, maxTimeout: RETRY_MS },
      fs: leaseFs(state),
      onCompromised: (error) => {
        state.lost = `its lease could not be renewed (${error.message})`;
      },
    });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const held = code === "ELOCKED" && message === "Lock file is already being held";
    // ENOENT: the lock just taken was moved by a contender that took it first.
    const why =
      held || code === "ENOENT"
        ? `another run holds it and renews its lease (a process on this machine, or on another sharing the volume${waitMs > 0 ? `; waited ${waitMs} ms` : ""})`
        : message;
    throw refusal(state.path, state.lockPath, why, error);
  }
}

/** The `fs` proper-lockfile works through: its mkdir and rmdir of the lock's own path are `take` and `remove`. */
function leaseFs(state: LockState) {
  const { lockPath, mine } = state;
  // proper-lockfile calls fs.mkdir/rmdir with callbacks: ours, on the lock's own path, are synchronous.
  const onLockPath =
    (step: () => void, other: (target: string, done: Callback) => void) => (target: string, done: Callback) => {
      if (target !== lockPath) return other(target, done);
      try {
        step();
        done(null);
      } catch (error) {
        done(error as NodeJS.ErrnoException);
      }
    };
  return {
    ...fs,
    mkdir: onLockPath(() => take(state), fs.mkdir),
    rmdir: onLockPath(() => remove(state), fs.rmdir),
    // proper-lockfile's clean-up when the process exits.
    rmdirSync(target: string) {
      if (target === lockPath && existsSync(mine)) rmSync(lockPath, { recursive: true, force: true });
    },
  };
}

/** Makes the lock directory whole beside its place, holding this run's token, and renames it into place (fails if a lock is there). */
function take(state: LockState): void {
  const { lockPath, token } = state;
  const draft = `${lockPath}.${token}`;
  try {
    mkdirSync(draft);
    writeFileSync(join(draft, token), "");
    renameSync(draft, lockPath);
  } catch (error) {
    rmSync(draft, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTEMPTY: a lock is there; ENOTDIR: a lock file of store-admin-sdk 0.3.0.
    throw code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOTDIR"
      ? Object.assign(new Error("held"), { code: "EEXIST" })
      : error;
  }
}

/** Moves the lock aside (atomic: one mover wins) and deletes it if `removable`, else puts it back. */
function moveAside(state: LockState, removable: (aside: string) => boolean): void {
  const { lockPath } = state;
  const aside = `${lockPath}.${state.token}.${++state.asides}`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (removable(aside)) {
    rmSync(aside, { recursive: true, force: true });
    return;
  }
  // Renewed since it was seen stale (its holder was frozen, not dead): put it back; if the
  // place was taken meanwhile, its holder finds its token gone and stops.
  try {
    renameSync(aside, lockPath);
  } catch {
    rmSync(aside, { recursive: true, force: true });
  }
  throw held("Lock file is already being held");
}

const isStale = (target: string): boolean =>
  (statSync(target, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < Date.now() - LEASE_MS;

/** proper-lockfile's removal of the lock: this run's own on release, or a stale one taken over. */
function remove(state: LockState): void {
  const { lockPath, takeover, token } = state;
  if (state.releasing) {
    // A lock another run took since is theirs now: leave it.
    if (existsSync(state.mine)) moveAside(state, (aside) => existsSync(join(aside, token)));
    return;
  }
  // A stale lock is taken over by one contender at a time, which looks again while it holds
  // the takeover: a contender whose look is older can no longer remove a lock taken since.
  try {
    mkdirSync(takeover);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // Left by a contender killed mid-takeover (a few microseconds' window): cleared once old.
    if (isStale(takeover)) rmSync(takeover, { recursive: true, force: true });
    throw held("Lock file is already being held");
  }
  try {
    if (!existsSync(lockPath)) return;
    if (!isStale(lockPath)) throw held("Lock file is already being held");
    moveAside(state, isStale);
  } finally {
    rmSync(takeover, { recursive: true, force: true });
  }
}
