/**
 * The shapes of bulk work: the task, the two interfaces a run is built on (the ledger and the
 * rate budget), and what a run reports. A ledger or a budget shared by many processes (a
 * distributed engine) implements the same interfaces as the in-process ones, and the task code
 * does not change.
 */
import type { StoreAdminClient } from "#shared";

// ─── The task ───────────────────────────────────────────────────────────────────────

/** What a task is given besides its item. */
export interface TaskContext {
  /**
   * The run's client: the caller's client, seeing through the run's budget and ledger. Every
   * request it sends (retries included) waits for the rate budget and is recorded.
   */
  client: StoreAdminClient;
  /** Aborts when the run is stopped hard: pass it to every call. */
  signal: AbortSignal;
  /** The item's key. */
  key: string;
}

/**
 * One unit of work. Resolving with a 2xx call result (or any value that is not a call
 * result) is done; resolving with an error result, or throwing, is failed.
 */
export type BulkTask<Item> = (item: Item, context: TaskContext) => unknown;

// ─── The ledger ─────────────────────────────────────────────────────────────────────

/**
 * What a ledger knows of a key:
 * - `started`: its task began; no request that changes anything was sent (a resume re-runs it);
 * - `sending`: its task sent (or was about to send) a POST or PATCH and no end is recorded:
 *   *in doubt* once the process that started it is gone (a resume does not re-run it);
 * - `done`, `failed`, `inDoubt`: how its task ended (`inDoubt`: it failed while a POST or
 *   PATCH it sent had no answer, so whether the server acted is unknown).
 */
export type KeyState = "started" | "sending" | "done" | "failed" | "inDoubt";

/** A key's record in a ledger. */
export interface LedgerEntry {
  state: KeyState;
  /** The HTTP status of a failed call, when there was one. */
  status?: number;
  /** Why it failed, as a message (never the token). */
  error?: string;
  /** What the key's task sends, as `runBulk`'s `fingerprint` gave it when the key started. */
  fingerprint?: string;
}

/** How a task ended, as the ledger records it. */
export type LedgerEnd = { state: "done" } | { state: "failed" | "inDoubt"; status?: number; error: string };

/** What a ledger holds from earlier runs, handed to the runner when it opens. */
export interface LedgerResume {
  /**
   * The checkpoint of a `paginate()` walk: every item of the pages before it is done (`null`:
   * of every page; `undefined`: no checkpoint).
   */
  cursor?: string | null;
  /** Keys whose task sent a POST or PATCH and has no recorded end, or ended in doubt. */
  inDoubt: string[];
}

/**
 * Where a run keeps each key's progress. Calls for one key come in order (`start`, at most
 * one `sending`, `end`); calls for different keys interleave. A method may return a promise:
 * the runner awaits it before going on, so `sending` must be durable when it resolves (the
 * request goes to the network right after). A ledger shared by many processes implements
 * the same methods against its store.
 */
export interface Ledger {
  /** How messages name the ledger, e.g. "the ledger file runs/cards.ledger". */
  readonly name?: string;
  /**
   * Opens the ledger for `runId`: creates it, or resumes what it holds. Rejects with a clear
   * error when it belongs to another run, or another run has it open.
   */
  open(runId: string): Promise<LedgerResume>;
  /** The key's record, or `undefined` if it was never started. */
  get(key: string): LedgerEntry | undefined | Promise<LedgerEntry | undefined>;
  /** The key's task starts: recorded before its first request, with its `fingerprint` when the run has one. */
  start(key: string, fingerprint?: string): void | Promise<void>;
  /** The key's task is about to send a POST or PATCH: durable before the request is sent. */
  sending(key: string): void | Promise<void>;
  /** How the key's task ended. */
  end(key: string, end: LedgerEnd): void | Promise<void>;
  /** The walk's position: every item of the pages before `cursor` is done (`null`: the whole walk). */
  checkpoint(cursor: string | null): void | Promise<void>;
  /** Writes what is pending and releases the ledger's resources (and its lock: it may be opened again). */
  close(): Promise<void>;
}

// ─── The rate budget ────────────────────────────────────────────────────────────────

/**
 * How many requests a run may start, and when. `acquire` is awaited before every request
 * (every attempt); `pauseUntil` is called when a response asks the client to wait (a 429 or
 * 503 with `Retry-After`), and holds every later `acquire` of the run until then. A budget
 * shared by many processes implements the same two methods against its store.
 */
export interface RateBudget {
  /** Resolves when one more request may start; rejects with `signal.reason` if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** No request starts before `untilMs` (epoch milliseconds). */
  pauseUntil(untilMs: number): void | Promise<void>;
}

/** A rate: at most `perSecond` requests started in any one-second window. */
export interface RateLimit {
  perSecond: number;
}

// ─── Progress and report ────────────────────────────────────────────────────────────

/** The run's counters, as `onProgress` receives them. */
export interface BulkProgress {
  /** Keys done in this run. */
  done: number;
  /** Keys failed in this run. */
  failed: number;
  /** Keys not run: done by an earlier run, kept failed (`retryFailed: false`), or a duplicate. */
  skipped: number;
  /** Keys in doubt: met in this run, or ended in doubt in it. */
  inDoubt: number;
  /** Tasks running now. */
  inFlight: number;
  /** Tasks ended per second, over the last few seconds. */
  perSecond: number;
  /** Items in all, when known (`total`, or an array's length). */
  total?: number;
  /** Time left at the current pace, when `total` is known. */
  etaMs?: number;
}

/** One failed key. */
export interface BulkFailure {
  key: string;
  /** The HTTP status of the failed call, when there was one. */
  status?: number;
  /**
   * The SDK's error for the failed call, or a scrubbed copy of what the task threw (an `Error`
   * with its name, message, `status`, `code` and `cause` chain); never the token, at any depth.
   */
  error: unknown;
  /** The error's message. */
  message: string;
}

/** What `runBulk` resolves with. */
export interface BulkReport {
  runId: string;
  done: number;
  failed: number;
  skipped: number;
  inDoubt: number;
  durationMs: number;
  /** The keys that failed in this run. */
  failures: BulkFailure[];
  /** Every key in doubt: met in this run or ended in doubt in it (not re-run unless `rerunInDoubt`). */
  inDoubtKeys: string[];
  /** With `fingerprint`: what each key in doubt sent, as the ledger recorded it (keys of earlier runs too). */
  inDoubtFingerprints?: Record<string, string>;
  /** Whether the run stopped before its items were used up (`signal`, or a pause longer than `maxPauseMs`). */
  stopped: boolean;
  /** Why the run stopped, when it was not `signal`: a server's `Retry-After` beyond `maxPauseMs`, and when to resume. */
  stopReason?: string;
}

// ─── Options ────────────────────────────────────────────────────────────────────────

/** The options of `runBulk`. */
export interface RunBulkOptions<Item> {
  /** A client from `createStoreAdminClient`. */
  client: StoreAdminClient;
  /** Names this run in the ledger. */
  runId: string;
  /** Any iterable or async iterable, pulled as workers free up; a `paginate()` walk is checkpointed. */
  items: Iterable<Item> | AsyncIterable<Item>;
  /** The stable key of an item: a run does each key once. */
  key: (item: Item) => string;
  /**
   * What an item's task sends, as text (e.g. the call's JSON): recorded with its key when it
   * starts. A key done or in doubt under another fingerprint is refused (`CallChangedError`):
   * a reused ledger with new items does not skip them as done. Default: none (nothing checked;
   * items read from the store, such as a `paginate()` walk, change between runs).
   */
  fingerprint?: ((item: Item) => string) | undefined;
  task: BulkTask<Item>;
  /** Tasks in flight at most (default 4). */
  concurrency?: number | undefined;
  /** Requests started per second across the run, at most (default: no budget); or a shared budget. */
  rate?: RateLimit | RateBudget | undefined;
  /** Where progress is kept (default: `memoryLedger()`). */
  ledger?: Ledger | undefined;
  /** Called with the counters as they change (at most every `progressIntervalMs`) and once at the end. */
  onProgress?: ((progress: BulkProgress) => void) | undefined;
  /** Milliseconds between two `onProgress` calls, at least (default 200). */
  progressIntervalMs?: number | undefined;
  /** Items in all, for the ETA (an array's length is used when not given). */
  total?: number | undefined;
  /** Aborting stops taking items; in-flight tasks end and are recorded. See `abortInFlight`. */
  signal?: AbortSignal | undefined;
  /** Aborting this one also aborts the tasks in flight (their `signal`). */
  abortInFlight?: AbortSignal | undefined;
  /** Re-run keys an earlier run recorded as failed (default true). */
  retryFailed?: boolean | undefined;
  /** Re-run keys in doubt (default false: a POST or PATCH may have been acted on). */
  rerunInDoubt?: boolean | undefined;
  /**
   * The longest pause a 429 or 503's `Retry-After` imposes on the run (default 600000: 10
   * minutes). A longer one stops the run: tasks waiting end without a record (a resume runs
   * them), `stopped` is true and `stopReason` says when to resume.
   */
  maxPauseMs?: number | undefined;
  /** Send nothing: check each request against the contract and answer with its example. */
  dryRun?: boolean | undefined;
}
