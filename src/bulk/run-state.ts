/**
 * What one `runBulk()` keeps as it goes: its tallies, the keys it met in this run, and what
 * stopped it. The steps of a run (`run-item.ts`, `run-progress.ts`, `run-checkpoint.ts`) read and
 * write this one object, so that none of them holds a count of its own.
 */
import type { BulkFailure } from "./types.js";

/** How an item was settled. */
export type Fate = "done" | "failed" | "inDoubt" | "skipped";

export interface RunState {
  done: number;
  failed: number;
  skipped: number;
  /** Tasks ended (for the pace). */
  settled: number;
  /** Items dealt with in any way (for the ETA). */
  handled: number;
  /** Keys in doubt: those the ledger held so at the start, and those that ended so. */
  readonly inDoubtKeys: Set<string>;
  readonly failures: BulkFailure[];
  /** Keys that failed or ended in doubt in this run (few): met again, they are not run again. */
  readonly failedNow: Set<string>;
  readonly doubtNow: Set<string>;
  readonly inFlight: Set<string>;
  /** What stops the whole run: the first one is thrown once the tasks in flight end. */
  fatal: { error: unknown } | undefined;
  /** The items ran out (the run was not stopped). */
  exhausted: boolean;
}

export function runState(inDoubt: Iterable<string>): RunState {
  return {
    done: 0,
    failed: 0,
    skipped: 0,
    settled: 0,
    handled: 0,
    inDoubtKeys: new Set(inDoubt),
    failures: [],
    failedNow: new Set(),
    doubtNow: new Set(),
    inFlight: new Set(),
    fatal: undefined,
    exhausted: false,
  };
}

/** Keeps the first error that stops the run. */
export function stopRun(state: RunState, error: unknown): void {
  state.fatal ??= { error };
}
