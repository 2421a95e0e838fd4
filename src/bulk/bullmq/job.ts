/**
 * One job, on the worker that took it, in the order things happen:
 *
 * 1. The ledger is asked about the key (`begin`). A job BullMQ gives back after its worker died
 *    may have ended already, or be in doubt: the task runs only when the ledger has nothing.
 * 2. The task runs on a client seen through `runBulk`'s own observer (`../observe.ts`): before
 *    every attempt (retries included) it waits for its slot of the shared rate budget, and as
 *    the request goes to fetch the budget counts its start; before a POST or PATCH goes to fetch
 *    the key is marked unsafe in Redis, which refuses if this worker no longer holds the job's
 *    lock; a 429 or 503 with `Retry-After` pauses every worker.
 *    With a client created with `telemetry`, the task runs in the trace context the job's data
 *    carries (`job-trace.ts`): its calls are children of the producer's `add()` span.
 * 3. How it ended is recorded (`end`), with `runBulk`'s rules (a failure after a POST or PATCH
 *    the store did not refuse is in doubt), and told to BullMQ: done and in doubt complete the job,
 *    failed fails it.
 */
import { UnrecoverableError, type Job } from "bullmq";
import {
  deriveClient,
  type FetchLike,
  redact,
  type StoreAdminClient,
  telemetryOf,
  tokenSourceOf,
  unwrap,
} from "#shared";
import { failureSecrets, observedSlot, scrubbedError, tokenOf, type Slot } from "../observe.js";
import type { BulkTask, Ledger, RateBudget } from "../types.js";
import { carrierOf, type JobTrace } from "./job-trace.js";
import type { RedisBudget } from "./redis-budget.js";
import type { KeyEnd, RedisLedger, StoredFailure } from "./redis-ledger.js";

/** What a completed job returns to BullMQ. */
interface JobResult {
  end: "done" | "inDoubt";
}

interface JobRun<Item> {
  job: Job<{ key: string; item: Item; trace?: JobTrace }>;
  /** The job's lock token, as BullMQ gave it to this worker. */
  token: string;
  signal: AbortSignal | undefined;
  lockKey: string;
  task: BulkTask<Item>;
  client: StoreAdminClient;
  ledger: RedisLedger;
  budget: RedisBudget;
  /** Holds every worker back for `ms` (the Redis-side budget and BullMQ's rate limit). */
  pause: (ms: number) => Promise<void>;
  /** The tokens this worker's requests carried lately (a token function may rotate them). */
  tokens: string[];
}

const RESOLVED = Promise.resolve();

/** Tokens kept for scrubbing: the latest few. */
const REMEMBERED_TOKENS = 4;

function rememberToken(tokens: string[], token: string): void {
  if (tokens.includes(token)) return;
  tokens.push(token);
  if (tokens.length > REMEMBERED_TOKENS) tokens.shift();
}

export async function runJob<Item>(run: JobRun<Item>): Promise<JobResult> {
  const { job, token, lockKey, ledger } = run;
  const { key } = job.data;
  const earlier = await admitted(run);
  if (earlier !== undefined) return earlier;
  const seen = jobSlot(run);
  const failure = await attempted(run, seen);
  // Refused a POST or PATCH for want of the lock: the job is another worker's to end.
  if (seen.lostLock) throw takenOver(key);
  const doubt = failure !== undefined && (seen.slot.doubtful > 0 || seen.slot.pendingUnsafe > 0);
  const outcome: KeyEnd = failure === undefined ? "done" : doubt ? "inDoubt" : "failed";
  const recorded = await ledger.end(key, lockKey, token, outcome, failure);
  if (recorded === "lostLock") throw takenOver(key);
  if (recorded === "failed") throw new UnrecoverableError(failure?.error ?? "failed");
  return { end: recorded };
}

const takenOver = (key: string): Error =>
  new Error(`Another worker took over the job of key ${key}; this worker leaves it (its POST or PATCH was not sent).`);

/** Step 1: what the ledger says of the key; `undefined` when the task runs. */
async function admitted<Item>(run: JobRun<Item>): Promise<JobResult | undefined> {
  const { key } = run.job.data;
  const verdict = await run.ledger.begin(key, run.lockKey, run.token);
  switch (verdict) {
    case "lostLock":
      throw new Error(`Another worker took over the job of key ${key}; this worker leaves it.`);
    case "done":
    case "inDoubt":
      return { end: verdict };
    case "failed":
      // Its failure was recorded before its worker died: it stays failed until retryFailed().
      throw new UnrecoverableError(`Key ${key} failed earlier; retryFailed() runs it again.`);
    case "run":
      return undefined;
  }
}

/** The job's observed worker: its slot, the client the task gets, and whether a POST or PATCH was refused for want of the lock. */
interface JobSlot {
  slot: Slot;
  client: StoreAdminClient;
  lostLock: boolean;
}

/** Step 2's setting: the observer, its budget steps and the unsafe mark in Redis. */
function jobSlot<Item>(run: JobRun<Item>): JobSlot {
  const { token, lockKey, ledger } = run;
  const { key } = run.job.data;
  // The observer calls only `sending` of its ledger: here, the lock-checked marker in Redis.
  const seen = { lostLock: false } as JobSlot;
  const sending: Pick<Ledger, "sending"> = {
    async sending() {
      if (await ledger.markUnsafe(key, lockKey, token)) return;
      seen.lostLock = true;
      throw takenOver(key);
    },
  };
  // The observer pauses every worker on a 429; the budget's two steps are placed below.
  const pauser: RateBudget = { acquire: () => RESOLVED, pauseUntil: (untilMs) => run.pause(untilMs - Date.now()) };
  // The budget's start (`commit`) is the observer's last step before fetch, after the unsafe mark.
  // The queue's name is the run's id: with `idempotencyKey()` on the client, a key's POST and
  // PATCH carry `queue:key:n` on every attempt, on whichever worker runs it, after `retryFailed()` too.
  const slot = observedSlot(run.client, {
    ledger: sending as Ledger,
    budget: pauser,
    beforeSend: (signal) => run.budget.commit(signal),
    runId: run.job.queueName,
  });
  slot.key = key;
  // BullMQ's signal for the job (the worker cancels or closes) stops the task and its waits.
  const { signal } = slot.stop;
  // Before each attempt, outside its timeout: the slot (`reserve`). As the attempt hands its
  // request to fetch: the observer (the unsafe mark for a POST or PATCH), the start itself
  // (`commit`, as late as can be, so that the budget's log holds send times), then fetch. A
  // `commit` wait that the attempt's deadline cuts short sent nothing: the key is failed, not in doubt.
  seen.client = deriveClient(slot.client, {
    fetch: (fetch: FetchLike): FetchLike => fetch,
    beforeAttempt: (attemptSignal) => run.budget.reserve(attemptSignal ?? signal),
  });
  seen.slot = slot;
  return seen;
}

/** Step 2: the task runs (in the producer's trace context, with telemetry); its failure, scrubbed, or `undefined`. */
async function attempted<Item>(run: JobRun<Item>, seen: JobSlot): Promise<StoredFailure | undefined> {
  const { slot, client } = seen;
  const { key, item } = run.job.data;
  const { signal } = slot.stop;
  const onAbort = (): void => slot.stop.abort(run.signal?.reason);
  if (run.signal?.aborted) onAbort();
  else run.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const telemetry = telemetryOf(run.client);
    const runTask = () => run.task(item, { client, signal, key });
    const result = await (telemetry ? (await telemetry).withRemote(carrierOf(run.job.data.trace), runTask) : runTask());
    if (isCallResult(result) && !result.response.ok) {
      const error = await unwrap(result).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      return await failureOf(run, slot, error, result.response.status);
    }
    return undefined;
  } catch (error) {
    return await failureOf(run, slot, error);
  } finally {
    run.signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * Scrubbed of the client's token and of those this worker's requests carried (a token
 * function may rotate them; a task may fail before its first request).
 */
async function failureOf<Item>(
  run: JobRun<Item>,
  slot: Slot,
  thrown: unknown,
  fallbackStatus?: number,
): Promise<StoredFailure> {
  const token = tokenOf(slot);
  if (token !== undefined) rememberToken(run.tokens, token);
  const seen = new Set(run.tokens);
  const secrets = await failureSecrets(tokenSourceOf(run.client), seen);
  for (const secret of secrets) rememberToken(run.tokens, secret);
  const error = scrubbedError(thrown, secrets);
  const own = (error as { status?: unknown }).status;
  const status = typeof own === "number" ? own : fallbackStatus;
  return { ...(status === undefined ? {} : { status }), name: error.name, error: redact(error.message, secrets) };
}

function isCallResult(value: unknown): value is { response: Response } {
  return typeof value === "object" && value !== null && (value as { response?: unknown }).response instanceof Response;
}
