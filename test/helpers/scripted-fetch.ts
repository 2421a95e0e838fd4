/**
 * A `fetch` that replays scripted outcomes, one per call, and logs each call, after
 * Octokit plugin-retry's `test/octokit.ts`. For tests of the transport that need no socket.
 */
import type { FetchLike } from "../../src/timeout.js";

/** One scripted outcome: a response factory, a thrown value, or a request that never ends. */
export type Step =
  | { respond: (request: Request) => Response }
  | { throws: unknown }
  | { hang: true };

export interface ScriptedFetch {
  fetch: FetchLike;
  /** `"POST /products/ → 503"`, `"GET /users/1/ → throws TypeError: fetch failed"`, … */
  log: string[];
  /** The body text each call received, in order. */
  bodies: string[];
  /** The requests as received. */
  requests: Request[];
}

export function scriptedFetch(steps: Step[]): ScriptedFetch {
  const log: string[] = [];
  const bodies: string[] = [];
  const requests: Request[] = [];
  let index = 0;
  const fetch: FetchLike = async (request) => {
    const step = steps[index++];
    const line = `${request.method} ${new URL(request.url).pathname}`;
    requests.push(request);
    bodies.push(await request.text());
    if (step === undefined) throw new Error(`scriptedFetch: no step for call ${index} (${line})`);
    if ("hang" in step) {
      log.push(`${line} → hangs`);
      return new Promise<Response>((_, reject) => {
        request.signal.addEventListener("abort", () => reject(request.signal.reason), { once: true });
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
  return { fetch, log, bodies, requests };
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

/** A `sleep` for `withRetry` that records each delay and resolves at once (abortable). */
export function recordingSleep(): { sleep: (ms: number, signal: AbortSignal) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  const sleep = (ms: number, signal: AbortSignal): Promise<void> => {
    delays.push(ms);
    return signal.aborted ? Promise.reject(signal.reason) : Promise.resolve();
  };
  return { sleep, delays };
}
