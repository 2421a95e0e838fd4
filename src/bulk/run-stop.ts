/**
 * How a run stops: its `signal` (no more items; every wait for the budget, a pause or a retry
 * ends at once), `abortInFlight` (the tasks in flight are aborted too), or a `Retry-After`
 * longer than `maxPauseMs` (stopped as a signal would stop it, with a message saying when to
 * resume).
 */
import { durationText } from "./budget.js";
import type { Slot } from "./observe.js";

interface RunStop {
  /** What a task that was waiting when the run stopped ends with (see `notSent` in run-item.ts). */
  readonly reason: DOMException;
  /** Aborted when the run stops: ends every wait of the run's clients. */
  readonly waits: AbortSignal;
  /** Called by a worker's transport for a `Retry-After` beyond `maxPauseMs`. */
  readonly onLongPause: (waitMs: number, status: number) => void;
  /** Why a long pause stopped the run, if one did. */
  pauseStop(): string | undefined;
  /** Whether the run was stopped in any of the three ways. */
  stopped(): boolean;
  /** Listens to the run's signals, aborting `slots`' tasks on a hard stop. */
  listen(signal: AbortSignal | undefined, abortInFlight: AbortSignal | undefined, slots: readonly Slot[]): void;
  /** Stops listening (the run is over). */
  unlisten(): void;
}

/** A date past what Date holds (Retry-After: 99999999999999999999) is said in words: toISOString() would throw. */
function resumeTime(waitMs: number): string {
  const at = new Date(Date.now() + waitMs);
  return Number.isNaN(at.getTime())
    ? "a time beyond any date (the store's Retry-After is not a usable time; ask its operator)"
    : at.toISOString();
}

export function runStop(maxPauseMs: number): RunStop {
  // A stop ends every wait for the budget, a pause or a retry at once (a 429 may ask for minutes);
  // the task that waited ends with this reason, and is left as it was (see `notSent`).
  const reason = new DOMException(
    "The run was stopped while this task waited for the rate budget, a pause or a retry.",
    "AbortError",
  );
  const waits = new AbortController();
  const stopWaiting = (): void => waits.abort(reason);
  let pauseStop: string | undefined;
  let stoppedHard = false;
  let signal: AbortSignal | undefined;
  let abortInFlight: AbortSignal | undefined;
  let onHardStop: (() => void) | undefined;
  return {
    reason,
    waits: waits.signal,
    onLongPause(waitMs, status) {
      if (pauseStop !== undefined) return;
      pauseStop =
        `The store answered ${status} with a Retry-After of ${durationText(waitMs)}, longer than maxPauseMs (${durationText(maxPauseMs)}): ` +
        `the run stopped. Run it again with the same runId and ledger after ${resumeTime(waitMs)} to go on.`;
      stopWaiting();
    },
    pauseStop: () => pauseStop,
    stopped: () => signal?.aborted === true || stoppedHard || pauseStop !== undefined,
    listen(runSignal, runAbortInFlight, slots) {
      signal = runSignal;
      abortInFlight = runAbortInFlight;
      const hardStop = (): void => {
        stoppedHard = true;
        stopWaiting();
        for (const slot of slots) slot.stop.abort(runAbortInFlight?.reason);
      };
      onHardStop = hardStop;
      if (runAbortInFlight?.aborted) hardStop();
      runAbortInFlight?.addEventListener("abort", hardStop, { once: true });
      if (runSignal?.aborted) stopWaiting();
      runSignal?.addEventListener("abort", stopWaiting, { once: true });
    },
    unlisten() {
      if (onHardStop) abortInFlight?.removeEventListener("abort", onHardStop);
      signal?.removeEventListener("abort", stopWaiting);
    },
  };
}
