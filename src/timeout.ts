/**
 * `withTimeout(fetch, timeoutMs)`: one attempt of one request, bounded in time from the
 * first byte sent to the last byte of the body received, and checked on the way out:
 *
 * 1. The request is re-issued with `redirect: "manual"` and a signal that aborts on the
 *    timer or on the caller's own signal, whichever comes first.
 * 2. A 3xx is never followed (the request carries the token): `RedirectError`.
 * 3. The whole body is read inside the timer, so a server that sends headers and then
 *    stalls times out too; a body cut off mid-stream is a `ConnectionError`.
 * 4. A 2xx body that cannot be the declared JSON (empty, HTML) is an `InvalidResponseError`.
 *    Parsing the JSON stays with openapi-fetch; it is not done twice.
 *
 * The caller's abort reason is rethrown unchanged. Nothing here is Node-specific.
 */

import { ConnectionError, InvalidResponseError, RedirectError, TimeoutError, type Operation } from "./errors.js";
import { hold } from "./internal/hold.js";
import { operationOf } from "./internal/operation.js";
import { secretsOfRequest } from "./internal/secrets.js";

/**
 * Default per-attempt limit. The API's operations are small CRUD calls that answer in well
 * under a second; 30 s leaves room for a slow list page under load while an unattended job
 * still notices a dead connection within a minute and a half (3 attempts).
 */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Largest delay `setTimeout` honours; beyond it the timer fires at once.
 * https://developer.mozilla.org/en-US/docs/Web/API/setTimeout#maximum_delay_value
 * A larger `timeoutMs` (or `Infinity`) means no timer at all.
 */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

/**
 * Statuses whose response has no body by definition (Fetch "null body status"); a
 * `Response` with one of them cannot be built with a body.
 * https://fetch.spec.whatwg.org/#null-body-status
 */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/** JSON media types: `application/json` and `application/<anything>+json` (RFC 6839). */
const JSON_CONTENT_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** The `fetch` signature the SDK's transport layers accept and return. */
export type FetchLike = (input: Request, init?: RequestInit) => Promise<Response>;

/**
 * Wraps `fetch` so that each call is bounded by `timeoutMs` (headers and whole body),
 * never follows a redirect, and rejects 2xx bodies that cannot be JSON.
 *
 * @param timeoutMs per attempt, in milliseconds; `Infinity` disables the timer.
 * @default timeoutMs 30_000
 * @throws TimeoutError, ConnectionError, RedirectError, InvalidResponseError; or the caller's abort reason.
 */
export function withTimeout(
  fetch: FetchLike,
  timeoutMs: number = DEFAULT_TIMEOUT_MS,
  { nativeFetch = false }: { /** `fetch` honours `init` (the platform's fetch does): pass the signal there instead of copying the Request. */ nativeFetch?: boolean } = {},
): FetchLike {
  if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be a positive number of milliseconds, got ${timeoutMs}`);

  return async function fetchWithTimeout(input: Request, init?: RequestInit): Promise<Response> {
    const callerSignal = input.signal;
    if (callerSignal.aborted) throw callerSignal.reason;
    const operation = operationOf(input);
    const secrets = secretsOfRequest(input);

    const controller = new AbortController();
    // The attempt's own signal and `redirect: "manual"`: given to the platform's fetch in
    // `init` (it copies the Request anyway), or carried by a copy for a caller's fetch,
    // which receives only a Request.
    const attemptInit: RequestInit = { ...init, signal: controller.signal, redirect: "manual" };
    const request = nativeFetch ? input : new Request(input, attemptInit);
    // Both Requests must outlive the attempt, or a GC can disconnect their signals (see internal/hold.ts).
    const release = hold(input, request);
    let timedOut = false;
    const timer =
      timeoutMs <= MAX_TIMER_DELAY_MS
        ? setTimeout(() => {
            timedOut = true;
            controller.abort(new TimeoutError({ timeoutMs, operation, secrets }));
          }, timeoutMs)
        : undefined;
    // A cleared setTimeout and a removed listener rather than AbortSignal.timeout() and
    // AbortSignal.any(): nothing outlives the attempt. AbortSignal.any() has leaked combined
    // signals when one source is long-lived, such as a job-wide signal a caller reuses
    // (https://github.com/nodejs/node/issues/55351, https://github.com/denoland/deno/issues/24842),
    // and an uncleared timeout timer lingers for timeoutMs after every request.
    const onCallerAbort = (): void => controller.abort(callerSignal.reason);
    callerSignal.addEventListener("abort", onCallerAbort, { once: true });

    const failure = (error: unknown, phase: "request" | "body"): unknown => {
      if (timedOut) return controller.signal.reason as TimeoutError;
      if (callerSignal.aborted) return callerSignal.reason;
      return ConnectionError.from(error, { phase, operation, secrets });
    };

    try {
      let response: Response;
      try {
        response = await fetch(request, nativeFetch ? attemptInit : undefined);
      } catch (error) {
        throw failure(error, "request");
      }
      if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400 && response.status !== 304)) {
        await response.body?.cancel().catch(() => undefined);
        throw new RedirectError({
          status: response.status,
          targetOrigin: originOf(response.headers.get("location"), input.url),
          operation,
          secrets,
        });
      }
      let bytes: ArrayBuffer | null;
      try {
        bytes = NULL_BODY_STATUSES.has(response.status) ? null : await response.arrayBuffer();
      } catch (error) {
        throw failure(error, "body");
      }
      checkBody(input.method, response, bytes, operation, secrets);
      return new Response(bytes, { status: response.status, statusText: response.statusText, headers: response.headers });
    } finally {
      release();
      if (timer !== undefined) clearTimeout(timer);
      callerSignal.removeEventListener("abort", onCallerAbort);
    }
  };
}

/**
 * Every 2xx operation of this API declares `application/json`. An empty body or a body of
 * another declared type (an HTML error page from a proxy) cannot be it. A body with no
 * `Content-Type` is left to the JSON parser: tolerant responses.
 */
function checkBody(
  method: string,
  response: Response,
  bytes: ArrayBuffer | null,
  operation: Operation,
  secrets: readonly string[],
): void {
  if (!response.ok || method === "HEAD" || bytes === null) return;
  const contentType = response.headers.get("content-type");
  let problem: string | undefined;
  if (bytes.byteLength === 0) problem = "the body is empty";
  else if (contentType && !JSON_CONTENT_TYPE.test(contentType)) {
    problem = `its content-type is ${contentType.split(";")[0]?.trim()}, not application/json`;
  }
  if (problem) throw new InvalidResponseError({ status: response.status, problem, operation, secrets });
}

/** The origin of a `Location` value resolved against the request URL; never its path or query. */
function originOf(location: string | null, base: string): string | undefined {
  if (!location) return undefined;
  try {
    const origin = new URL(location, base).origin;
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}
