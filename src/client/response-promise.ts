/**
 * What an operation method returns: a promise of the data with two more ways to read the same
 * call, as Stainless SDKs offer: `.withResponse()` (the data, the `Response` and the server's
 * request id) and `.asResponse()` (the `Response`, its body unread). One call sends one
 * request, whichever of them the caller uses, and however often.
 */
import type { FetchResult, ResponsePromise } from "../core/call-types.js";
import { recallCall } from "./call-info.js";
import { requestIdOf } from "../core/request-id.js";
import { unwrap } from "./unwrap.js";

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
        // Read and scrubbed of the call's token as the errors do it, only when asked for;
        // the Response itself is the caller's, its headers as sent.
        return { data: value, response, requestId: requestIdOf(response.headers, recallCall(response)?.secrets) };
      }),
    asResponse() {
      if (raw === false) throw new TypeError("asResponse() must be chained on the call");
      raw = true;
      // Resolved once the copy is read: a body past maxResponseBytes, or not JSON, rejects here too.
      return data.then(() => outcome.response);
    },
  });
}
