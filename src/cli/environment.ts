/// <reference types="node" />
/**
 * The store a command talks to, from the environment: `STORE_ADMIN_URL` (the store's address)
 * or `STORE_ADMIN_API_URL` (an API root: a mock, a proxy), and `STORE_ADMIN_TOKEN`. Shared by
 * the `bulk` and `mcp` commands; every message names the variable to fix.
 */
import { createStoreAdminClient, redact, type StoreAdminClient, type StoreAdminClientOptions } from "#shared";
import { InputError } from "./input.js";

/**
 * A URL as a message may show it: its scheme, host and path, never its user, password, query or
 * fragment. A value without a host (`sk_live:…` parses as a URL) is not shown: it may be a token
 * pasted into the wrong variable.
 */
function shownUrl(value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url?.host)
    return `a value that is not a URL with a host (${value.length} characters, not shown: it may be a secret)`;
  const hidden =
    url.username || url.password || url.search || url.hash ? " (its credentials, query and fragment not shown)" : "";
  return `${url.protocol}//${url.host}${url.pathname}${hidden}`;
}

/** The client options the environment gives, or an {@link InputError} naming every variable to set or fix. */
export function storeOptionsFromEnv(env: NodeJS.ProcessEnv): StoreAdminClientOptions & { variable: string } {
  const baseUrl = env.STORE_ADMIN_URL || undefined;
  const apiUrl = env.STORE_ADMIN_API_URL || undefined;
  const accessToken = env.STORE_ADMIN_TOKEN || undefined;
  // Everything missing is named at once, so that one attempt finds it all.
  const missing: string[] = [];
  if (baseUrl === undefined && apiUrl === undefined)
    missing.push("STORE_ADMIN_URL to the store's address (or STORE_ADMIN_API_URL to an API root)");
  if (accessToken === undefined) missing.push("STORE_ADMIN_TOKEN to the store's access token");
  if (missing.length > 0) throw new InputError(`Set ${missing.join(", and ")}.`);
  if (baseUrl !== undefined && apiUrl !== undefined)
    throw new InputError("Set STORE_ADMIN_URL or STORE_ADMIN_API_URL, not both.");
  const [name, url] = apiUrl !== undefined ? ["STORE_ADMIN_API_URL", apiUrl] : ["STORE_ADMIN_URL", baseUrl!];
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new InputError(
      `${name} must be an absolute http(s) URL such as https://shop.example.com, got ${shownUrl(url)}.`,
    );
  }
  return apiUrl !== undefined
    ? { apiUrl, accessToken: accessToken!, variable: name }
    : { baseUrl: baseUrl!, accessToken: accessToken!, variable: name };
}

/** The client of `options`; the client's own refusal in the words of the variable the operator set. */
export function clientOf(options: StoreAdminClientOptions & { variable: string }): StoreAdminClient {
  const { variable, ...store } = options;
  try {
    return createStoreAdminClient(store as StoreAdminClientOptions);
  } catch (error) {
    throw new InputError(
      `${variable} or STORE_ADMIN_TOKEN: ${redact((error as Error).message, [store.accessToken as string])}`,
    );
  }
}
