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
 */
import { walkOf } from "../paginate.js";
import { redact } from "../internal/redact.js";
import { unwrap } from "../unwrap.js";
import type { FetchResult } from "../request.js";
import type { ListPath, StoreAdminClient } from "../types.js";
import { checkRate, DEFAULT_MAX_PAUSE_MS, durationText, rateBudget } from "./budget.js";
import { memoryLedger } from "./memory-ledger.js";
import { telemetryOf, tokenSourceOf } from "../client.js";
import type { RunTelemetry } from "../telemetry.js";
import { failureSecrets, observedSlot, scrubbedError, tokenOf, type Observation, type Slot } from "./observe.js";
import type { BulkFailure, BulkProgress, BulkReport, Ledger, LedgerEnd, RateBudget, RunBulkOptions } from "./types.js";

const DEFAULT_CONCURRENCY = 4;
const DEFAULT_PROGRESS_INTERVAL_MS = 200;
/** The window `perSecond` is measured over. */
const PACE_WINDOW_MS = 5_000;

/** A page of a walk, as far as the checkpoint is concerned. */
interface PageTrack {
  /** Items of the page not yet finished. */
  remaining: number;
  /** An item of the page failed or is in doubt: the checkpoint stops before this page. */
  blocked: boolean;
  nextCursor: string | null;
}

/** One pulled item, with the page it came from when `items` is a walk. */
interface Pulled<Item> {
  item: Item;
  page: PageTrack | undefined;
}

/** How an item was settled. */
type Fate = "done" | "failed" | "inDoubt" | "skipped";

function isCallResult(value: unknown): value is FetchResult {
  return typeof value === "object" && value !== null && (value as { response?: unknown }).response instanceof Response;
}

function checkOptions<Item>(options: RunBulkOptions<Item>): void {
  if (options === null || typeof options !== "object") throw new TypeError("runBulk() takes an options object: { client, runId, items, key, task, … }.");
  const { runId, items, key, task, concurrency, rate, ledger, onProgress, signal, abortInFlight, progressIntervalMs, total, fingerprint, maxPauseMs } = options;
  if (typeof runId !== "string" || runId.trim() === "") throw new TypeError("runId must be a non-empty string naming the run (it names the run in the ledger).");
  if (items === null || typeof items !== "object" || (typeof (items as Iterable<Item>)[Symbol.iterator] !== "function" && typeof (items as AsyncIterable<Item>)[Symbol.asyncIterator] !== "function")) {
    throw new TypeError("items must be an iterable or an async iterable (an array, a generator, store.paginate(…)).");
  }
  if (typeof key !== "function") throw new TypeError("key must be a function returning an item's stable key, e.g. (card) => String(card.id).");
  if (typeof task !== "function") throw new TypeError("task must be a function (item, { client, signal }) => … running one unit of work.");
  if (fingerprint !== undefined && typeof fingerprint !== "function") throw new TypeError("fingerprint must be a function returning what an item's task sends, as text, e.g. (item) => JSON.stringify(item).");
  if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1)) {
    throw new TypeError(`concurrency must be a whole number ≥ 1, got ${String(concurrency)}.`);
  }
  if (rate !== undefined) {
    if (rate === null || typeof rate !== "object") throw new TypeError("rate must be { perSecond: number } or a rate budget { acquire, pauseUntil }.");
    if (!isBudget(rate)) checkRate(rate);
  }
  if (ledger !== undefined) {
    const methods = ["open", "get", "start", "sending", "end", "checkpoint", "close"] as const;
    const missing = ledger === null || typeof ledger !== "object" ? methods : methods.filter((m) => typeof ledger[m] !== "function");
    if (missing.length > 0) throw new TypeError(`ledger must be a Ledger (memoryLedger(), fileLedger(path), …); it lacks ${missing.join(", ")}.`);
  }
  if (onProgress !== undefined && typeof onProgress !== "function") throw new TypeError("onProgress must be a function receiving the run's counters.");
  for (const [name, value] of [["signal", signal], ["abortInFlight", abortInFlight]] as const) {
    if (value !== undefined && !(value instanceof AbortSignal)) throw new TypeError(`${name} must be an AbortSignal.`);
  }
  if (progressIntervalMs !== undefined && !(typeof progressIntervalMs === "number" && progressIntervalMs >= 0)) {
    throw new TypeError("progressIntervalMs must be a number of milliseconds ≥ 0.");
  }
  if (total !== undefined && !(Number.isInteger(total) && total >= 0)) throw new TypeError("total must be a whole number ≥ 0.");
  if (maxPauseMs !== undefined && !(typeof maxPauseMs === "number" && maxPauseMs >= 0)) throw new TypeError(`maxPauseMs must be a number of milliseconds ≥ 0, got ${String(maxPauseMs)}.`);
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
  const { runId, task, signal, onProgress } = options;
  const keyOf = options.key;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const retryFailed = options.retryFailed ?? true;
  const rerunInDoubt = options.rerunInDoubt ?? false;
  const progressIntervalMs = options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
  const total = options.total ?? (Array.isArray(options.items) ? options.items.length : undefined);

  let client = options.client;
  let ledger: Ledger;
  let budget: RateBudget | undefined;
  if (options.dryRun) {
    // Nothing is sent and nothing is recorded: the contract's mock answers, a fresh ledger keeps count.
    client = await dryRunClient();
    ledger = memoryLedger();
  } else {
    ledger = options.ledger ?? memoryLedger();
    const { rate } = options;
    budget = rate !== undefined && isBudget(rate) ? rate : rateBudget(rate);
  }

  // The tokens the client's source handed out and those the workers' last requests carried: scrubbed from every failure it keeps.
  const tokenSource = tokenSourceOf(options.client);
  // A stop ends every wait for the budget, a pause or a retry at once (a 429 may ask for minutes);
  // the task that waited ends with this reason, and is left as it was (see `notSent`).
  const stopReason = new DOMException("The run was stopped while this task waited for the rate budget, a pause or a retry.", "AbortError");
  const waits = new AbortController();
  const stopWaiting = (): void => waits.abort(stopReason);
  // A Retry-After beyond maxPauseMs: the run stops as a signal would stop it, and says why.
  // A date past what Date holds (Retry-After: 99999999999999999999) is said in words: toISOString() would throw.
  const resumeTime = (waitMs: number): string => {
    const at = new Date(Date.now() + waitMs);
    return Number.isNaN(at.getTime()) ? "a time beyond any date (the store's Retry-After is not a usable time; ask its operator)" : at.toISOString();
  };
  let pauseStop: string | undefined;
  const maxPauseMs = options.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS;
  const onLongPause = (waitMs: number, status: number): void => {
    if (pauseStop !== undefined) return;
    pauseStop =
      `The store answered ${status} with a Retry-After of ${durationText(waitMs)}, longer than maxPauseMs (${durationText(maxPauseMs)}): ` +
      `the run stopped. Run it again with the same runId and ledger after ${resumeTime(waitMs)} to go on.`;
    stopWaiting();
  };
  const observation: Observation = { ledger, budget, stopWaits: waits.signal, maxPauseMs, onLongPause };
  // Made before anything is opened: a client not made by createStoreAdminClient() is refused here.
  const slots: Slot[] = Array.from({ length: concurrency }, () => observedSlot(client, observation));
  const runnerSlot = observedSlot(client, observation);

  const resume = await ledger.open(runId);

  let stoppedHard = false;
  const onHardStop = () => {
    stoppedHard = true;
    stopWaiting();
    for (const slot of [...slots, runnerSlot]) slot.stop.abort(options.abortInFlight?.reason);
  };
  if (options.abortInFlight?.aborted) onHardStop();
  options.abortInFlight?.addEventListener("abort", onHardStop, { once: true });
  if (signal?.aborted) stopWaiting();
  signal?.addEventListener("abort", stopWaiting, { once: true });
  const inDoubtKeys = new Set(resume.inDoubt);
  const failures: BulkFailure[] = [];
  // Keys that failed or ended in doubt in this run (few): met again, they are not run again.
  const failedNow = new Set<string>();
  const doubtNow = new Set<string>();
  const inFlight = new Set<string>();
  let done = 0;
  let failed = 0;
  let skipped = 0;
  // Tasks ended (for the pace), and items dealt with in any way (for the ETA).
  let settled = 0;
  let handled = 0;
  let fatal: { error: unknown } | undefined;
  let exhausted = false;

  // ── progress ──
  const pace: Array<[number, number]> = [];
  let lastProgress = -Infinity;
  const progress = (force: boolean): void => {
    if (!onProgress) return;
    const now = performance.now();
    if (!force && now - lastProgress < progressIntervalMs) return;
    lastProgress = now;
    pace.push([now, settled]);
    while (pace.length > 2 && now - pace[0]![0] > PACE_WINDOW_MS) pace.shift();
    const [since, settledThen] = pace[0]!;
    const perSecond = now - since > 0 ? ((settled - settledThen) * 1000) / (now - since) : 0;
    const snapshot: BulkProgress = { done, failed, skipped, inDoubt: inDoubtKeys.size, inFlight: inFlight.size, perSecond };
    if (total !== undefined) {
      snapshot.total = total;
      if (perSecond > 0) snapshot.etaMs = Math.round((Math.max(0, total - handled) / perSecond) * 1000);
    }
    try {
      onProgress(snapshot);
    } catch (error) {
      fatal ??= { error };
    }
  };

  // ── the walk's checkpoint ──
  const pages: PageTrack[] = [];
  let checkpointing = Promise.resolve();
  const advance = (): void => {
    let cursor: string | null | undefined;
    while (pages.length > 0 && pages[0]!.remaining === 0 && !pages[0]!.blocked) cursor = pages.shift()!.nextCursor;
    if (cursor === undefined) return;
    const moved = cursor;
    // In order, after the ends recorded before it.
    checkpointing = checkpointing.then(() => ledger.checkpoint(moved)).catch((error: unknown) => {
      fatal ??= { error };
    });
  };
  /** An item is dealt with: counted, and its page (of a walk) is one item nearer its checkpoint. */
  const itemSettled = (page: PageTrack | undefined, fate: Fate): void => {
    handled++;
    if (!page) return;
    page.remaining--;
    if (fate !== "done" && fate !== "skipped") page.blocked = true;
    advance();
  };

  // ── the source ──
  const source = itemsSource(options.items, resume.cursor, runnerSlot.client, pages, advance);
  // An async source is asked once at a time (an async generator queues, other iterators may not).
  let pulling: Promise<unknown> = Promise.resolve();
  const pull = (): IteratorResult<Pulled<Item>> | Promise<IteratorResult<Pulled<Item>>> => {
    if (source.sync) return source.next();
    const next = pulling.then(() => source.next());
    pulling = next.catch(() => undefined);
    return next;
  };
  const stopped = (): boolean => fatal !== undefined || signal?.aborted === true || stoppedHard || pauseStop !== undefined;

  // ── one item ──
  const failureOf = async (key: string, status: number | undefined, thrown: unknown, slot: Slot): Promise<BulkFailure> => {
    const secrets = new Set<string>();
    for (const worker of [slot, ...slots]) {
      const token = tokenOf(worker);
      if (token) secrets.add(token);
    }
    const scrub = await failureSecrets(tokenSource, secrets);
    const error = scrubbedError(thrown, scrub);
    return { key, status, error, message: redact(error.message, scrub) };
  };

  const runItem = async (slot: Slot, item: Item, page: PageTrack | undefined): Promise<void> => {
    const key = keyOf(item);
    if (typeof key !== "string" || key === "") {
      throw new TypeError(`key(item) must return a non-empty string; it returned ${typeof key === "string" ? '""' : String(key)}.`);
    }
    // A key met again in this run: its first occurrence decides.
    if (inFlight.has(key) || failedNow.has(key) || doubtNow.has(key)) {
      skipped++;
      return itemSettled(page, inFlight.has(key) ? "skipped" : "failed");
    }
    let entry = ledger.get(key);
    if (entry instanceof Promise) entry = await entry;
    // A dry run's ledger is thrown away: a fingerprint there (a call's whole body) would only fill memory.
    const fingerprint = options.dryRun ? undefined : options.fingerprint?.(item);
    if (fingerprint !== undefined && typeof fingerprint !== "string") throw new TypeError(`fingerprint(item) must return a string; it returned ${typeof fingerprint} for the key ${JSON.stringify(key)}.`);
    // A key the ledger holds as sent (done, or maybe acted on) is bound to what it sent.
    if (fingerprint !== undefined && entry?.fingerprint !== undefined && entry.fingerprint !== fingerprint && entry.state !== "started" && entry.state !== "failed") {
      throw new CallChangedError(ledger.name ?? "the ledger", runId, key, entry.state, item);
    }
    switch (entry?.state) {
      case "done":
        skipped++;
        return itemSettled(page, "skipped");
      case "failed":
        if (!retryFailed) {
          skipped++;
          return itemSettled(page, "failed");
        }
        break;
      case "sending":
      case "inDoubt":
        if (!rerunInDoubt) {
          inDoubtKeys.add(key);
          return itemSettled(page, "inDoubt");
        }
        break;
    }
    inFlight.add(key);
    inDoubtKeys.delete(key);
    slot.key = key;
    slot.recorded = false;
    slot.pendingUnsafe = 0;
    slot.doubtful = 0;
    slot.unsafeSent = 0;
    slot.stoppedBeforeSend = false;
    let end: LedgerEnd;
    let failure: BulkFailure | undefined;
    let waitCut = false;
    try {
      const started = fingerprint === undefined ? ledger.start(key) : ledger.start(key, fingerprint);
      if (started) await started;
      const context = { client: slot.client, signal: slot.stop.signal, key };
      const result = await (tracing ? tracing.within(() => task(item, context)) : task(item, context));
      if (isCallResult(result) && !result.response.ok) {
        const error = await unwrap(result).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        failure = await failureOf(key, result.response.status, error, slot);
      }
    } catch (error) {
      waitCut = error === stopReason;
      const status = (error as { status?: unknown } | null)?.status;
      failure = await failureOf(key, typeof status === "number" ? status : undefined, error, slot);
    }
    const doubt = failure !== undefined && (slot.doubtful > 0 || slot.pendingUnsafe > 0);
    slot.key = undefined;
    // Stopped while it waited (for the budget, a pause, a retry, or at the budget's send step)
    // with no POST or PATCH sent: not sent, so no failure and no end; a resume runs it again. A
    // `sending` recorded before the send step is withdrawn (a resume would read it as in doubt).
    // A key that sent a refused POST or PATCH ends failed instead.
    const notSent = failure !== undefined && !doubt && (waitCut || slot.stoppedBeforeSend) && slot.unsafeSent === 0;
    if (notSent) {
      try {
        if (slot.recorded) {
          const withdrawn = fingerprint === undefined ? ledger.start(key) : ledger.start(key, fingerprint);
          if (withdrawn) await withdrawn;
        }
      } finally {
        inFlight.delete(key);
      }
      return itemSettled(page, "failed");
    }
    if (failure === undefined) end = { state: "done" };
    else end = { state: doubt ? "inDoubt" : "failed", status: failure.status, error: failure.message };
    try {
      const ended = ledger.end(key, end);
      if (ended) await ended;
    } finally {
      inFlight.delete(key);
    }
    if (end.state === "done") done++;
    else if (end.state === "inDoubt") {
      inDoubtKeys.add(key);
      doubtNow.add(key);
    }
    else {
      failed++;
      failedNow.add(key);
      failures.push(failure!);
    }
    settled++;
    itemSettled(page, end.state);
    progress(false);
  };

  const worker = async (slot: Slot): Promise<void> => {
    try {
      while (!stopped()) {
        let next = pull();
        if (next instanceof Promise) next = await next;
        if (next.done) {
          exhausted = true;
          return;
        }
        // Stopped while the item was being pulled: it is left for a resume.
        if (stopped()) return;
        await runItem(slot, next.value.item, next.value.page);
      }
    } catch (error) {
      // What stops the whole run: the other workers take no more items.
      fatal ??= { error };
    }
  };

  progress(true);
  const inDoubtFingerprints: Record<string, string> = {};
  try {
    await Promise.all(slots.map((slot) => worker(slot)));
    await checkpointing;
    // What the keys in doubt sent, as the ledger holds it (the caller may not have the items any more).
    if (options.fingerprint && !fatal) {
      for (const key of inDoubtKeys) {
        let entry = ledger.get(key);
        if (entry instanceof Promise) entry = await entry;
        if (entry?.fingerprint !== undefined) inDoubtFingerprints[key] = entry.fingerprint;
      }
    }
  } finally {
    options.abortInFlight?.removeEventListener("abort", onHardStop);
    signal?.removeEventListener("abort", stopWaiting);
    await Promise.resolve(source.return?.()).catch(() => undefined);
    try {
      await ledger.close();
    } catch (error) {
      fatal ??= { error };
    }
  }
  if (fatal) throw fatal.error;
  progress(true);
  return {
    runId,
    done,
    failed,
    skipped,
    inDoubt: inDoubtKeys.size,
    durationMs: Math.round(performance.now() - startedAt),
    failures,
    inDoubtKeys: [...inDoubtKeys],
    stopped: !exhausted,
    ...(pauseStop === undefined ? {} : { stopReason: pauseStop }),
    ...(options.fingerprint ? { inDoubtFingerprints } : {}),
  };
}

/**
 * Thrown by `runBulk` when an item's `fingerprint` differs from the one the ledger recorded for
 * its key, done or in doubt: the same key with another call (yesterday's ledger, today's file).
 * Nothing is sent for it; the run stops.
 */
export class CallChangedError<Item = unknown> extends Error {
  override name = "CallChangedError";
  constructor(
    /** How the message names the ledger. */
    readonly ledger: string,
    readonly runId: string,
    readonly key: string,
    /** What the ledger holds of the key: `done`, `sending` or `inDoubt`. */
    readonly state: string,
    /** The item whose fingerprint differs. */
    readonly item: Item,
  ) {
    super(
      `${ledger[0]!.toUpperCase()}${ledger.slice(1)} holds the key ${JSON.stringify(key)} of the run ${JSON.stringify(runId)} as ${state === "done" ? "done" : "in doubt"} with another call than this item's. ` +
        "The same key with a different call is a different run: give it its own runId (or ledger), or restore the item as it was.",
    );
  }
}

/** The client of a dry run: the testing kit's in-process mock of the contract, loaded only for it. */
async function dryRunClient(): Promise<StoreAdminClient> {
  return (await import("../testing/mock-store.js")).mockStoreClient("dry-run");
}

type Source<Item> =
  | { sync: true; next(): IteratorResult<Pulled<Item>>; return?: () => unknown }
  | { sync?: false; next(): Promise<IteratorResult<Pulled<Item>>>; return?: () => unknown };

/**
 * The items to pull. A `paginate()` walk is walked again by the runner, page by page, from the
 * ledger's checkpoint, so that each item's page is known; anything else is pulled as it is.
 */
function itemsSource<Item>(
  items: Iterable<Item> | AsyncIterable<Item>,
  cursor: string | null | undefined,
  client: StoreAdminClient,
  pages: PageTrack[],
  advance: () => void,
): Source<Item> {
  const walk = walkOf(items);
  if (walk) {
    return (async function* () {
      if (cursor === null) return; // every page was done by an earlier run
      const init = walk.init;
      const from = cursor === undefined ? init : { ...init, params: { ...init?.params, query: { ...init?.params?.query, cursor } } };
      const walkPages = client.paginate.pages as (path: ListPath, init?: unknown) => AsyncGenerator<{ results?: unknown[]; nextCursor: string | null }>;
      for await (const page of walkPages(walk.path, from)) {
        const results = (page.results ?? []) as Item[];
        const track: PageTrack = { remaining: results.length, blocked: false, nextCursor: page.nextCursor };
        pages.push(track);
        if (results.length === 0) advance();
        for (const item of results) yield { item, page: track };
      }
    })();
  }
  const asyncIterable = (items as AsyncIterable<Item>)[Symbol.asyncIterator];
  if (asyncIterable) {
    const iterator = asyncIterable.call(items);
    return {
      async next() {
        const step = await iterator.next();
        return step.done ? { done: true, value: undefined } : { done: false, value: { item: step.value, page: undefined } };
      },
      return: () => iterator.return?.(),
    };
  }
  const iterator = (items as Iterable<Item>)[Symbol.iterator]();
  return {
    sync: true,
    next() {
      const step = iterator.next();
      return step.done ? { done: true, value: undefined } : { done: false, value: { item: step.value, page: undefined } };
    },
    return: () => iterator.return?.(),
  };
}
