/** A run's `onProgress`: its counters at most every `progressIntervalMs`, with the pace and the ETA. */
import { stopRun, type RunState } from "./run-state.js";
import type { BulkProgress } from "./types.js";

export const DEFAULT_PROGRESS_INTERVAL_MS = 200;
/** The window `perSecond` is measured over. */
const PACE_WINDOW_MS = 5_000;

/**
 * Reports `state` to `onProgress`: when `force`d, or when `intervalMs` passed since the last
 * report. An `onProgress` that throws stops the run.
 */
export function progressReporter(
  state: RunState,
  onProgress: ((progress: BulkProgress) => void) | undefined,
  intervalMs: number,
  total: number | undefined,
): (force: boolean) => void {
  const pace: Array<[number, number]> = [];
  let lastProgress = -Infinity;
  return (force) => {
    if (!onProgress) return;
    const now = performance.now();
    if (!force && now - lastProgress < intervalMs) return;
    lastProgress = now;
    pace.push([now, state.settled]);
    while (pace.length > 2 && now - pace[0]![0] > PACE_WINDOW_MS) pace.shift();
    const [since, settledThen] = pace[0]!;
    const perSecond = now - since > 0 ? ((state.settled - settledThen) * 1000) / (now - since) : 0;
    const { done, failed, skipped } = state;
    const snapshot: BulkProgress = {
      done,
      failed,
      skipped,
      inDoubt: state.inDoubtKeys.size,
      inFlight: state.inFlight.size,
      perSecond,
    };
    if (total !== undefined) {
      snapshot.total = total;
      if (perSecond > 0) snapshot.etaMs = Math.round((Math.max(0, total - state.handled) / perSecond) * 1000);
    }
    try {
      onProgress(snapshot);
    } catch (error) {
      stopRun(state, error);
    }
  };
}
