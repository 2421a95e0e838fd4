/**
 * The access token. A token that is empty or could not be put in a header fails the call
 * before anything is sent, and no message ever contains the token itself.
 */
import { StoreAdminError } from "../core/errors.js";
import type { AccessToken } from "../core/types.js";

/**
 * RFC 6750 §2.1 `b64token` is `[A-Za-z0-9-._~+/]+=*`; any visible ASCII is accepted here so
 * that opaque tokens of other shapes work, but never white space or control characters,
 * which would let a token inject another header line.
 */
const HEADER_SAFE_TOKEN = /^[\x21-\x7e]+$/;

/** Checks a token value; the message names the problem, never the value. */
function checkAccessToken(token: unknown, source: string): string {
  if (typeof token !== "string") {
    throw new TypeError(`${source} must be a string, got ${token === null ? "null" : typeof token}.`);
  }
  if (token.length === 0) {
    throw new TypeError(`${source} is an empty string: pass the store's API access token.`);
  }
  if (token.startsWith("Bearer ")) {
    throw new TypeError(`${source} starts with "Bearer ": pass the token alone, the client adds the scheme.`);
  }
  if (!HEADER_SAFE_TOKEN.test(token)) {
    // Named apart: a token pasted with a curly quote or a non-breaking space is not "white space" to its author.
    throw new TypeError(
      `${source} contains ${/[^\0-\x7f]/.test(token) ? "a non-ASCII character" : "white space or control characters"}.`,
    );
  }
  return token;
}

/**
 * How many of the tokens a function handed out are remembered, the most recent first: a server
 * may echo an earlier one (in a cursor, an error) after the function has handed out a new one.
 */
const RECENT_TOKENS = 16;

/**
 * The `Authorization` value of every request: fixed for a string token (checked once, here),
 * or resolved before every attempt for a function, so it can hand out a fresh token when the
 * old one expires (the spec does not say how long tokens live). `secrets` is every token handed
 * out (the fixed one, or the function's {@link RECENT_TOKENS} most recent): what is scrubbed
 * from errors, log events, spans, request ids and MCP results. A new array when it changes only,
 * so that the redaction built for it is reused.
 */
export type TokenSource =
  | { fixed: string; resolve?: undefined; readonly secrets: readonly string[] }
  | { fixed?: undefined; resolve: () => Promise<string>; readonly secrets: readonly string[] };

/** Checks `accessToken` and returns where each request's token comes from. */
export function tokenSource(accessToken: AccessToken): TokenSource {
  if (typeof accessToken === "string")
    return { fixed: checkAccessToken(accessToken, "accessToken"), secrets: [accessToken] };
  if (typeof accessToken !== "function") {
    throw new TypeError(
      `accessToken must be a string or a function returning one, got ${accessToken === null ? "null" : typeof accessToken}.`,
    );
  }
  let recent: readonly string[] = [];
  return {
    get secrets() {
      return recent;
    },
    async resolve() {
      let token: unknown;
      try {
        token = await accessToken();
      } catch (cause) {
        // Its message may quote a token it handed out before (a refresh that failed): scrubbed as every error is.
        throw new StoreAdminError("The accessToken function threw, so the request was not sent.", {
          cause,
          secrets: recent,
        });
      }
      const checked = checkAccessToken(token, "The token returned by accessToken()");
      if (recent[0] !== checked)
        recent = [checked, ...recent.filter((known) => known !== checked)].slice(0, RECENT_TOKENS);
      return checked;
    },
  };
}
