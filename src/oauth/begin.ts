/**
 * The authorization link for a store (the vendor's: `https://{store}/oauth2/authorize/?
 * response_type=code&client_id=…&redirect_uri=…&scope=…`, scopes space-separated), with a fresh
 * `state` and, unless turned off, PKCE (S256).
 */
import * as oauth from "oauth4webapi";
import type { PartnerApp } from "./app-state.js";
import { checkedStore } from "./store-host.js";
import { authorizationServer } from "./endpoints.js";
import type { BeginResult, Scope } from "./types.js";

/** What `begin()` takes. */
export interface BeginOptions {
  /** The store's host name (`shop.example.com`): it must be one `allowedStores` allows. */
  store: string;
  /** The scopes to ask for. @default the app's `scopes` */
  scopes?: readonly Scope[] | undefined;
}

export async function begin(app: PartnerApp, options: BeginOptions): Promise<BeginResult> {
  const store = checkedStore(options?.store, app.allowed);
  const scopes = options.scopes ?? app.scopes;
  if (!Array.isArray(scopes) || scopes.length === 0)
    throw new TypeError("begin() needs scopes: pass { scopes } or give the app its scopes.");
  for (const scope of scopes) {
    if (typeof scope !== "string" || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))
      throw new TypeError(`Scope ${JSON.stringify(scope)} is not a scope name (RFC 6749 §3.3).`);
  }
  const state = oauth.generateRandomState();
  const codeVerifier = app.pkce ? oauth.generateRandomCodeVerifier() : undefined;
  const url = new URL(authorizationServer(app.endpoints, store).authorization_endpoint!);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", app.clientId);
  url.searchParams.set("redirect_uri", app.redirectUri);
  url.searchParams.set("scope", scopes.join(" "));
  url.searchParams.set("state", state);
  if (codeVerifier !== undefined) {
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(codeVerifier));
    url.searchParams.set("code_challenge_method", "S256");
  }
  return { url: url.href, state, codeVerifier, store, scopes: [...scopes] };
}
