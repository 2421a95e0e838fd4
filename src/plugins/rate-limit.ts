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
import {
  checkWholeNumber,
  MAX_RETRY_AFTER_MS,
  onAbort,
  parseRetryAfterMs,
  type StoreAdminPlugin,
  unknownOptions,
} from "#shared";

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

/** Refuses what sets no bound: not an object, an unknown key (a typo would limit nothing), neither bound. */
function checkOptions(options: unknown): asserts options is RateLimitOptions {
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw new TypeError("rateLimit() takes { maxConcurrent?, perSecond? }.");
  const [unknown] = unknownOptions(options, ["maxConcurrent", "perSecond"]);
  if (unknown !== undefined)
    throw new TypeError(`rateLimit() has no option "${unknown}": it takes { maxConcurrent?, perSecond? }.`);
  const { maxConcurrent, perSecond } = options as RateLimitOptions;
  checkBound("maxConcurrent", maxConcurrent);
  checkBound("perSecond", perSecond);
  if (maxConcurrent === undefined && perSecond === undefined)
    throw new TypeError("rateLimit() bounds nothing without maxConcurrent or perSecond: pass one, or both.");
}

/**
 * `task` in a slot of `queue`, held `holdMs` past its end. An abort while it waits for the slot
 * rejects at once (one listener per signal however many wait: `onAbort`), and the slot, when
 * its turn comes, is given back at once; an attempt that started keeps its slot to the end, so
 * an abort frees no slot early (p-queue's own `signal` would, and let a second into the second).
 */
function inSlot<Result>(
  queue: PQueue,
  task: () => Promise<Result>,
  signal: AbortSignal | undefined,
  holdMs = 0,
): Promise<Result> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<Result>((resolve, reject) => {
    let started = false;
    const stop = signal && onAbort(signal, () => started || reject(signal.reason));
    void queue.add(async () => {
      stop?.();
      if (signal?.aborted) return;
      started = true;
      await task().then(resolve, reject);
      if (holdMs) await new Promise<void>((done) => setTimeout(done, holdMs));
    });
  });
}

/**
 * Bounds the client's attempts (retries included) by `maxConcurrent` and `perSecond`.
 * @example
 * createStoreAdminClient({ …, plugins: [rateLimit({ maxConcurrent: 4, perSecond: 5 })] });
 */
export function rateLimit(
  options: RateLimitOptions,
): StoreAdminPlugin & { readonly limits: Readonly<RateLimitOptions> } {
  checkOptions(options);
  const { maxConcurrent, perSecond } = options;
  const queue = new PQueue({ concurrency: maxConcurrent ?? Infinity });
  // A slot of the second's queue: the attempt, then a second after its answer (a timer that keeps a process up to a second after its last call).
  const seconds = perSecond ? new PQueue({ concurrency: perSecond }) : undefined;
  // The queue starts again when the last pause ends, never before: a timer may fire a little
  // early by the clock, and then waits out the rest rather than leave the queue paused.
  let resumeAt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Both queues pause: with perSecond alone the first lets every call through at once, and the
  // calls waiting for a second's slot would leave inside the pause.
  const resume = (): void => {
    const left = resumeAt - performance.now();
    timer = left > 0 ? setTimeout(resume, Math.ceil(left)) : undefined;
    if (!timer) for (const paused of [queue, seconds]) paused?.start();
  };
  const pauseFor = (ms: number): void => {
    const until = performance.now() + ms;
    if (until <= resumeAt) return;
    resumeAt = until;
    for (const paused of [queue, seconds]) paused?.pause();
    timer ??= setTimeout(resume, Math.ceil(ms));
  };
  const plugin = {
    name: "rate-limit",
    limits: { maxConcurrent, perSecond },
    async wrapAttempt(attempt, next) {
      const signal = attempt.call.signal;
      const limited = seconds ? () => inSlot(seconds, next, signal, 1000) : next;
      const outcome = await inSlot(queue, limited, signal);
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
