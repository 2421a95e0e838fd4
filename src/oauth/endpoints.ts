/**
 * Where a store's authorization server is, by the vendor's documentation (the spec says "not
 * shown"): `https://{store}/oauth2/authorize/` and `https://{store}/oauth2/token/`, both paths
 * overridable; and the options of every request to it (oauth4webapi's).
 */
import * as oauth from "oauth4webapi";
import { type FetchLike, mustBe } from "#shared";

/** The vendor's authorization endpoint path. */
export const VENDOR_AUTHORIZE_PATH = "/oauth2/authorize/";
/** The vendor's token endpoint path. */
export const VENDOR_TOKEN_PATH = "/oauth2/token/";

/** The only form `testOrigin` takes: plain HTTP to the IPv4 loopback, on a port. */
const LOOPBACK_ORIGIN = /^http:\/\/127\.0\.0\.1:(\d{1,5})$/;

/** What the flow needs to reach a store's authorization server, resolved once from the options. */
export interface Endpoints {
  authorizePath: string;
  tokenPath: string;
  testOrigin: string | undefined;
  timeoutMs: number;
  fetch: FetchLike | undefined;
}

/** `testOrigin` checked: `http://127.0.0.1:<port>` or nothing. */
export function checkedTestOrigin(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const port = typeof value === "string" ? LOOPBACK_ORIGIN.exec(value)?.[1] : undefined;
  if (port === undefined || Number(port) < 1 || Number(port) > 65535) {
    throw new TypeError(
      'testOrigin takes only "http://127.0.0.1:<port>" (for tests): stores are reached over https at their host name.',
    );
  }
  return value as string;
}

/** A path option: absolute, of plain segments. */
export function checkedPath(name: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || !/^\/[A-Za-z0-9\-._~/]*$/.test(value) || value.includes("//"))
    mustBe(name, `an absolute path of plain segments ("${fallback}")`, value, JSON.stringify);
  return value;
}

/** The origin of a store (a checked host): `https://{store}`, or the test origin. */
export const storeOrigin = (endpoints: Endpoints, store: string): string => endpoints.testOrigin ?? `https://${store}`;

/** The store's authorization server, as oauth4webapi takes it (no discovery: the vendor publishes no metadata document). */
export function authorizationServer(endpoints: Endpoints, store: string): oauth.AuthorizationServer {
  const origin = storeOrigin(endpoints, store);
  return {
    issuer: origin,
    authorization_endpoint: origin + endpoints.authorizePath,
    token_endpoint: origin + endpoints.tokenPath,
  };
}

/** The options of one request to the token endpoint: its deadline, the `fetch`, plain HTTP for the test origin only. */
export function tokenRequestOptions(endpoints: Endpoints): oauth.TokenEndpointRequestOptions {
  return {
    signal: AbortSignal.timeout(endpoints.timeoutMs),
    ...(endpoints.fetch && { [oauth.customFetch]: endpoints.fetch as typeof fetch }),
    ...(endpoints.testOrigin && { [oauth.allowInsecureRequests]: true }),
  };
}
