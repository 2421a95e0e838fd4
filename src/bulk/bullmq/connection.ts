/**
 * The queue's Redis connections and what their failures say. `connection` is ioredis's own
 * options, passed through as BullMQ passes them. A lost Redis is reported once per outage, as
 * one error naming the address; ioredis keeps reconnecting with a growing delay (no busy loop)
 * and work goes on when Redis is back.
 */
import { Redis, type RedisOptions } from "ioredis";

/** Redis could not be reached; `address` is where the queue looked for it. */
export class BulkQueueConnectionError extends Error {
  override name = "BulkQueueConnectionError";
  readonly address: string;
  constructor(address: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `Redis at ${address} is unreachable (${reason}). Workers wait and go on when it is back; calls such as add() and status() fail until then.`,
      { cause },
    );
    this.address = address;
  }
}

/**
 * Redis came back without the queue's data (restarted with no persistence, flushed, failed over
 * to an empty replica): the jobs not yet run and the ledger are gone.
 */
export class BulkQueueStateLostError extends Error {
  override name = "BulkQueueStateLostError";
  readonly address: string;
  constructor(address: string, queue: string) {
    super(
      `Redis at ${address} no longer holds the state of the bulk queue "${queue}" (it came back empty, or was flushed): ` +
        "the jobs not yet done and the ledger are lost. Add the items again to finish them; a key whose POST or PATCH was sent " +
        "before may be sent again, since the ledger that knew it is gone.",
    );
    this.address = address;
  }
}

/** Where `options` point, for messages: `host:port`, a socket path, or a URL without its password. */
export function redisAddress(options: RedisOptions & { url?: string }): string {
  if (options.path) return `unix:${options.path}`;
  if (options.url) {
    try {
      const url = new URL(options.url);
      url.password = "";
      url.username = "";
      return url.host;
    } catch {
      return "the configured url";
    }
  }
  return `${options.host ?? "127.0.0.1"}:${options.port ?? 6379}`;
}

/** Errors that mean "Redis is not there", as opposed to a refused command. */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === "string" &&
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE|EAI_AGAIN)$/.test(code)
  )
    return true;
  return /Connection is closed|Stream isn't writeable|connect ETIMEDOUT|ECONNREFUSED|ECONNRESET|Reached the max retries|Command timed out/i.test(
    error.message,
  );
}

/**
 * Reports errors to `onError`: a connection error once per outage (until a client is ready
 * again), any other error each time.
 */
export function errorReporter(
  address: string,
  onError: (error: Error) => void,
): { report(error: unknown): void; ready(): void } {
  let down = false;
  return {
    report(error) {
      if (isConnectionError(error)) {
        if (down) return;
        down = true;
        onError(error instanceof BulkQueueConnectionError ? error : new BulkQueueConnectionError(address, error));
      } else {
        onError(explained(error instanceof Error ? error : new Error(String(error))));
      }
    },
    ready() {
      down = false;
    },
  };
}

/**
 * BullMQ's own messages, with what they mean for the work. A lock not renewed (a worker too
 * busy, or Redis away, for `lockDurationMs`) lets another worker take the job over: the ledger
 * makes that safe, and says so.
 */
function explained(error: Error): Error {
  if (/could not renew lock|Missing lock for job|Lock mismatch/i.test(error.message)) {
    return new Error(
      `${error.message}. Nothing is lost or sent twice: another worker may take the job over, but the ledger runs a key's ` +
        "task only once, a POST or PATCH leaves only while this worker holds the job's lock, and a key that sent one is never re-run.",
      { cause: error },
    );
  }
  return error;
}

/**
 * A client for calls made on behalf of a caller (`add`, `status`, `report`): it does not queue
 * commands while Redis is away (`enableOfflineQueue: false`), so the caller gets a clear error
 * at once instead of a promise that waits for Redis, and one that gets no answer fails within `timeoutMs`.
 */
export function callerClient(
  options: RedisOptions,
  reporter: ReturnType<typeof errorReporter>,
  timeoutMs: number,
): Redis {
  const redis = new Redis({
    // Reconnect at most a second apart, so that a call soon after Redis is back finds it.
    retryStrategy: (times: number) => Math.min(times * 100, 1000),
    // A Redis that holds the connection open but does not answer (frozen, overloaded) fails a
    // call within this time instead of leaving it waiting for ever.
    commandTimeout: timeoutMs,
    ...options,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
  });
  redis.on("error", (error: unknown) => reporter.report(error));
  redis.on("ready", () => reporter.ready());
  return redis;
}

/**
 * A client for the workers' own steps (the ledger's markers, the rate budget): its commands
 * wait while Redis is away and run when it is back, as BullMQ's worker connections do.
 */
export function workerClient(options: RedisOptions, reporter: ReturnType<typeof errorReporter>): Redis {
  // Auto-pipelining: the commands of many tasks issued in one turn of the event loop go out in
  // one write, which halves a worker's CPU per job (socket writes were most of it).
  const redis = new Redis({ enableAutoPipelining: true, ...options, maxRetriesPerRequest: null });
  redis.on("error", (error: unknown) => reporter.report(error));
  redis.on("ready", () => reporter.ready());
  return redis;
}

/**
 * Resolves once `redis` is connected; rejects with a {@link BulkQueueConnectionError} when it
 * is not within `timeoutMs`.
 */
export async function connected(redis: Redis, address: string, timeoutMs: number): Promise<void> {
  if (redis.status === "ready") return;
  if (redis.status === "wait") redis.connect().catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    let lastError: unknown = new Error(`no answer within ${timeoutMs} ms`);
    const onReady = (): void => finish();
    const onError = (error: unknown): void => {
      lastError = error;
    };
    const timer = setTimeout(() => finish(new BulkQueueConnectionError(address, lastError)), timeoutMs);
    function finish(error?: Error): void {
      clearTimeout(timer);
      redis.off("ready", onReady);
      redis.off("error", onError);
      if (error) reject(error);
      else resolve();
    }
    redis.on("ready", onReady);
    redis.on("error", onError);
  });
}
