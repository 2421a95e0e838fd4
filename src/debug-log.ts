/**
 * What `STORE_ADMIN_LOG` prints to stderr (`console.error`), one line per attempt in
 * {@link formatLogEvent}'s format (method, path template, status, attempt, duration,
 * request id, the error and the retry plan; never a header, a query, a body or the token):
 *
 * - `warn`: the attempts that end a call with an error (an error status or a thrown error, no retry left);
 * - `info`: those, and every attempt that is retried;
 * - `debug`: every attempt, successes too.
 *
 * Any other value prints one warning line, once per process, and nothing else.
 */
import { formatLogEvent, type RequestLogEvent } from "./logger.js";

const LEVELS = ["warn", "info", "debug"];

let warned = false;

/** Prints `event` when `level` asks for it. */
export function printEnvLog(level: string, event: RequestLogEvent): void {
  const rank = LEVELS.indexOf(level.trim().toLowerCase());
  if (rank < 0) {
    if (!warned) console.error(`store-admin-sdk: STORE_ADMIN_LOG=${JSON.stringify(level)} is not one of ${LEVELS.join(", ")}; nothing is logged.`);
    warned = true;
    return;
  }
  const failed = event.error !== undefined || (event.status ?? 0) >= 400;
  const shown = event.willRetry ? 1 : failed ? 0 : 2;
  if (rank >= shown) console.error(formatLogEvent(event));
}
