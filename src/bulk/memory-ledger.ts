/**
 * The default ledger: a map in memory. It lives as long as the object: a second `runBulk` with
 * the same ledger and `runId` in the same process resumes (after a stop, say), a new process
 * starts afresh; two runs at once on one object are refused. Also the index the file ledger
 * keeps of its log.
 */
import type { KeyState, Ledger, LedgerEnd, LedgerEntry, LedgerResume } from "./types.js";

// One shared object per plain state: a million done keys are a million map slots, not objects.
const PLAIN: Readonly<Record<"started" | "sending" | "done", LedgerEntry>> = {
  started: Object.freeze({ state: "started" }),
  sending: Object.freeze({ state: "sending" }),
  done: Object.freeze({ state: "done" }),
};

/** What every ledger keeps in memory: each key's latest record, and the walk's cursor. */
export class LedgerIndex {
  readonly entries = new Map<string, LedgerEntry>();
  cursor: string | null | undefined;

  /** A key's new state; the fingerprint recorded at its start stays with it (`start` gives a new one). */
  set(key: string, state: KeyState, status?: number, error?: string, fingerprint?: string): void {
    fingerprint ??= state === "started" ? undefined : this.entries.get(key)?.fingerprint;
    const entry: LedgerEntry = state === "failed" || state === "inDoubt" ? { state, status, error } : PLAIN[state];
    this.entries.set(key, fingerprint === undefined ? entry : { ...entry, fingerprint });
  }

  end(key: string, end: LedgerEnd): void {
    if (end.state === "done") this.set(key, "done");
    else this.set(key, end.state, end.status, end.error);
  }

  /** What a new run resumes from. */
  resume(): LedgerResume {
    const inDoubt: string[] = [];
    for (const [key, entry] of this.entries) {
      if (entry.state === "sending" || entry.state === "inDoubt") inDoubt.push(key);
    }
    return { cursor: this.cursor, inDoubt };
  }
}

/** Refuses a ledger that belongs to another run. */
export function checkRunId(where: string, owner: string, runId: string): void {
  if (owner !== runId) {
    throw new Error(
      `${where} belongs to the run ${JSON.stringify(owner)}, not ${JSON.stringify(runId)}: ` +
        "resume that run with its own runId, or give this run a new ledger.",
    );
  }
}

/** The refusal of a ledger object that a run of this process has open. */
export function inUse(where: string): Error {
  return new Error(
    `${where} is in use by another run of this process (the same ledger object given to two runBulk calls at once): let that run end first, or give this run another ledger.`,
  );
}

/** A ledger in memory (the default). */
export function memoryLedger(): Ledger {
  const index = new LedgerIndex();
  let owner: string | undefined;
  let open = false;
  return {
    name: "the memory ledger",
    async open(runId) {
      if (open) throw inUse("This memory ledger");
      if (owner !== undefined) checkRunId("This memory ledger", owner, runId);
      owner = runId;
      open = true;
      return index.resume();
    },
    get: (key) => index.entries.get(key),
    start: (key, fingerprint) => index.set(key, "started", undefined, undefined, fingerprint),
    sending: (key) => index.set(key, "sending"),
    end: (key, end) => index.end(key, end),
    checkpoint: (cursor) => {
      index.cursor = cursor;
    },
    close: async () => {
      open = false;
    },
  };
}
