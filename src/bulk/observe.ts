/**
 * How the runner sees every request a task sends. Each worker has a client derived from the
 * caller's (`deriveClient`: same options, token, retries and middleware): before each attempt
 * (the first and every retry) it waits for the rate budget, outside the attempt's `timeoutMs`;
 * its transport records a POST or PATCH in the ledger before the request leaves, and pauses the
 * whole run when an answer is a 429 or 503 with `Retry-After`.
 */
import {
  ConnectionError,
  deriveClient,
  type FetchLike,
  isIdempotent,
  parseRetryAfterMs,
  pauseLeftOf,
  pluginsOf,
  type StoreAdminPlugin,
  redact,
  sanitizeCause,
  sleep,
  type StoreAdminClient,
  StoreAdminError,
  type TokenSource,
  untilStopped,
} from "#shared";
import { isLocalBudget, type LocalBudget } from "./budget.js";
import { isIdempotencyKey, stableKeys } from "../plugins/idempotency-key.js";
import type { Ledger, RateBudget } from "./types.js";

/**
 * Whether an answer to a POST or PATCH says the store did not act on it: a 4xx but a 408. Any
 * other answer (a 2xx whose body then cannot be read or used, a 408, a 5xx) leaves the key in
 * doubt if the task fails: the store may have acted.
 */
const isRefusal = (status: number): boolean => status >= 400 && status < 500 && status !== 408;

/** What a worker's transport learnt about the task it runs now. */
export interface Slot {
  /** The key whose task runs on this worker; `undefined` for the runner's own requests (pages). */
  key: string | undefined;
  /** Whether `sending` is recorded for the key. */
  recorded: boolean;
  /** POST or PATCH requests sent and still waiting for their answer. */
  pendingUnsafe: number;
  /** POST or PATCH requests that may have been acted on: no answer, or one that is not a refusal (`isRefusal`). */
  doubtful: number;
  /** POST or PATCH requests that left the process (handed to `fetch`), answered or not. */
  unsafeSent: number;
  /** Whether the last wait before a request left (the budget's send step) was cut short by a stop: that request was never sent. */
  stoppedBeforeSend: boolean;
  /** The worker's client. */
  client: StoreAdminClient;
  /** What the worker last handed to `fetch`: its token is scrubbed from the messages of the task's failure. */
  lastRequest: [string | URL | Request, RequestInit | undefined] | undefined;
  /**
   * Aborted when the run stops hard: the signal of this worker's tasks, and of its waits for the
   * budget. One per worker, so that no signal gathers a listener per call in flight.
   */
  stop: AbortController;
}

/** What the observers of one run share. */
export interface Observation {
  ledger: Ledger;
  budget: RateBudget | undefined;
  /**
   * Aborted when the run stops (its `signal`, or `abortInFlight`): every wait of the run's
   * clients for the budget, a pause or a retry ends at once; requests in flight go on.
   */
  stopWaits?: AbortSignal | undefined;
  /**
   * The last step before a request goes to `fetch`, after the ledger's `sending`: a shared
   * budget's log of send times (the queue's Redis `commit`). Default: the local budget's log.
   */
  beforeSend?: ((signal: AbortSignal) => Promise<void>) | undefined;
  /** The run's id: with `idempotencyKey()` on the client, a task's POST and PATCH carry a key made of it and the item's key. */
  runId?: string | undefined;
  /** The longest pause a `Retry-After` may impose; a longer one calls `onLongPause` instead. */
  maxPauseMs?: number | undefined;
  onLongPause?: ((waitMs: number, status: number) => void) | undefined;
}

/** The token of the worker's last request, if it carried one. */
export function tokenOf(slot: Slot): string | undefined {
  if (!slot.lastRequest) return undefined;
  const authorization = authorizationOf(...slot.lastRequest);
  return authorization?.startsWith("Bearer ") ? authorization.slice(7) : undefined;
}

/**
 * The tokens to scrub from a failure: those the requests carried (`seen`), and those the
 * client's source handed out (a bounded set, auth.ts). A token function that has handed out
 * none is asked once (a task that failed before its first request may hold the token it was
 * handed), and its failure to answer leaves the set as it is.
 */
export async function failureSecrets(source: TokenSource | undefined, seen: Set<string>): Promise<string[]> {
  if (source?.resolve && source.secrets.length === 0 && seen.size === 0) await source.resolve().catch(() => undefined);
  return [...new Set([...seen, ...(source?.secrets ?? [])])];
}

/**
 * What a failure keeps of a thrown value: the SDK's own error as it is (built scrubbed of the
 * call's token, with `status`, `body` and the rest); anything else as a scrubbed copy (an
 * `Error` with the same name, message, `code`, `status`, stack and `cause` chain, every text
 * scrubbed of `secrets`), never the raw object, whose properties could hold a token.
 */
export function scrubbedError(error: unknown, secrets: readonly string[]): Error {
  // One the SDK built is scrubbed already; one a task built around the token is copied like any other.
  if (error instanceof StoreAdminError && redact(error.message, secrets) === error.message) return error;
  // A thrown plain object with a message (`{ message }`) says more by it than as "[object Object]".
  const said = (error as { message?: unknown } | null)?.message;
  const copy =
    !(error instanceof Error) && typeof said === "string" ? redact(said, secrets) : sanitizeCause(error, secrets);
  const scrubbed =
    copy instanceof Error ? copy : new Error(typeof copy === "string" ? copy : redact(String(error), secrets));
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === "number") (scrubbed as Error & { status?: number }).status = status;
  return scrubbed;
}

/** The method of what openapi-fetch hands to fetch: a `Request`, or a URL with its init. */
function methodOf(input: string | URL | Request, init: RequestInit | undefined): string {
  return (typeof input === "object" && "method" in input ? input.method : (init?.method ?? "GET")).toUpperCase();
}

function authorizationOf(input: string | URL | Request, init: RequestInit | undefined): string | null {
  const headers = typeof input === "object" && "headers" in input ? input.headers : init?.headers;
  return headers instanceof Headers ? headers.get("authorization") : null;
}

/** A worker: a client derived from `client` whose requests are counted, gated and recorded for `slot.key`. */
export function observedSlot(client: StoreAdminClient, run: Observation): Slot {
  const slot = {
    key: undefined,
    recorded: false,
    pendingUnsafe: 0,
    doubtful: 0,
    unsafeSent: 0,
    stoppedBeforeSend: false,
    stop: new AbortController(),
  } as unknown as Slot;
  const { budget, stopWaits } = run;
  const local = budget !== undefined && isLocalBudget(budget);
  const beforeSend = run.beforeSend ?? (local ? localSendStep(budget, stopWaits) : undefined);
  const acquire = (signal: AbortSignal | undefined): Promise<void> => {
    const take = local ? budget.reserve : budget!.acquire;
    return stopWaits
      ? untilStopped(signal ?? slot.stop.signal, stopWaits, (both) => take(both))
      : take(signal ?? slot.stop.signal);
  };
  // The client's pause after a 429 (met in this run or before it) is the run's too: the budget
  // hands out no slot until it ends, so that the attempts it held leave spaced, not at once. In
  // this process's budget only: the queue's workers pause through Redis and BullMQ on the 429 itself.
  const afterClientPause = async (signal: AbortSignal | undefined): Promise<void> => {
    await budget!.pauseUntil(Date.now() + pauseLeftOf(client));
    return acquire(signal);
  };
  const keys =
    run.runId !== undefined && pluginsOf(client).some(isIdempotencyKey) ? [stableKeyPlugin(slot, run.runId)] : [];
  slot.client = deriveClient(client, {
    fetch: (fetch) => observing(slot, run, beforeSend, fetch),
    plugins: keys,
    beforeAttempt: budget
      ? (signal) =>
          local && pauseLeftOf(client) > 0
            ? afterClientPause(signal)
            : local && budget.now()
              ? undefined
              : acquire(signal)
      : undefined,
    ...(stopWaits ? { stopWaits } : {}),
  });
  return slot;
}

/**
 * The key of each POST and PATCH a task sends, for `idempotencyKey()`: the run's id, the item's
 * key and which of the task's unsafe calls it is (`runId:key:1`, `…:2`), so a resume that runs
 * the task again sends the same keys in the same order.
 */
function stableKeyPlugin(slot: Slot, runId: string): StoreAdminPlugin {
  let current: string | undefined;
  let count = 0;
  return {
    name: "bulk-stable-key",
    wrapCall(call, next) {
      if (slot.key !== undefined && (call.method === "POST" || call.method === "PATCH")) {
        if (slot.key !== current) [current, count] = [slot.key, 0];
        stableKeys.set(call, `${runId}:${slot.key}:${++count}`);
      }
      return next();
    },
  };
}

type SendStep = (signal: AbortSignal) => Promise<void> | undefined;

/** The local budget's log, as the last step before fetch: no promise at all when the request may leave now (the usual case). */
function localSendStep(budget: LocalBudget, stopWaits: AbortSignal | undefined): SendStep {
  const wait = (ms: number, signal: AbortSignal): Promise<void> =>
    stopWaits ? untilStopped(signal, stopWaits, (both) => sleep(ms, both)) : sleep(ms, signal);
  const sendLater = async (waitMs: number, signal: AbortSignal): Promise<void> => {
    for (; waitMs > 0; waitMs = budget.send()) await wait(waitMs, signal);
  };
  return (signal) => {
    const waitMs = budget.send();
    return waitMs > 0 ? sendLater(waitMs, signal) : undefined;
  };
}

/** The worker's transport: `fetch` with the ledger's mark, the budget's send step, the slot's counts and the pause on a `Retry-After`. */
function observing(slot: Slot, run: Observation, beforeSend: SendStep | undefined, fetch: FetchLike): FetchLike {
  return async (input, init) => {
    // Read only when a message is kept (`secretsOf`): a header lookup per request costs.
    slot.lastRequest = [input, init];
    // What the retry policy would not resend (POST, PATCH) may create or change something when sent again: in doubt without an answer.
    const unsafe = !isIdempotent(methodOf(input, init)) && slot.key !== undefined;
    if (unsafe && !slot.recorded) {
      // Durable before the request leaves: a crash after this line leaves the key in doubt.
      const written = run.ledger.sending(slot.key!);
      if (written) await written;
      slot.recorded = true;
    }
    // The budget's log of send times, right before the request leaves (rarely a wait: `reserve`
    // spaced the attempts already). A wait cut short here sent nothing.
    const waiting = beforeSend?.(init?.signal ?? slot.stop.signal);
    if (waiting) {
      try {
        await waiting;
      } catch (error) {
        // Said here, where it is known: the caller sees a failed fetch, as for a broken connection.
        slot.stoppedBeforeSend = true;
        throw error;
      }
    }
    const response = unsafe ? await sentUnsafe(slot, fetch, input, init) : await fetch(input, init);
    if (run.budget && (response.status === 429 || response.status === 503))
      await pauseForRetryAfter(run, run.budget, response);
    return response;
  };
}

/** A POST or PATCH of a key's task, sent: counted while pending, and doubtful unless refused (or refused before a byte was sent). */
async function sentUnsafe(
  slot: Slot,
  fetch: FetchLike,
  input: string | URL | Request,
  init: RequestInit | undefined,
): Promise<Response> {
  slot.pendingUnsafe++;
  slot.unsafeSent++;
  let response: Response;
  try {
    response = await fetch(input, init);
  } catch (error) {
    slot.pendingUnsafe--;
    // Refused before a byte was sent: the server never saw it.
    const seen = ConnectionError.from(error, { phase: "request" });
    if (!(seen instanceof ConnectionError && seen.requestSent === "no")) slot.doubtful++;
    throw error;
  }
  slot.pendingUnsafe--;
  if (!isRefusal(response.status)) slot.doubtful++;
  return response;
}

/**
 * A 429 or 503 with `Retry-After` pauses the whole run; longer than the run may pause, the run
 * stops (a resume goes on), nothing waits that long. A 429 within `MAX_RETRY_AFTER_MS` pauses
 * the client too (client/rate-pause.ts), from the same answer, so both pauses end at the same
 * instant: a task waits for the budget, then finds the client's pause over, one wait in all
 * (test/production/rate-pause.test.ts counts it at a server).
 */
async function pauseForRetryAfter(run: Observation, budget: RateBudget, response: Response): Promise<void> {
  const waitMs = parseRetryAfterMs(response.headers.get("retry-after"));
  if (waitMs === undefined || waitMs <= 0) return;
  if (run.maxPauseMs !== undefined && waitMs > run.maxPauseMs) run.onLongPause?.(waitMs, response.status);
  else await budget.pauseUntil(Date.now() + waitMs);
}
