/**
 * One item's life in a run, in three steps: `admit` (its key, and what the ledger holds of it:
 * skipped, refused, or run), `attempt` (`start` recorded, the task run on a worker's client),
 * and `settle` (its end recorded: done, failed, in doubt, or nothing when it was never sent).
 */
import { type FetchResult, redact, type RunTelemetry, type TokenSource, unwrap } from "#shared";
import { CallChangedError } from "./call-changed-error.js";
import { failureSecrets, scrubbedError, tokenOf, type Slot } from "./observe.js";
import type { PageTrack, WalkCheckpoint } from "./run-checkpoint.js";
import type { RunState } from "./run-state.js";
import type { BulkFailure, Ledger, LedgerEnd, RunBulkOptions } from "./types.js";

/** What every item of a run shares. */
export interface ItemRun<Item> {
  readonly options: RunBulkOptions<Item>;
  readonly state: RunState;
  readonly ledger: Ledger;
  readonly retryFailed: boolean;
  readonly rerunInDoubt: boolean;
  readonly tracing: RunTelemetry | undefined;
  /** The workers: the tokens their last requests carried are scrubbed from every failure. */
  readonly slots: readonly Slot[];
  /** The tokens the client's source handed out: scrubbed from every failure too. */
  readonly tokenSource: TokenSource | undefined;
  /** What a task that waited when the run stopped ends with. */
  readonly stopReason: unknown;
  readonly checkpoint: Pick<WalkCheckpoint, "itemSettled">;
  readonly progress: (force: boolean) => void;
}

/** What a task's attempt came to. */
interface Outcome {
  failure: BulkFailure | undefined;
  /** The task ended because the run stopped while it waited (`stopReason`). */
  waitCut: boolean;
}

function isCallResult(value: unknown): value is FetchResult {
  return typeof value === "object" && value !== null && (value as { response?: unknown }).response instanceof Response;
}

/** Runs `item` on `slot`: rejects only for what stops the whole run. */
export async function runItem<Item>(
  run: ItemRun<Item>,
  slot: Slot,
  item: Item,
  page: PageTrack | undefined,
): Promise<void> {
  const admitted = await admit(run, item, page);
  if (admitted === undefined) return;
  const { key, fingerprint } = admitted;
  run.state.inDoubtKeys.delete(key);
  slot.key = key;
  slot.recorded = false;
  slot.pendingUnsafe = 0;
  slot.doubtful = 0;
  slot.unsafeSent = 0;
  slot.stoppedBeforeSend = false;
  const outcome = await attempt(run, slot, item, key, fingerprint);
  await settle(run, slot, page, key, fingerprint, outcome);
}

/** What `admit` lets run: the key, marked in flight, and its fingerprint. */
type Admitted = { key: string; fingerprint: string | undefined };

/**
 * The item's key, and whether it runs: a key met again in this run, done earlier, failed
 * earlier (with `retryFailed: false`) or in doubt (without `rerunInDoubt`) is settled here;
 * a key the ledger holds as sent under another fingerprint stops the run.
 *
 * The check "met again in this run" and the mark "in flight" happen in one synchronous step,
 * before any `await`: two workers that pull the same key together cannot both pass the check.
 * The mark is taken back when the ledger's answer settles the key here.
 */
async function admit<Item>(run: ItemRun<Item>, item: Item, page: PageTrack | undefined): Promise<Admitted | undefined> {
  const { options, state, checkpoint } = run;
  const keyOf = options.key;
  const key = keyOf(item);
  if (typeof key !== "string" || key === "") {
    throw new TypeError(
      `key(item) must return a non-empty string; it returned ${typeof key === "string" ? '""' : String(key)}.`,
    );
  }
  // A key met again in this run: its first occurrence decides.
  if (state.inFlight.has(key) || state.failedNow.has(key) || state.doubtNow.has(key)) {
    state.skipped++;
    checkpoint.itemSettled(page, state.inFlight.has(key) ? "skipped" : "failed");
    return undefined;
  }
  state.inFlight.add(key);
  let admitted: Admitted | undefined;
  try {
    admitted = await admitByLedger(run, item, page, key);
  } finally {
    if (admitted === undefined) state.inFlight.delete(key);
  }
  return admitted;
}

/** What the ledger holds of `key` decides whether it runs (`admit`'s second half). */
async function admitByLedger<Item>(
  run: ItemRun<Item>,
  item: Item,
  page: PageTrack | undefined,
  key: string,
): Promise<Admitted | undefined> {
  const { options, state, ledger, checkpoint } = run;
  let entry = ledger.get(key);
  if (entry instanceof Promise) entry = await entry;
  // A dry run's ledger is thrown away: a fingerprint there (a call's whole body) would only fill memory.
  const fingerprint = options.dryRun ? undefined : options.fingerprint?.(item);
  if (fingerprint !== undefined && typeof fingerprint !== "string")
    throw new TypeError(
      `fingerprint(item) must return a string; it returned ${typeof fingerprint} for the key ${JSON.stringify(key)}.`,
    );
  // A key the ledger holds as sent (done, or maybe acted on) is bound to what it sent.
  if (
    fingerprint !== undefined &&
    entry?.fingerprint !== undefined &&
    entry.fingerprint !== fingerprint &&
    entry.state !== "started" &&
    entry.state !== "failed"
  ) {
    throw new CallChangedError(ledger.name ?? "the ledger", options.runId, key, entry.state, item);
  }
  switch (entry?.state) {
    case "done":
      state.skipped++;
      checkpoint.itemSettled(page, "skipped");
      return undefined;
    case "failed":
      if (!run.retryFailed) {
        state.skipped++;
        checkpoint.itemSettled(page, "failed");
        return undefined;
      }
      break;
    case "sending":
    case "inDoubt":
      if (!run.rerunInDoubt) {
        state.inDoubtKeys.add(key);
        checkpoint.itemSettled(page, "inDoubt");
        return undefined;
      }
      break;
  }
  return { key, fingerprint };
}

/** Records `start`, runs the task, and says how it failed, if it did (a call result that is not ok fails it too). */
async function attempt<Item>(
  run: ItemRun<Item>,
  slot: Slot,
  item: Item,
  key: string,
  fingerprint: string | undefined,
): Promise<Outcome> {
  const { ledger, tracing, options } = run;
  const task = options.task;
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
      return { failure: await failureOf(run, key, result.response.status, error, slot), waitCut: false };
    }
    return { failure: undefined, waitCut: false };
  } catch (error) {
    const status = (error as { status?: unknown } | null)?.status;
    return {
      failure: await failureOf(run, key, typeof status === "number" ? status : undefined, error, slot),
      waitCut: error === run.stopReason,
    };
  }
}

/** A task's failure as the report keeps it: every token the run's workers and the client's source know scrubbed out. */
async function failureOf<Item>(
  run: ItemRun<Item>,
  key: string,
  status: number | undefined,
  thrown: unknown,
  slot: Slot,
): Promise<BulkFailure> {
  const secrets = new Set<string>();
  for (const worker of [slot, ...run.slots]) {
    const token = tokenOf(worker);
    if (token) secrets.add(token);
  }
  const scrub = await failureSecrets(run.tokenSource, secrets);
  const error = scrubbedError(thrown, scrub);
  return { key, status, error, message: redact(error.message, scrub) };
}

/** Records the item's end in the ledger and counts it (or withdraws its `start` when nothing was sent). */
async function settle<Item>(
  run: ItemRun<Item>,
  slot: Slot,
  page: PageTrack | undefined,
  key: string,
  fingerprint: string | undefined,
  outcome: Outcome,
): Promise<void> {
  const { state, ledger, checkpoint } = run;
  const { failure, waitCut } = outcome;
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
      state.inFlight.delete(key);
    }
    return checkpoint.itemSettled(page, "failed");
  }
  const end: LedgerEnd =
    failure === undefined
      ? { state: "done" }
      : { state: doubt ? "inDoubt" : "failed", status: failure.status, error: failure.message };
  try {
    const ended = ledger.end(key, end);
    if (ended) await ended;
  } finally {
    state.inFlight.delete(key);
  }
  if (end.state === "done") state.done++;
  else if (end.state === "inDoubt") {
    state.inDoubtKeys.add(key);
    state.doubtNow.add(key);
  } else {
    state.failed++;
    state.failedNow.add(key);
    state.failures.push(failure!);
  }
  state.settled++;
  checkpoint.itemSettled(page, end.state);
  run.progress(false);
}
