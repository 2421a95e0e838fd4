/**
 * The error of the partner app's flow: the callback refused (its `state`, its `store`, the
 * store's own refusal), no tokens stored for a store, or a refresh the authorization server
 * refused. Its message never holds a token or the client secret.
 */
import { StoreAdminError } from "#shared";

/**
 * What went wrong, for code that handles it:
 * - `state_mismatch`: the callback's `state` is not the one `begin()` made (a forged or replayed redirect);
 * - `store_refused`: the callback's `store` is not a bare host name in `allowedStores`;
 * - `authorization_denied`: the store's redirect carries an `error` (the merchant declined, …);
 * - `not_authorized`: no tokens are stored for the store: send the merchant through `begin()`;
 * - `refresh_refused`: the authorization server refused the refresh token (`invalid_grant`):
 *   the merchant must authorize the app again.
 */
export type OAuthErrorReason =
  | "state_mismatch"
  | "store_refused"
  | "authorization_denied"
  | "not_authorized"
  | "refresh_refused";

/** Thrown by `store-admin-sdk/oauth` for the reasons of {@link OAuthErrorReason}. */
export class OAuthError extends StoreAdminError {
  override name = "OAuthError";
  /** What went wrong. */
  readonly reason: OAuthErrorReason;
  /** The authorization server's `error` code, when it sent one (`invalid_grant`, `access_denied`). */
  readonly code: string | undefined;

  constructor(
    reason: OAuthErrorReason,
    message: string,
    options: {
      code?: string | undefined;
      cause?: unknown;
      secrets?: readonly string[];
      operation?: { method: string; path: string };
    } = {},
  ) {
    super(message, options);
    this.reason = reason;
    this.code = options.code;
  }
}
