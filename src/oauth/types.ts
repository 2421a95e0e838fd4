/** The public types of `store-admin-sdk/oauth`. */
import type { FetchLike } from "#shared";
import type { Scope } from "../../generated/operations.js";

export type { Scope };

/**
 * What is stored per store: what the app needs to call the store after a restart. Times are
 * epoch milliseconds.
 */
export interface StoredTokens {
  /** The access token, sent as `Authorization: Bearer …`. */
  accessToken: string;
  /** The refresh token, when the server gave one (the latest: a rotated one replaces it). */
  refreshToken?: string | undefined;
  /** When the access token expires (`expires_in` at issue), when the server said. */
  expiresAt?: number | undefined;
  /** The scopes granted (the server's `scope`, else those asked for). */
  scopes: string[];
  /** Set when the authorization server refused the refresh token: the merchant must authorize again. */
  refused?: { error: string; description?: string | undefined } | undefined;
}

/**
 * Where the tokens live, one entry per store (its host name). `memoryTokenStorage()` is the
 * default; across processes or restarts, implement it over a database table or Redis
 * (docs/guide.md, "Partner apps").
 */
export interface TokenStorage {
  get(store: string): Promise<StoredTokens | undefined>;
  set(store: string, tokens: StoredTokens): Promise<void>;
  delete(store: string): Promise<void>;
  /**
   * Takes the store's refresh lock for at most `leaseMs` (it lapses by itself then, so a crashed
   * holder does not block the store for ever): the function that releases it, or `undefined`
   * when another holder has it. Every process refreshing the store's tokens must share it: it is
   * what makes many calls meeting an expired token cause one refresh.
   */
  lock(store: string, leaseMs: number): Promise<(() => Promise<void>) | undefined>;
}

/** The options of {@link createPartnerApp}. */
export interface PartnerAppOptions {
  /** The partner app's client id. */
  clientId: string;
  /** The partner app's client secret: posted only to the token endpoint of a store `allowedStores` allows. */
  clientSecret: string;
  /** Where the store sends the merchant back (`?store=…&code=…`): registered with the app. */
  redirectUri: string;
  /**
   * The stores the app may exchange codes with, by host name: `"shop.example.com"` (that host)
   * or `".example.com"` (every host below it, at a label boundary). No default allows any host.
   */
  allowedStores: readonly string[];
  /** The scopes `begin()` asks for when it is not given any. */
  scopes?: readonly Scope[] | undefined;
  /** Where tokens are kept. @default memoryTokenStorage() (one process, lost on restart) */
  storage?: TokenStorage | undefined;
  /** PKCE (RFC 7636, S256) on the authorization request; `false` for a server that refuses it. @default true */
  pkce?: boolean | undefined;
  /** The authorization endpoint's path on the store (the vendor's, not the spec's). @default "/oauth2/authorize/" */
  authorizePath?: string | undefined;
  /** The token endpoint's path on the store (the vendor's, not the spec's). @default "/oauth2/token/" */
  tokenPath?: string | undefined;
  /** How long before its expiry an access token is refreshed, in milliseconds. @default 60_000 */
  refreshBeforeExpiryMs?: number | undefined;
  /** How long one request to the token endpoint may take, in milliseconds. @default 10_000 */
  tokenTimeoutMs?: number | undefined;
  /** The `fetch` for the token endpoint. @default globalThis.fetch */
  fetch?: FetchLike | undefined;
  /**
   * For tests only: send every store's requests (authorization link, token endpoint, API) to
   * this plain-HTTP loopback origin, `http://127.0.0.1:<port>`, instead of `https://{store}`.
   * The `store` value is still checked against `allowedStores`. Nothing else is accepted.
   */
  testOrigin?: `http://127.0.0.1:${number}` | undefined;
}

/** What `begin()` returns: the link to send the merchant to, and what the app keeps for the callback. */
export interface BeginResult {
  /** The authorization link on the store (`https://{store}/oauth2/authorize/?response_type=code&…`). */
  url: string;
  /** Keep it (a cookie, the session) and hand it to `callback()`: the redirect must carry it back. */
  state: string;
  /** Keep it with `state` (it never leaves the app before the exchange); `undefined` with `pkce: false`. */
  codeVerifier: string | undefined;
  /** The store the link is for (normalised): the callback must name the same. */
  store: string;
  /** The scopes asked for: `callback()` reports those not granted. */
  scopes: Scope[];
}

/** What the app kept of `begin()`'s result, for `callback()`: `state` always; the rest as `begin()` returned it. */
export type Began = Pick<BeginResult, "state"> & Partial<Pick<BeginResult, "codeVerifier" | "store" | "scopes">>;

/** What `callback()` returns once the tokens are stored. */
export interface CallbackResult {
  /** The store, normalised: the key its tokens are stored under. */
  store: string;
  /** The scopes the store granted. */
  scopes: string[];
  /** The scopes asked for and not granted; empty when all were. */
  missingScopes: string[];
  /** The scopes granted that were not asked for; empty when none. */
  extraScopes: string[];
}
