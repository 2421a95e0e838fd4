/**
 * The `rateLimit()` plugin: at most `maxConcurrent` attempts in flight and `perSecond` started
 * in any rolling second, across every client that runs this plugin object (a client, and the
 * clients derived from it: the bulk runner's, the MCP server's). p-queue does the counting (its
 * `strict` mode is a sliding window, so no second ever holds more than `perSecond`).
 *
 * After a 429 with a `Retry-After` the SDK waits out (up to 60 s), the queue pauses until then
 * and starts again under the same bounds: the calls the client's pause held leave at the
 * plugin's pace, not in one burst. Each wait is before an attempt, outside its `timeoutMs`.
 */
import PQueue from "p-queue";
import { MAX_RETRY_AFTER_MS, parseRetryAfterMs, type StoreAdminPlugin } from "#shared";

/** The options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** Most attempts in flight at once. @default unbounded */
  maxConcurrent?: number | undefined;
  /** Most attempts started in any one second. @default unbounded */
  perSecond?: number | undefined;
}

function checkBound(name: string, value: unknown): void {
  if (value !== undefined && !(typeof value === "number" && Number.isInteger(value) && value >= 1)) {
    throw new TypeError(`rateLimit({ ${name} }) must be a whole number ≥ 1, got ${typeof value === "number" ? value : typeof value}.`);
  }
}

/**
 * Bounds the client's attempts (retries included) by `maxConcurrent` and `perSecond`.
 * @example
 * createStoreAdminClient({ …, plugins: [rateLimit({ maxConcurrent: 4, perSecond: 5 })] });
 */
export function rateLimit(options: RateLimitOptions = {}): StoreAdminPlugin & { readonly limits: Readonly<RateLimitOptions> } {
  if (typeof options !== "object" || options === null) throw new TypeError("rateLimit() takes { maxConcurrent?, perSecond? }.");
  const { maxConcurrent, perSecond } = options;
  checkBound("maxConcurrent", maxConcurrent);
  checkBound("perSecond", perSecond);
  const queue = new PQueue({ concurrency: maxConcurrent ?? Infinity, ...(perSecond ? { intervalCap: perSecond, interval: 1000, strict: true } : {}) });
  let resumeAt = 0;
  const pauseFor = (ms: number): void => {
    const until = Date.now() + ms;
    if (until <= resumeAt) return;
    resumeAt = until;
    queue.pause();
    setTimeout(() => {
      if (Date.now() >= resumeAt) queue.start();
    }, ms);
  };
  return {
    name: "rate-limit",
    limits: { maxConcurrent, perSecond },
    async wrapAttempt(attempt, next) {
      const signal = attempt.call.signal;
      const outcome = await queue.add(() => next(), signal ? { signal } : {});
      const response = outcome.response;
      if (response?.status === 429) {
        const waitMs = parseRetryAfterMs(response.headers.get("retry-after"));
        if (waitMs !== undefined && waitMs > 0 && waitMs <= MAX_RETRY_AFTER_MS) pauseFor(waitMs);
      }
      return outcome;
    },
  };
}
