/**
 * What the SDK knows about a call once its response is back: the operation (method and
 * path template), the scope it needs and the credentials it carried. `unwrap()` and
 * `errorFromResponse()` see only the `Response`, so the client records this against it.
 * A weak map: nothing is kept once the response is gone.
 * Not exported from the package.
 */
import type { Operation } from "../core/errors.js";
import type { RequiredScopes } from "../core/error-messages.js";

interface CallInfo {
  operation: Operation;
  scope: string | undefined;
  /** What the operation needs: alternatives of scope sets. */
  requiredScopes: RequiredScopes | undefined;
  /** Strings never to show in an error or a log line: the token the call carried. */
  secrets: readonly string[];
}

const infoByResponse = new WeakMap<Response, CallInfo>();

/** Records `info` against `response`. */
export function rememberCall(response: Response, info: CallInfo): void {
  infoByResponse.set(response, info);
}

/** What {@link rememberCall} recorded for `response`. */
export function recallCall(response: Response | undefined): CallInfo | undefined {
  return response ? infoByResponse.get(response) : undefined;
}
