/**
 * Abortable waits. The timer is cleared and the listener removed on both paths, so an aborted or finished
 * sleep leaves nothing behind that would keep a process (or a test run) alive.
 * Not exported from the package.
 */
import { MAX_TIMER_DELAY_MS, onAbort } from "./timeout.js";

/**
 * Waits `ms` milliseconds, or rejects with `signal.reason` as soon as `signal` aborts. A wait
 * longer than `setTimeout` can hold (2^31−1 ms, about 24.8 days: beyond it the timer fires at
 * once, with a `TimeoutOverflowWarning`) is a chain of sleeps that each hold at most that long.
 */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(
      () => {
        unwatch?.();
        if (ms > MAX_TIMER_DELAY_MS) sleep(ms - MAX_TIMER_DELAY_MS, signal).then(resolve, reject);
        else resolve();
      },
      Math.min(Math.max(0, ms), MAX_TIMER_DELAY_MS),
    );
    const unwatch =
      signal &&
      onAbort(signal, () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
  });
}

/**
 * Runs `wait` with a signal that aborts when either `signal` (the call's) or `stop` does, and
 * removes its listeners after: a wait that must also end when something beyond its call stops.
 */
export async function untilStopped(
  signal: AbortSignal | null | undefined,
  stop: AbortSignal,
  wait: (signal: AbortSignal) => Promise<void>,
): Promise<void> {
  if (stop.aborted) throw stop.reason;
  if (!signal) return wait(stop);
  if (signal.aborted) throw signal.reason;
  const both = new AbortController();
  const unwatchCall = onAbort(signal, () => both.abort(signal.reason));
  const unwatchStop = onAbort(stop, () => both.abort(stop.reason));
  try {
    await wait(both.signal);
  } finally {
    unwatchCall();
    unwatchStop();
  }
}
