/**
 * The `rateLimit()` plugin: at most `maxConcurrent` attempts in flight and `perSecond` in any
 * rolling second, across every client that runs this plugin object (a client, and the clients
 * derived from it: the bulk runner's, the MCP server's). Two p-queues count: one of
 * `maxConcurrent` slots held for the attempt, one of `perSecond` slots each held for the attempt
 * and one second after its answer. Counting from the answer, not from the start, is what holds
 * at the store: a request reaches it at some time between the two, and how long after the start
 * depends on the network and the process (a first call's connection, a busy event loop: a
 * window counted from the starts let 10 requests into one second at a server, 5 of them sent
 * cold). A second slot is free only a second after the store has surely seen its request.
 *
 * After a 429 with a `Retry-After` the SDK waits out (up to 60 s), the queue pauses until then
 * and starts again under the same bounds: the calls the client's pause held leave at the
 * plugin's pace, not in one burst. Each wait is before an attempt, outside its `timeoutMs`.
 */
import PQueue from "p-queue";
import { checkWholeNumber, MAX_RETRY_AFTER_MS, parseRetryAfterMs, type StoreAdminPlugin } from "#shared";

/** The options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** Most attempts in flight at once. @default unbounded */
  maxConcurrent?: number | undefined;
  /** Most attempts started in any one second. @default unbounded */
  perSecond?: number | undefined;
}

function checkBound(name: string, value: unknown): void {
  checkWholeNumber(`rateLimit({ ${name} })`, value, 1, (v) => (typeof v === "number" ? v : typeof v));
}

/**
 * Bounds the client's attempts (retries included) by `maxConcurrent` and `perSecond`.
 * @example
 * createStoreAdminClient({ …, plugins: [rateLimit({ maxConcurrent: 4, perSecond: 5 })] });
 */
export function rateLimit(
  options: RateLimitOptions = {},
): StoreAdminPlugin & { readonly limits: Readonly<RateLimitOptions> } {
  if (typeof options !== "object" || options === null)
    throw new TypeError("rateLimit() takes { maxConcurrent?, perSecond? }.");
  const { maxConcurrent, perSecond } = options;
  checkBound("maxConcurrent", maxConcurrent);
  checkBound("perSecond", perSecond);
  const queue = new PQueue({ concurrency: maxConcurrent ?? Infinity });
  const seconds = perSecond ? new PQueue({ concurrency: perSecond }) : undefined;
  // A slot of the second's queue: the attempt, then a second after its answer (a timer that keeps a process up to a second after its last call).
  const inSecond = <Result>(task: () => Promise<Result>, signal: AbortSignal | undefined): Promise<Result> =>
    new Promise<Result>((resolve, reject) => {
      const slot = async (): Promise<void> => {
        await task().then(resolve, reject);
        await new Promise<void>((done) => setTimeout(done, 1000));
      };
      // An abort while waiting for a slot rejects with the signal's reason, as every wait of the client does.
      seconds!.add(slot, signal ? { signal } : {}).catch(() => reject(signal?.reason));
    });
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
  const plugin = {
    name: "rate-limit",
    limits: { maxConcurrent, perSecond },
    async wrapAttempt(attempt, next) {
      const signal = attempt.call.signal;
      const limited = seconds ? () => inSecond(next, signal) : next;
      const outcome = await queue.add(limited, signal ? { signal } : {}).catch((error: unknown) => {
        throw signal?.aborted ? signal.reason : error;
      });
      const response = outcome.response;
      if (response?.status === 429) {
        const waitMs = parseRetryAfterMs(response.headers.get("retry-after"));
        if (waitMs !== undefined && waitMs > 0 && waitMs <= MAX_RETRY_AFTER_MS) pauseFor(waitMs);
      }
      return outcome;
    },
  } satisfies StoreAdminPlugin & { readonly limits: Readonly<RateLimitOptions> };
  made.add(plugin);
  return plugin;
}

const made = new WeakSet<StoreAdminPlugin>();

/** Whether `plugin` was made by {@link rateLimit}. */
export const isRateLimit = (plugin: StoreAdminPlugin): boolean => made.has(plugin);
