/**
 * One job, on the worker that took it, in the order things happen:
 *
 * 1. The ledger is asked about the key (`begin`). A job BullMQ gives back after its worker died
 *    may have ended already, or be in doubt: the task runs only when the ledger has nothing.
 * 2. The task runs with the caller's client seen through `deriveClient`: before every attempt
 *    (retries included) the shared rate budget is awaited; before a POST or PATCH goes to
 *    fetch, the ledger records the key as unsafe, and refuses if this worker lost the job;
 *    a 429 or 503 with `Retry-After` pauses every worker.
 * 3. How it ended is recorded (`end`) and told to BullMQ: done and in doubt complete the job,
 *    failed fails it.
 */
import { UnrecoverableError, type Job } from "bullmq";
import { deriveClient } from "../../client.js";
import { redact } from "../../internal/redact.js";
import { parseRetryAfterMs } from "../../retry-policy.js";
import type { FetchLike } from "../../transport.js";
import type { StoreAdminClient } from "../../types.js";
import type { BulkTask } from "../types.js";
import type { RedisBudget } from "./redis-budget.js";
import type { KeyEnd, RedisLedger, StoredFailure } from "./redis-ledger.js";

/** What a completed job returns to BullMQ. */
export interface JobResult {
  end: "done" | "inDoubt";
}

/** Methods that create or change something in a way a second send could repeat (as `runBulk`). */
const UNSAFE = new Set(["POST", "PATCH"]);

interface JobRun<Item> {
  job: Job<{ key: string; item: Item }>;
  token: string;
  signal: AbortSignal | undefined;
  lockKey: string;
  task: BulkTask<Item>;
  client: StoreAdminClient;
  ledger: RedisLedger;
  budget: RedisBudget;
  pause: (ms: number) => Promise<void>;
}

export async function runJob<Item>(run: JobRun<Item>): Promise<JobResult> {
  const { job, token, lockKey, ledger } = run;
  const { key, item } = job.data;
  const verdict = await ledger.begin(key, lockKey, token);
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
      break;
  }

  // Strings never stored in Redis: the Authorization values this task's requests carried.
  const secrets = new Set<string>();
  let unanswered = false;
  const signal = run.signal ?? new AbortController().signal;
  const client = deriveClient(run.client, {
    fetch: (fetch: FetchLike): FetchLike => async (input, init) => {
      const request = input instanceof Request ? input : undefined;
      const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
      const authorization = new Headers(init?.headers ?? request?.headers).get("authorization");
      if (authorization) secrets.add(authorization.replace(/^Bearer\s+/i, ""));
      const unsafe = UNSAFE.has(method);
      if (unsafe && !(await ledger.markUnsafe(key, lockKey, token))) {
        throw new Error(`Another worker took over the job of key ${key}; its ${method} was not sent.`);
      }
      let response: Response;
      try {
        response = await fetch(input, init);
      } catch (error) {
        // The request may have reached the server: for a POST or PATCH, nobody knows.
        if (unsafe) unanswered = true;
        throw error;
      }
      if (response.status === 429 || response.status === 503) {
        const waitMs = parseRetryAfterMs(response.headers.get("retry-after"));
        if (waitMs !== undefined && waitMs > 0) await run.pause(waitMs);
      }
      return response;
    },
    beforeAttempt: (attemptSignal) => run.budget.acquire(attemptSignal ?? signal),
  });

  let failure: StoredFailure | undefined;
  try {
    const result = await run.task(item, { client, signal, key });
    failure = failureOf(result, [...secrets]);
  } catch (error) {
    failure = thrownFailure(error, [...secrets]);
  }
  const outcome: KeyEnd = failure === undefined ? "done" : unanswered ? "inDoubt" : "failed";
  const recorded = await ledger.end(key, outcome, failure);
  if (recorded === "failed") throw new UnrecoverableError(failure?.error ?? "failed");
  return { end: recorded };
}

/** A call result with an error status is a failure; anything else a task resolves with is done. */
function failureOf(result: unknown, secrets: readonly string[]): StoredFailure | undefined {
  if (result === null || typeof result !== "object" || !("response" in result) || !(result.response instanceof Response)) return undefined;
  const { response } = result;
  if (response.ok) return undefined;
  const body = "error" in result && result.error !== undefined ? `: ${JSON.stringify(result.error).slice(0, 500)}` : "";
  return { status: response.status, error: redact(`HTTP ${response.status}${body}`, secrets) };
}

function thrownFailure(error: unknown, secrets: readonly string[]): StoredFailure {
  const status = error !== null && typeof error === "object" && "status" in error && typeof error.status === "number" ? error.status : undefined;
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { ...(status === undefined ? {} : { status }), error: redact(text, secrets) };
}
