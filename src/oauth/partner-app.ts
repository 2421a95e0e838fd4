/**
 * `createPartnerApp()`: a partner app's OAuth 2.0 Authorization Code flow with many stores,
 * over oauth4webapi. Its options are checked once, here; the flow's steps are a file each
 * (`begin.ts`, `callback.ts`, `token-source.ts`, `refresh.ts`).
 */
import * as oauth from "oauth4webapi";
import {
  createStoreAdminClient,
  mustBe,
  ownOptions,
  type StoreAdminClient,
  type StoreAdminClientOptions,
} from "#shared";
import { begin, type BeginOptions } from "./begin.js";
import { callback } from "./callback.js";
import { checkedPath, checkedTestOrigin, storeOrigin, VENDOR_AUTHORIZE_PATH, VENDOR_TOKEN_PATH } from "./endpoints.js";
import { memoryTokenStorage } from "./memory-storage.js";
import { refresher } from "./refresh.js";
import { refreshOn401 } from "./refresh-on-401.js";
import { allowList, checkedStore } from "./store-host.js";
import { storeTokenSource, type StoreTokenSource } from "./token-source.js";
import type { PartnerApp } from "./app-state.js";
import type { Began, BeginResult, CallbackResult, PartnerAppOptions, TokenStorage } from "./types.js";

/** A partner app: the flow's steps, and a client per store. */
export interface PartnerAppHandle {
  /** The authorization link for a store, with the `state` (and PKCE verifier) the app keeps for the callback. */
  begin(options: BeginOptions): Promise<BeginResult>;
  /** Checks the redirect back (`state`, then `store`), exchanges the code and stores the tokens under the store. */
  callback(request: URL | URLSearchParams | string, began: Began): Promise<CallbackResult>;
  /** The store's token source: its `accessToken` refreshes before expiry. */
  tokenSource(store: string): StoreTokenSource;
  /**
   * A client for the store: `https://{store}`, its token source, and the resend on a 401 after
   * one refresh (a plugin on the client's hook chain, before `options.plugins`).
   */
  client(
    store: string,
    options?: Omit<StoreAdminClientOptions, "baseUrl" | "apiUrl" | "accessToken">,
  ): StoreAdminClient;
  /** Where the tokens are kept. */
  readonly storage: TokenStorage;
}

const nonEmpty = (name: string, value: unknown): string => {
  if (typeof value !== "string" || value.length === 0) mustBe(name, "a non-empty string", value, null);
  return value;
};

function resolved(options: PartnerAppOptions): PartnerApp {
  if (options === null || typeof options !== "object")
    throw new TypeError(
      "createPartnerApp() takes an options object ({ clientId, clientSecret, redirectUri, allowedStores }).",
    );
  const own = ownOptions(options);
  const redirectUri = nonEmpty("redirectUri", own.redirectUri);
  if (!URL.canParse(redirectUri)) mustBe("redirectUri", "an absolute URL", redirectUri, JSON.stringify);
  const number = (name: string, value: unknown, fallback: number) => {
    if (value === undefined) return fallback;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
      mustBe(name, "a number of milliseconds ≥ 0", value, null);
    return value;
  };
  const clientId = nonEmpty("clientId", own.clientId);
  const clientSecret = nonEmpty("clientSecret", own.clientSecret);
  const app: Omit<PartnerApp, "refresh"> = {
    clientId,
    clientSecret,
    redirectUri,
    allowed: allowList(own.allowedStores),
    scopes: own.scopes,
    storage: own.storage ?? memoryTokenStorage(),
    pkce: own.pkce ?? true,
    endpoints: {
      authorizePath: checkedPath("authorizePath", own.authorizePath, VENDOR_AUTHORIZE_PATH),
      tokenPath: checkedPath("tokenPath", own.tokenPath, VENDOR_TOKEN_PATH),
      testOrigin: checkedTestOrigin(own.testOrigin),
      timeoutMs: number("tokenTimeoutMs", own.tokenTimeoutMs, 10_000),
      fetch: own.fetch,
    },
    refreshBeforeExpiryMs: number("refreshBeforeExpiryMs", own.refreshBeforeExpiryMs, 60_000),
    client: { client_id: clientId },
    clientAuth: oauth.ClientSecretPost(clientSecret),
  };
  const full = app as PartnerApp;
  full.refresh = refresher(full);
  return full;
}

/**
 * A partner app: the Authorization Code flow for many stores, their tokens in `storage`, and a
 * client per store whose token is refreshed before it expires and once after a 401.
 *
 * The authorization server's paths are the vendor's (`/oauth2/authorize/`, `/oauth2/token/` on
 * the store's host), not the spec's, which leaves them "not shown": override them with
 * `authorizePath` and `tokenPath`.
 *
 * @example
 * const app = createPartnerApp({ clientId, clientSecret, redirectUri: "https://app.example/callback",
 *   allowedStores: [".stores.example.com"], scopes: ["users:read"] });
 * const { url, state, codeVerifier } = await app.begin({ store: "shop.stores.example.com" });
 */
export function createPartnerApp(options: PartnerAppOptions): PartnerAppHandle {
  const app = resolved(options);
  return {
    begin: (beginOptions) => begin(app, beginOptions),
    callback: (request, began) => callback(app, request, began),
    tokenSource: (store) => storeTokenSource(app, checkedStore(store, app.allowed)),
    client(store, clientOptions = {}) {
      const checked = checkedStore(store, app.allowed);
      const source = storeTokenSource(app, checked);
      const plugins = [refreshOn401(app, source), ...(clientOptions.plugins ?? [])];
      return createStoreAdminClient({
        ...clientOptions,
        plugins,
        baseUrl: storeOrigin(app.endpoints, checked),
        accessToken: source.accessToken,
      });
    },
    storage: app.storage,
  };
}
