/**
 * What an operation method returns: a promise of the data with two more ways to read the same
 * call, as Stainless SDKs offer: `.withResponse()` (the data, the `Response` and the server's
 * request id) and `.asResponse()` (the `Response`, its body unread). One call sends one
 * request, whichever of them the caller uses, and however often.
 */
import type { FetchResult } from "./request.js";
import { recallCall } from "./call-info.js";
import { loadOffPath } from "../internal/lazy.js";
import { unwrap } from "./unwrap.js";

/** What `.withResponse()` resolves to. */
export interface WithResponse<Data> {
  data: Data;
  /** The response of the attempt that succeeded; its body is already read (into `data`). */
  response: Response;
  /** The server's `x-request-id` (or `request-id`) header, when it sent one. */
  requestId: string | undefined;
}

/** The promise of an operation method's data, with `.withResponse()` and `.asResponse()`. */
export interface ResponsePromise<Data> extends Promise<Data> {
  /** Resolves to `{ data, response, requestId }`; rejects as the promise itself does. */
  withResponse(): Promise<WithResponse<Data>>;
  /**
   * Resolves to the 2xx `Response` with its body unread (a copy was read for the data, within
   * `maxResponseBytes`); rejects with the typed error otherwise, as the promise itself does.
   * Chain it on the call (`store.users.retrieve(42).asResponse()`): once the request has gone
   * out, its body is read for the data and this throws a `TypeError`.
   */
  asResponse(): Promise<Response>;
}

/**
 * A {@link ResponsePromise} over one call, which `send(raw)` starts a turn later, so that an
 * `.asResponse()` chained on the call can still ask for the body unread (`raw`). A real
 * promise: a call nobody reads fails as loudly as before. The success path costs one turn more
 * than a plain `unwrap()` (no promise adopts another on it: each adoption is two more turns).
 */
export function responsePromise<Data>(send: (raw: boolean) => Promise<FetchResult>): ResponsePromise<Data> {
  let raw: boolean | undefined;
  let outcome: FetchResult;
  const data = (async (): Promise<Data> => {
    await undefined;
    outcome = await send((raw ??= false));
    if (outcome.response.ok && !raw) return outcome.data as Data;
    // With `.asResponse()`, the data comes from a copy of the body (a tee), leaving the caller's unread.
    return (raw && outcome.response.ok ? outcome.response.clone().json() : unwrap(outcome)) as Promise<Data>;
  })();
  return Object.assign(data, {
    withResponse: () =>
      data.then(async (value) => {
        const { response } = outcome;
        // Read and scrubbed of the call's token as the errors do it (loaded once, off the path
        // of a plain await); the Response itself is the caller's, its headers as sent.
        return { data: value, response, requestId: (await loadOffPath()).requestIdOf(response.headers, recallCall(response)?.secrets) };
      }),
    asResponse() {
      if (raw === false) throw new TypeError("asResponse() must be chained on the call");
      raw = true;
      // Resolved once the copy is read: a body past maxResponseBytes, or not JSON, rejects here too.
      return data.then(() => outcome.response);
    },
  });
}
