/**
 * The redirect back from the store (`redirect_uri?store={store}&code={code}&state=…`): its
 * `state`, then its `store`, are checked before any request carries the client secret; then
 * the code is exchanged at that store's token endpoint and the tokens stored under the store.
 */
import * as oauth from "oauth4webapi";
import { clip } from "#shared";
import { authorizationServer, tokenRequestOptions } from "./endpoints.js";
import { OAuthError } from "./oauth-error.js";
import type { PartnerApp } from "./app-state.js";
import { checkedStore } from "./store-host.js";
import { storedTokens, tokenRequest } from "./token-endpoint.js";
import type { Began, CallbackResult } from "./types.js";

/** The callback's query, from what an app's framework hands over. */
function callbackParams(input: URL | URLSearchParams | string): URLSearchParams {
  if (input instanceof URLSearchParams) return new URLSearchParams(input);
  if (input instanceof URL) return new URLSearchParams(input.search);
  if (typeof input === "string") return new URL(input, "http://callback.invalid").searchParams;
  throw new TypeError("callback() takes the request's URL (a URL or a string) or its query (URLSearchParams).");
}

/** Constant-time equality: how much of a forged `state` matched must not show in the time taken. */
function sameText(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

export async function callback(
  app: PartnerApp,
  input: URL | URLSearchParams | string,
  began: Began,
): Promise<CallbackResult> {
  const params = callbackParams(input);
  if (typeof began?.state !== "string" || began.state.length === 0)
    throw new TypeError("callback() needs the state begin() returned (kept by the app), as { state }.");
  const state = params.get("state");
  if (state === null || !sameText(state, began.state)) {
    throw new OAuthError(
      "state_mismatch",
      "The callback's state is not the one begin() made for this session: refused, nothing was sent. Start again with begin().",
    );
  }
  const store = checkedStore(params.get("store") ?? undefined, app.allowed);
  if (began.store !== undefined && began.store !== store) {
    throw new OAuthError(
      "store_refused",
      `The callback names another store than the one begin() was for (${began.store}): nothing was sent.`,
    );
  }
  const as = authorizationServer(app.endpoints, store);
  let checked: URLSearchParams;
  try {
    checked = oauth.validateAuthResponse(as, app.client, params, began.state);
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      const described = error.error_description ? `: ${clip(error.error_description, [], 200)}` : "";
      throw new OAuthError(
        "authorization_denied",
        `The store ${store} did not authorize the app (${clip(error.error, [], 60)}${described}).`,
        { code: error.error },
      );
    }
    throw new OAuthError(
      "authorization_denied",
      `The callback from ${store} is not an authorization response: ${error instanceof Error ? error.message : "unreadable"}.`,
    );
  }
  const code = checked.get("code") ?? "";
  const secrets = [app.clientSecret, code, ...(began.codeVerifier ? [began.codeVerifier] : [])];
  const operation = { method: "POST" as const, path: app.endpoints.tokenPath };
  const answer = await tokenRequest(
    operation,
    () =>
      oauth.authorizationCodeGrantRequest(
        as,
        app.client,
        app.clientAuth,
        checked,
        app.redirectUri,
        began.codeVerifier ?? oauth.nopkce,
        tokenRequestOptions(app.endpoints),
      ),
    (response) => oauth.processAuthorizationCodeResponse(as, app.client, response),
    secrets,
  );
  const asked = began.scopes ?? app.scopes ?? [];
  const tokens = storedTokens(answer, { scopes: asked });
  await app.storage.set(store, tokens);
  return {
    store,
    scopes: tokens.scopes,
    missingScopes: asked.filter((scope) => !tokens.scopes.includes(scope)),
    extraScopes: tokens.scopes.filter((scope) => !(asked as readonly string[]).includes(scope)),
  };
}
