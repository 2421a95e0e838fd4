/**
 * store-admin-sdk/oauth: a partner app's OAuth 2.0 Authorization Code flow for many stores
 * (docs/guide.md, "Partner apps"), on oauth4webapi (an optional peer dependency).
 *
 * @example
 * import { createPartnerApp } from "store-admin-sdk/oauth";
 * const app = createPartnerApp({ clientId, clientSecret, redirectUri, allowedStores: [".stores.example.com"], scopes: ["users:read"] });
 */
export { createPartnerApp, type PartnerAppHandle } from "./partner-app.js";
export type { BeginOptions } from "./begin.js";
export { memoryTokenStorage } from "./memory-storage.js";
export { OAuthError, type OAuthErrorReason } from "./oauth-error.js";
export type { StoreTokenSource } from "./token-source.js";
export type {
  Began,
  BeginResult,
  CallbackResult,
  PartnerAppOptions,
  Scope,
  StoredTokens,
  TokenStorage,
} from "./types.js";
