/**
 * The client-wide pause on a 429: after a 429 with `Retry-After`, the calls of the client (and
 * of the clients derived from it, which share this object) that have not been sent yet wait
 * until that time, then go in the order they were made (their turn, taken when the call
 * starts). Without it each call meets the rate limit on its own and collects a 429 of its own.
 *
 * - A hint over `MAX_RETRY_AFTER_MS` holds nothing: the call that met it gets its 429 back (the
 *   retry policy), and the others meet the 429 on their own.
 * - A waiter whose signal aborts leaves at once, with the abort's reason, and sends nothing.
 * - The wait comes before an attempt starts, outside its `timeoutMs`.
 *
 * One timer, and only while someone waits: a pause nobody waits for keeps no process alive.
 */
import { MAX_RETRY_AFTER_MS, parseRetryAfterMs } from "../core/retry-policy.js";
import { onAbort } from "../core/timeout.js";
import { untilStopped } from "../core/sleep.js";
import type { PluginAttempt, PluginCall, StoreAdminPlugin } from "../core/plugin.js";
import { callerSignalOf, callOrder, sdkPlugin } from "./plugin-chain.js";

/** The pause of one client and its derivatives. */
export interface RatePause {
  /** Holds the calls not yet sent for `ms` from now (a 429's `Retry-After`); a longer pause already set stays. */
  hold(ms: number | undefined): void;
  /** Milliseconds left of the pause (0: none). */
  left(): number;
  /** `undefined` when there is no pause; else a wait for its end, served in `turn` order, rejected with `signal.reason` on an abort. */
  wait(turn: number, signal?: AbortSignal): Promise<void> | undefined;
}

/** A pause of its own, for a client made by `createStoreAdminClient()`. */
export function ratePause(): RatePause {
  let until = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Kept in turn order.
  const waiters: { turn: number; go: () => void }[] = [];
  const left = (): number => Math.max(0, until - performance.now());
  const wake = (): void => {
    timer = left() > 0 ? setTimeout(wake, left()) : void waiters.splice(0).forEach((waiter) => waiter.go());
  };
  return {
    hold(ms) {
      if (ms! > 0 && ms! <= MAX_RETRY_AFTER_MS) until = Math.max(until, performance.now() + ms!);
    },
    left,
    wait: (turn, signal) =>
      left() > 0
        ? new Promise<void>((resolve, reject) => {
            if (signal?.aborted) return reject(signal.reason);
            const waiter = { turn, go: () => (unwatch?.(), resolve()) };
            const unwatch =
              signal &&
              onAbort(signal, () => {
                waiters.splice(waiters.indexOf(waiter), 1);
                if (!waiters.length) timer = void clearTimeout(timer);
                reject(signal.reason);
              });
            waiters.push(waiter);
            waiters.sort((a, b) => a.turn - b.turn);
            timer ??= setTimeout(wake, left());
          })
        : undefined,
  };
}

/** How long an attempt waited in the pause (the logger's `pausedMs`: other plugins' waits are theirs). */
export const pausedMs = new WeakMap<PluginAttempt, number>();

/** What stops a derived client's waits (client.ts, `deriveClient`), by call. */
export const waitStops = new WeakMap<PluginCall, AbortSignal>();

/**
 * The pause as two plugins: the chain's first (before each attempt, a call waits out a pause in
 * the order calls were made, outside the attempt's `timeoutMs`; after it, a 429's `Retry-After`
 * holds the client's calls) and its last (a retry the pause covers waits in it, in turn, rather
 * than beside it: its delay shortened after the logger and telemetry have heard the policy's).
 * Both are idle (not run) while there is no pause and no 429.
 */
export function pausePlugins(pause: RatePause): [StoreAdminPlugin, StoreAdminPlugin] {
  const idle = (): boolean => pause.left() === 0;
  const wait: StoreAdminPlugin = {
    name: "rate-pause",
    wrapAttempt(attempt, next) {
      const { call } = attempt;
      const turn = callOrder(call);
      const stop = waitStops.get(call);
      // The caller's own signal: this SDK plugin runs without the chain's guard on it.
      const signal = callerSignalOf(call);
      const held =
        pause.left() > 0
          ? stop
            ? untilStopped(signal, stop, (both) => pause.wait(turn, both)!)
            : pause.wait(turn, signal)
          : undefined;
      if (!held) return next();
      const start = performance.now();
      return held.then(() => {
        pausedMs.set(attempt, Math.round(performance.now() - start));
        return next();
      });
    },
    onAttemptEnd(_attempt, outcome) {
      const { response } = outcome;
      if (response?.status === 429) pause.hold(parseRetryAfterMs(response.headers.get("retry-after")));
    },
  };
  const release: StoreAdminPlugin = {
    name: "rate-pause",
    onAttemptEnd(_attempt, _outcome, decision) {
      const left = pause.left();
      if (decision.retry && left > 0) return { retry: true, delayMs: Math.max(0, decision.delayMs - left) };
    },
  };
  return [
    sdkPlugin(wait, { attempt: idle, end: (response) => response?.status !== 429 }),
    sdkPlugin(release, { end: (_response, decision) => !decision.retry || idle() }),
  ];
}
