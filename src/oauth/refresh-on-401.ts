/**
 * The resend after a 401, as a plugin on the client's hook chain: a 401 means the store did not
 * act on the request, so after one refresh (shared with every call that met the same 401, in
 * this process and, through the storage's lock, in others) the call is sent once more, a POST
 * too. A refresh the server refuses ends the call with its 401 `AuthenticationError`, whose
 * `cause` is the refusal and whose message says to authorize the app again; a token endpoint
 * that cannot be reached or fails ends it with that `ConnectionError` or `InternalServerError`,
 * the stored tokens kept. The plugin holds the store's token source itself; the client hands
 * it no token.
 */
import {
  AuthenticationError,
  StoreAdminError,
  type AttemptOutcome,
  type PluginAttempt,
  type PluginCall,
  type StoreAdminPlugin,
} from "#shared";
import type { PartnerApp } from "./app-state.js";
import { OAuthError } from "./oauth-error.js";
import type { StoreTokenSource } from "./token-source.js";

/** What the 401's error says to do when the refresh token is refused. */
const REAUTHORIZE = "The refresh token was refused: the merchant must authorize the app again (begin()).";

export function refreshOn401(app: PartnerApp, source: StoreTokenSource): StoreAdminPlugin {
  // The access token each call was sent with (read, and refreshed when due, just before the client reads it).
  const sentWith = new WeakMap<PluginCall, string>();
  const resent = new WeakSet<PluginCall>();
  const refreshed = new WeakSet<PluginAttempt>();
  return {
    name: "store-admin-sdk/oauth refresh on 401",
    async wrapCall(call, next) {
      // A refresh due before the call fails it here, as the SDK error it is (ConnectionError, InternalServerError).
      sentWith.set(call, await untilAborted(source.accessToken(), call.signal));
      return next();
    },
    async wrapAttempt(attempt, next) {
      const outcome = await next();
      const { call } = attempt;
      if (outcome.response?.status !== 401 || outcome.error !== undefined || resent.has(call)) return outcome;
      const stale = sentWith.get(call)!;
      try {
        sentWith.set(call, (await app.refresh(source.store, stale)).accessToken);
        refreshed.add(attempt);
        return outcome;
      } catch (error) {
        return { ...outcome, error: refreshFailure(error, outcome, call, [stale, app.clientSecret]) };
      }
    },
    onAttemptEnd(attempt) {
      if (!refreshed.has(attempt)) return undefined;
      resent.add(attempt.call);
      return { retry: true, delayMs: 0, refreshToken: true };
    },
  };
}

/** What a call that met a 401 ends with when the refresh failed. */
function refreshFailure(
  error: unknown,
  outcome: AttemptOutcome,
  call: PluginCall,
  secrets: readonly string[],
): unknown {
  if (!(error instanceof OAuthError))
    return error instanceof StoreAdminError
      ? error
      : new StoreAdminError("The token refresh failed.", { cause: error, secrets });
  const refused = new AuthenticationError({
    status: 401,
    body: outcome.errorBody,
    headers: outcome.response!.headers,
    operation: { method: call.method, path: call.path },
    secrets,
  });
  Object.defineProperty(refused, "message", {
    value: `${refused.message} ${error.reason === "refresh_refused" ? REAUTHORIZE : error.message}`,
    writable: true,
    configurable: true,
  });
  Object.defineProperty(refused, "cause", { value: error, writable: true, configurable: true });
  return refused;
}

/** `promise`, or the caller's abort reason as soon as `signal` aborts (a storage that hangs does not hold the call). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}
