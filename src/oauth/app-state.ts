/** The partner app as its steps see it: its options checked and resolved once (partner-app.ts). */
import type * as oauth from "oauth4webapi";
import type { Endpoints } from "./endpoints.js";
import type { AllowList } from "./store-host.js";
import type { Scope, StoredTokens, TokenStorage } from "./types.js";

/** The app's options, checked and resolved: what every step reads. */
export interface PartnerApp {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  allowed: AllowList;
  scopes: readonly Scope[] | undefined;
  storage: TokenStorage;
  pkce: boolean;
  endpoints: Endpoints;
  refreshBeforeExpiryMs: number;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  refresh: (store: string, stale: string) => Promise<StoredTokens>;
}
