/**
 * Waits `ms` milliseconds, or rejects with `signal.reason` as soon as `signal` aborts.
 *
 * The timer is cleared and the listener removed on both paths, so an aborted or finished
 * sleep leaves nothing behind that would keep a process (or a test run) alive.
 * Not exported from the package.
 */
import { onAbort } from "../timeout.js";

export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      unwatch?.();
      resolve();
    }, Math.max(0, ms));
    const unwatch = signal && onAbort(signal, () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}
