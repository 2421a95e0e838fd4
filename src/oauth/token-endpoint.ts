/**
 * One request to a store's token endpoint (the code exchange or a refresh), through
 * oauth4webapi, and what becomes of its failures: a refused refresh token is an `OAuthError`
 * (`refresh_refused`); an endpoint that cannot be reached a `ConnectionError`; a 5xx an
 * `InternalServerError`; any other answer an `ApiError` or `InvalidResponseError`. Every secret
 * of the request and of the answer is scrubbed from each of them.
 */
import * as oauth from "oauth4webapi";
import {
  ApiError,
  clip,
  ConnectionError,
  InternalServerError,
  InvalidResponseError,
  type StoreAdminError,
} from "#shared";
import { OAuthError } from "./oauth-error.js";
import type { StoredTokens } from "./types.js";

/** What the token endpoint answered, as stored (`scopes` falls back to those asked for). */
export function storedTokens(
  answer: oauth.TokenEndpointResponse,
  fallback: { scopes: readonly string[]; refreshToken?: string | undefined },
): StoredTokens {
  return {
    accessToken: answer.access_token,
    // A server that does not rotate the refresh token sends none with the new access token: the old one stays good.
    refreshToken: answer.refresh_token ?? fallback.refreshToken,
    expiresAt: answer.expires_in === undefined ? undefined : Date.now() + answer.expires_in * 1000,
    scopes: answer.scope === undefined ? [...fallback.scopes] : answer.scope.split(" ").filter(Boolean),
  };
}

/**
 * `send` then `read` one token request. `secrets` are what the request carried (client secret,
 * code, verifier, refresh token); the answer's tokens are added before anything is kept of it.
 */
export async function tokenRequest(
  operation: { method: "POST"; path: string },
  send: () => Promise<Response>,
  read: (response: Response) => Promise<oauth.TokenEndpointResponse>,
  secrets: readonly string[],
): Promise<oauth.TokenEndpointResponse> {
  let response: Response;
  try {
    response = await send();
  } catch (error) {
    throw ConnectionError.from(error, { phase: "request", operation, secrets });
  }
  try {
    return await read(response);
  } catch (error) {
    throw tokenError(error, operation, secrets);
  }
}

/** The SDK error for what oauth4webapi threw reading the token endpoint's answer. */
function tokenError(
  error: unknown,
  operation: { method: string; path: string },
  secrets: readonly string[],
): StoreAdminError {
  if (error instanceof oauth.ResponseBodyError) {
    if (error.error === "invalid_grant") {
      return new OAuthError(
        "refresh_refused",
        `The authorization server refused the grant (invalid_grant${error.error_description ? `: ${clip(error.error_description, secrets, 200)}` : ""}): the merchant must authorize the app again (begin()).`,
        { code: error.error, secrets, operation },
      );
    }
    const input = {
      status: error.status,
      body: { error: error.error, error_description: error.error_description },
      headers: error.response.headers,
      operation,
      secrets,
    };
    return error.status >= 500 ? new InternalServerError(input) : new ApiError(input);
  }
  if (
    error instanceof oauth.OperationProcessingError &&
    error.code === oauth.RESPONSE_IS_NOT_CONFORM &&
    error.cause instanceof Response
  ) {
    const response = error.cause;
    const input = { status: response.status, body: undefined, headers: response.headers, operation, secrets };
    if (response.status >= 500) return new InternalServerError(input);
    if (response.status >= 300) return new ApiError(input);
  }
  if (error instanceof oauth.OperationProcessingError) {
    // The cause of these holds the parsed body, tokens and all: only the message is kept.
    return new InvalidResponseError({
      problem: `the token endpoint's answer is not one OAuth 2.0 allows (${error.message})`,
      operation,
      secrets,
    });
  }
  return ConnectionError.from(error, { phase: "body", operation, secrets });
}
