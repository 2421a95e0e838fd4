/**
 * A store's token source: the `accessToken` function of its client, which hands out the stored
 * access token and refreshes it first when it expires within `refreshBeforeExpiryMs`.
 */
import { OAuthError } from "./oauth-error.js";
import type { PartnerApp } from "./app-state.js";

/** One store's tokens, as a client takes them. */
export interface StoreTokenSource {
  /** The store (normalised host name). */
  readonly store: string;
  /** For `createStoreAdminClient({ accessToken })`: the current access token, refreshed first when due. */
  accessToken(): Promise<string>;
}

export function storeTokenSource(app: PartnerApp, store: string): StoreTokenSource {
  return {
    store,
    async accessToken() {
      const tokens = await app.storage.get(store);
      if (!tokens)
        throw new OAuthError("not_authorized", `No tokens are stored for ${store}: send the merchant through begin().`);
      const due = tokens.expiresAt !== undefined && tokens.expiresAt - app.refreshBeforeExpiryMs <= Date.now();
      // A refused refresh token is not tried again: the token goes as it is, and the store's 401 says what to do.
      if (!due || tokens.refused) return tokens.accessToken;
      try {
        return (await app.refresh(store, tokens.accessToken)).accessToken;
      } catch (error) {
        // Refreshed early and failed: the token is still good until it expires.
        if (tokens.expiresAt! > Date.now()) return tokens.accessToken;
        if (error instanceof OAuthError && error.reason === "refresh_refused") return tokens.accessToken;
        throw error;
      }
    },
  };
}
