/**
 * `runBulk()`: pulls items as workers free up, runs each key's task once under a concurrency
 * limit and a rate budget, records each key in the ledger, and reports. One item's life:
 *
 * 1. pulled from `items` (never collected), its key computed;
 * 2. looked up in the ledger: done earlier (skipped), failed earlier (re-run unless
 *    `retryFailed: false`), in doubt (not re-run unless `rerunInDoubt`), or new; a key done or
 *    in doubt under another `fingerprint` stops the run (`CallChangedError`);
 * 3. `start` recorded, the task run on a worker's client (`observe.ts`: budget, `sending`, pauses);
 * 4. its end recorded: done, failed, or in doubt (failed after a POST or PATCH the store did not refuse);
 * 5. for a `paginate()` walk, the checkpoint moves past every page whose items are all done.
 *
 * The parts, each in a file of its own: the items' source and its pulling (`run-source.ts`), one
 * item's steps (`run-item.ts`), the walk's checkpoint (`run-checkpoint.ts`), progress
 * (`run-progress.ts`), how a run stops (`run-stop.ts`), and the state they share (`run-state.ts`).
 * Here: the options, the workers, and the report.
 */
import {
  checkFunction,
  checkMilliseconds,
  checkWholeNumber,
  mustBe,
  pluginsOf,
  type RunTelemetry,
  type StoreAdminClient,
  telemetryOf,
  tokenSourceOf,
} from "#shared";
import { isRateLimit } from "../plugins/rate-limit.js";
import { checkRate, DEFAULT_MAX_PAUSE_MS, rateBudget } from "./budget.js";
import { memoryLedger } from "./memory-ledger.js";
import { observedSlot, type Observation, type Slot } from "./observe.js";
import { walkCheckpoint } from "./run-checkpoint.js";
import { runItem, type ItemRun } from "./run-item.js";
import { DEFAULT_PROGRESS_INTERVAL_MS, progressReporter } from "./run-progress.js";
import { itemsSource, puller, type Pulled } from "./run-source.js";
import { runState, stopRun, type RunState } from "./run-state.js";
import { runStop } from "./run-stop.js";
import type { BulkReport, Ledger, RateBudget, RunBulkOptions } from "./types.js";

export { CallChangedError } from "./call-changed-error.js";

const DEFAULT_CONCURRENCY = 4;

function checkOptions<Item>(options: RunBulkOptions<Item>): void {
  if (options === null || typeof options !== "object")
    throw new TypeError("runBulk() takes an options object: { client, runId, items, key, task, … }.");
  const {
    runId,
    items,
    key,
    task,
    concurrency,
    rate,
    ledger,
    onProgress,
    signal,
    abortInFlight,
    progressIntervalMs,
    total,
    fingerprint,
    maxPauseMs,
  } = options;
  if (typeof runId !== "string" || runId.trim() === "")
    mustBe("runId", "a non-empty string naming the run (it names the run in the ledger)", runId, null);
  if (
    items === null ||
    typeof items !== "object" ||
    (typeof (items as Iterable<Item>)[Symbol.iterator] !== "function" &&
      typeof (items as AsyncIterable<Item>)[Symbol.asyncIterator] !== "function")
  ) {
    mustBe("items", "an iterable or an async iterable (an array, a generator, store.paginate(…))", items, null);
  }
  checkFunction("key", key, "a function returning an item's stable key, e.g. (card) => String(card.id)", true);
  checkFunction("task", task, "a function (item, { client, signal }) => … running one unit of work", true);
  checkFunction(
    "fingerprint",
    fingerprint,
    "a function returning what an item's task sends, as text, e.g. (item) => JSON.stringify(item)",
  );
  checkWholeNumber("concurrency", concurrency, 1);
  if (rate !== undefined) {
    if (rate === null || typeof rate !== "object")
      mustBe("rate", "{ perSecond: number } or a rate budget { acquire, pauseUntil }", rate, null);
    // One budget, one wait: the client's rateLimit() already bounds every call of the run.
    if (pluginsOf(options.client).some(isRateLimit))
      throw new TypeError(
        "rate: the client has the rateLimit() plugin, which bounds the run's calls already; pass rate or the plugin, not both.",
      );
    if (!isBudget(rate)) checkRate(rate);
  }
  if (ledger !== undefined) {
    const methods = ["open", "get", "start", "sending", "end", "checkpoint", "close"] as const;
    const missing =
      ledger === null || typeof ledger !== "object" ? methods : methods.filter((m) => typeof ledger[m] !== "function");
    if (missing.length > 0)
      throw new TypeError(
        `ledger must be a Ledger (memoryLedger(), fileLedger(path), …); it lacks ${missing.join(", ")}.`,
      );
  }
  checkFunction("onProgress", onProgress, "a function receiving the run's counters");
  for (const [name, value] of [
    ["signal", signal],
    ["abortInFlight", abortInFlight],
  ] as const) {
    if (value !== undefined && !(value instanceof AbortSignal)) mustBe(name, "an AbortSignal", value, null);
  }
  checkMilliseconds("progressIntervalMs", progressIntervalMs, null);
  checkWholeNumber("total", total, 0, null);
  checkMilliseconds("maxPauseMs", maxPauseMs);
}

function isBudget(rate: object): rate is RateBudget {
  return typeof (rate as RateBudget).acquire === "function" && typeof (rate as RateBudget).pauseUntil === "function";
}

/**
 * Runs `task` once for each key of `items`, under `concurrency` and `rate`, recording every key
 * in `ledger`. Resolves with the report once every pulled item has ended (or the run was stopped
 * and its tasks in flight ended); rejects only for what stops the whole run (an invalid option,
 * a ledger that cannot be written, `key` or `onProgress` throwing), after the tasks in flight end.
 */
export async function runBulk<Item>(options: RunBulkOptions<Item>): Promise<BulkReport> {
  // A client made with `telemetry`: a span for the run, the parent of each item's calls.
  const telemetry = options?.dryRun ? undefined : telemetryOf(options?.client);
  if (!telemetry) return run(options, undefined);
  const tracing = (await telemetry).bulkRun(String(options.runId));
  return tracing.end(run(options, tracing));
}

/** {@link runBulk}, each task run within `tracing` when there is one. */
async function run<Item>(options: RunBulkOptions<Item>, tracing: RunTelemetry | undefined): Promise<BulkReport> {
  checkOptions(options);
  const startedAt = performance.now();
  const { client, ledger, budget } = await clientAndLedger(options);
  const maxPauseMs = options.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS;
  const stop = runStop(maxPauseMs);
  const observation: Observation = {
    ledger,
    budget,
    stopWaits: stop.waits,
    maxPauseMs,
    onLongPause: stop.onLongPause,
    runId: options.runId,
  };
  // Made before anything is opened: a client not made by createStoreAdminClient() is refused here.
  const slots: Slot[] = Array.from({ length: options.concurrency ?? DEFAULT_CONCURRENCY }, () =>
    observedSlot(client, observation),
  );
  const runnerSlot = observedSlot(client, observation);

  const resume = await ledger.open(options.runId);
  stop.listen(options.signal, options.abortInFlight, [...slots, runnerSlot]);
  const state = runState(resume.inDoubt);
  const total = options.total ?? (Array.isArray(options.items) ? options.items.length : undefined);
  const progress = progressReporter(
    state,
    options.onProgress,
    options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS,
    total,
  );
  const checkpoint = walkCheckpoint(state, ledger);
  const source = itemsSource(options.items, resume.cursor, runnerSlot.client, checkpoint);
  const items: ItemRun<Item> = {
    options,
    state,
    ledger,
    retryFailed: options.retryFailed ?? true,
    rerunInDoubt: options.rerunInDoubt ?? false,
    tracing,
    slots,
    tokenSource: tokenSourceOf(options.client),
    stopReason: stop.reason,
    checkpoint,
    progress,
  };
  const stopped = (): boolean => state.fatal !== undefined || stop.stopped();

  progress(true);
  let inDoubtFingerprints: Record<string, string> = {};
  try {
    const pull = puller(source);
    await Promise.all(slots.map((slot) => worker(slot, pull, stopped, items)));
    await checkpoint.written();
    // What the keys in doubt sent, as the ledger holds it (the caller may not have the items any more).
    if (options.fingerprint && !state.fatal) inDoubtFingerprints = await fingerprintsOf(ledger, state.inDoubtKeys);
  } finally {
    stop.unlisten();
    await Promise.resolve(source.return?.()).catch(() => undefined);
    try {
      await ledger.close();
    } catch (error) {
      stopRun(state, error);
    }
  }
  if (state.fatal) throw state.fatal.error;
  progress(true);
  return report(options, state, startedAt, stop.pauseStop(), inDoubtFingerprints);
}

/** The run's report, from its state once every task has ended; `pauseStop` is why a long pause stopped it, if one did. */
function report<Item>(
  options: RunBulkOptions<Item>,
  state: RunState,
  startedAt: number,
  pauseStop: string | undefined,
  inDoubtFingerprints: Record<string, string>,
): BulkReport {
  return {
    runId: options.runId,
    done: state.done,
    failed: state.failed,
    skipped: state.skipped,
    inDoubt: state.inDoubtKeys.size,
    durationMs: Math.round(performance.now() - startedAt),
    failures: state.failures,
    inDoubtKeys: [...state.inDoubtKeys],
    stopped: !state.exhausted,
    ...(pauseStop === undefined ? {} : { stopReason: pauseStop }),
    ...(options.fingerprint ? { inDoubtFingerprints } : {}),
  };
}

/**
 * The run's client, ledger and budget. A dry run sends nothing and records nothing: the
 * contract's mock answers, a fresh ledger keeps count.
 */
async function clientAndLedger<Item>(
  options: RunBulkOptions<Item>,
): Promise<{ client: StoreAdminClient; ledger: Ledger; budget: RateBudget | undefined }> {
  if (options.dryRun) return { client: await dryRunClient(), ledger: memoryLedger(), budget: undefined };
  const { rate } = options;
  return {
    client: options.client,
    ledger: options.ledger ?? memoryLedger(),
    budget: rate !== undefined && isBudget(rate) ? rate : rateBudget(rate),
  };
}

/** One worker: takes the next item while the run is not stopped; what stops the run ends it. */
async function worker<Item>(
  slot: Slot,
  pull: () => IteratorResult<Pulled<Item>> | Promise<IteratorResult<Pulled<Item>>>,
  stopped: () => boolean,
  items: ItemRun<Item>,
): Promise<void> {
  try {
    while (!stopped()) {
      let next = pull();
      if (next instanceof Promise) next = await next;
      if (next.done) {
        items.state.exhausted = true;
        return;
      }
      // Stopped while the item was being pulled: it is left for a resume.
      if (stopped()) return;
      await runItem(items, slot, next.value.item, next.value.page);
    }
  } catch (error) {
    // What stops the whole run: the other workers take no more items.
    stopRun(items.state, error);
  }
}

/** The fingerprints the ledger holds for `keys`. */
async function fingerprintsOf(ledger: Ledger, keys: Iterable<string>): Promise<Record<string, string>> {
  const fingerprints: Record<string, string> = {};
  for (const key of keys) {
    let entry = ledger.get(key);
    if (entry instanceof Promise) entry = await entry;
    if (entry?.fingerprint !== undefined) fingerprints[key] = entry.fingerprint;
  }
  return fingerprints;
}

/** The client of a dry run: the testing kit's in-process mock of the contract, loaded only for it. */
async function dryRunClient(): Promise<StoreAdminClient> {
  return (await import("../testing/mock-store.js")).mockStoreClient("dry-run");
}
