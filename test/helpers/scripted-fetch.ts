/**
 * A `fetch` that replays scripted outcomes, one per call, and logs each call, after
 * Octokit plugin-retry's `test/octokit.ts`. For tests of the client that need no socket:
 * pass it as the client's `fetch` option.
 *
 * It accepts both ways the client calls its `fetch`: `fetch(url, init)` (no middleware) and
 * `fetch(request)` (middleware registered). Either way it builds `new Request(input, init)`
 * to read the method, path and body, as the platform's fetch would.
 */
import type { FetchLike } from "../../src/core/call-types.js";

/** One scripted outcome: a response factory, a thrown value, or a request that never ends. */
export type Step = { respond: (request: Request) => Response } | { throws: unknown } | { hang: true };

/** How the client called the scripted fetch, per call. */
export interface FetchCall {
  /** `"url"` for `fetch(url, init)`, `"request"` for `fetch(request)`. */
  input: "url" | "request";
  /** The `init` it was given, if any. */
  init: RequestInit | undefined;
}

export interface ScriptedFetch {
  fetch: FetchLike;
  /** `"POST /products/ → 503"`, `"GET /users/1/ → throws TypeError: fetch failed"`, … */
  log: string[];
  /** The body text each call received, in order. */
  bodies: string[];
  /** How each call was made. */
  calls: FetchCall[];
}

export function scriptedFetch(steps: Step[]): ScriptedFetch {
  const log: string[] = [];
  const bodies: string[] = [];
  const calls: FetchCall[] = [];
  let index = 0;
  const fetch: FetchLike = async (input, init) => {
    const step = steps[index++];
    calls.push({ input: input instanceof Request ? "request" : "url", init });
    // What the platform's fetch would send: the init's signal, or else the Request's.
    const request = new Request(input, init);
    const line = `${request.method} ${new URL(request.url).pathname}`;
    bodies.push(await request.clone().text());
    if (step === undefined) throw new Error(`scriptedFetch: no step for call ${index} (${line})`);
    if ("hang" in step) {
      log.push(`${line} → hangs`);
      // Every signal the call was given; the first to abort ends it with its reason.
      const signals = [init?.signal, input instanceof Request ? input.signal : undefined, request.signal].filter(
        (signal): signal is AbortSignal => signal != null,
      );
      return new Promise<Response>((_, reject) => {
        const aborted = signals.find((signal) => signal.aborted);
        if (aborted) {
          reject(aborted.reason);
          return;
        }
        const onAbort = (event: Event): void => {
          for (const signal of signals) signal.removeEventListener("abort", onAbort);
          reject((event.target as AbortSignal).reason);
        };
        for (const signal of signals) signal.addEventListener("abort", onAbort, { once: true });
      });
    }
    if ("throws" in step) {
      const thrown = step.throws;
      log.push(`${line} → throws ${thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown)}`);
      throw thrown;
    }
    const response = step.respond(request);
    log.push(`${line} → ${response.status}`);
    return response;
  };
  return { fetch, log, bodies, calls };
}

/** A step answering with `status` and a JSON `body`. */
export function json(status: number, body: unknown = {}, headers: Record<string, string> = {}): Step {
  return {
    respond: () =>
      new Response(status === 204 ? null : JSON.stringify(body), {
        status,
        headers: { "content-type": "application/json", ...headers },
      }),
  };
}

/** A step throwing what undici throws for a network failure: `TypeError("fetch failed")` with `cause.code`. */
export function networkError(code: string, message = `connect ${code} 127.0.0.1:1`): Step {
  return { throws: new TypeError("fetch failed", { cause: Object.assign(new Error(message), { code }) }) };
}

/**
 * A `sleep` for `buildClient(options, { sleep })` that records each delay and resolves at
 * once; like the client's own, it rejects with the signal's reason when the signal has aborted.
 */
export function recordingSleep(): { sleep: (ms: number, signal?: AbortSignal) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  const sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
    delays.push(ms);
    return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
  };
  return { sleep, delays };
}
