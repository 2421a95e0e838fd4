/**
 * The refresh of a store's tokens, once for every caller that needs it: callers in this process
 * that need it at the same time share one promise, and processes that share the storage take
 * its lock, so one of them sends the refresh and the others read its result. A refresh token
 * that rotates is stored with the new access token; one the server refuses (`invalid_grant`) is
 * marked in the storage, so no process sends it again, and the merchant must authorize again.
 * A token endpoint that cannot be reached or fails keeps the stored tokens as they were.
 */
import * as oauth from "oauth4webapi";
import { sleep } from "#shared";
import { authorizationServer, tokenRequestOptions } from "./endpoints.js";
import { OAuthError } from "./oauth-error.js";
import type { PartnerApp } from "./app-state.js";
import { storedTokens, tokenRequest } from "./token-endpoint.js";
import type { StoredTokens } from "./types.js";

/** How often a process waiting for another's refresh reads the storage again, in milliseconds. */
const POLL_MS = 25;

/** The error for a store whose refresh token was refused (now or by an earlier refresh). */
const refusal = (store: string, refused: NonNullable<StoredTokens["refused"]>): OAuthError =>
  new OAuthError(
    "refresh_refused",
    `The authorization server refused the refresh token of ${store} (${refused.error}${refused.description ? `: ${refused.description}` : ""}): the merchant must authorize the app again (begin()).`,
    { code: refused.error },
  );

/**
 * `refresh(store, stale)`: the store's tokens once the access token `stale` has been replaced,
 * by this call's refresh or another's (in this process or another). Throws an `OAuthError`
 * (`not_authorized`, `refresh_refused`) or the token endpoint's failure.
 */
export function refresher(app: PartnerApp): (store: string, stale: string) => Promise<StoredTokens> {
  const running = new Map<string, Promise<StoredTokens>>();
  return (store, stale) => {
    const key = `${store}\n${stale}`;
    let shared = running.get(key);
    if (!shared) {
      shared = refreshOnce(app, store, stale).finally(() => running.delete(key));
      running.set(key, shared);
    }
    return shared;
  };
}

/** The stored tokens, if they no longer hold `stale`; else what must be done about it. */
async function current(
  app: PartnerApp,
  store: string,
  stale: string,
): Promise<{ done: StoredTokens } | { todo: StoredTokens }> {
  const tokens = await app.storage.get(store);
  if (!tokens)
    throw new OAuthError("not_authorized", `No tokens are stored for ${store}: send the merchant through begin().`);
  if (tokens.accessToken !== stale) return { done: tokens };
  if (tokens.refused) throw refusal(store, tokens.refused);
  if (!tokens.refreshToken)
    throw new OAuthError(
      "refresh_refused",
      `The access token of ${store} expired and the server gave no refresh token: the merchant must authorize the app again (begin()).`,
    );
  return { todo: tokens };
}

async function refreshOnce(app: PartnerApp, store: string, stale: string): Promise<StoredTokens> {
  // Another holder's lease runs out after leaseMs at most: waiting twice that is enough.
  const leaseMs = app.endpoints.timeoutMs + 5_000;
  const giveUpMs = Date.now() + 2 * leaseMs;
  for (;;) {
    const seen = await current(app, store, stale);
    if ("done" in seen) return seen.done;
    const release = await app.storage.lock(store, leaseMs);
    if (release) {
      try {
        // Read again under the lock: the holder before us may have refreshed since.
        const locked = await current(app, store, stale);
        return "done" in locked ? locked.done : await send(app, store, locked.todo);
      } finally {
        await release();
      }
    }
    if (Date.now() > giveUpMs)
      throw new OAuthError(
        "not_authorized",
        `Waited ${2 * leaseMs} ms for another process's refresh of ${store}: is the storage's lock released?`,
      );
    await sleep(POLL_MS);
  }
}

/** The refresh request itself, under the lock. */
async function send(app: PartnerApp, store: string, tokens: StoredTokens): Promise<StoredTokens> {
  const refreshToken = tokens.refreshToken!;
  const as = authorizationServer(app.endpoints, store);
  const secrets = [app.clientSecret, refreshToken, tokens.accessToken];
  try {
    const answer = await tokenRequest(
      { method: "POST", path: app.endpoints.tokenPath },
      () =>
        oauth.refreshTokenGrantRequest(
          as,
          app.client,
          app.clientAuth,
          refreshToken,
          tokenRequestOptions(app.endpoints),
        ),
      (response) => oauth.processRefreshTokenResponse(as, app.client, response),
      secrets,
    );
    const next = storedTokens(answer, { scopes: tokens.scopes, refreshToken });
    await app.storage.set(store, next);
    return next;
  } catch (error) {
    if (error instanceof OAuthError && error.reason === "refresh_refused") {
      const refused = { error: error.code ?? "invalid_grant" };
      await app.storage.set(store, { ...tokens, refused });
      throw refusal(store, refused);
    }
    throw error;
  }
}
