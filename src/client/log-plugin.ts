/**
 * The `logger` option (and `STORE_ADMIN_LOG`) as the chain's last plugin: one event per attempt
 * that went out, after every other plugin has had its say, so that `willRetry` is what the call
 * does. Nothing of it runs for a client without a logger.
 */
import type { StoreAdminPlugin } from "../core/plugin.js";
import { attemptEvent, emitLogEvent, type Logger } from "../core/logger.js";
import { sdkPlugin, secretsOf } from "./plugin-chain.js";
import { pausedMs } from "./rate-pause.js";

export function logPlugin(logger: Logger): StoreAdminPlugin {
  return sdkPlugin({
    name: "logger",
    onAttemptEnd(attempt, outcome, decision) {
      const { call } = attempt;
      const operation = { method: call.method, path: call.path };
      const secrets = secretsOf(call);
      // An answered attempt that a plugin failed (a strict contract check) is logged by its error.
      const response = outcome.error === undefined ? outcome.response : undefined;
      const startedMs = performance.now() - outcome.durationMs;
      emitLogEvent(logger, () =>
        attemptEvent({
          operation,
          attempt: attempt.number,
          startedMs,
          response,
          body: outcome.errorBody,
          error: response ? undefined : outcome.error,
          decision,
          secrets,
          pausedMs: pausedMs.get(attempt) ?? 0,
        }),
      );
    },
  });
}
