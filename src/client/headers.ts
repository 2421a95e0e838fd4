/**
 * The headers of a request: where `Authorization` and the version header come from (one
 * function, {@link sdkHeaders}), and the rules for the headers a caller adds. The version
 * header's name and value are the contract's (`scripts/contract-model.ts` says how it is found).
 */
import { API_VERSION, API_VERSION_HEADER } from "../../generated/operations.js";

/**
 * The two headers the SDK owns, on every attempt of every call. They go through openapi-fetch's
 * `params.header`, which it merges after the client's and the call's `headers`.
 */
export function sdkHeaders(accessToken: string): Record<string, string> {
  const headers: Record<string, string> = { Authorization: `Bearer ${accessToken}` };
  if (API_VERSION_HEADER !== undefined && API_VERSION !== undefined) headers[API_VERSION_HEADER] = API_VERSION;
  return headers;
}

/** Headers a caller may not set, and why. */
const OWNED: Readonly<Record<string, string>> = {
  authorization: "the client sets it from accessToken",
  ...(API_VERSION_HEADER !== undefined && {
    [API_VERSION_HEADER.toLowerCase()]: `the client sends the version it was built for (${API_VERSION})`,
  }),
  "content-length": "fetch computes it (a wrong value stalls the request)",
  "transfer-encoding": "fetch sets it",
  host: "it comes from baseUrl/apiUrl",
};

/** The header names of a `HeadersInit` (object, `Headers`, `Map` or array of pairs); throws for anything else. */
function headerNames(value: unknown, where: string): string[] {
  if (value === null || typeof value !== "object") {
    throw new TypeError(
      `${where} must be an object, a Headers or an array of [name, value] pairs, got ${value === null ? "null" : typeof value}.`,
    );
  }
  if (value instanceof Headers || value instanceof Map) return [...value.keys()];
  if (Array.isArray(value)) {
    return value.map((pair) => {
      if (!Array.isArray(pair) || pair.length !== 2)
        throw new TypeError(`${where}: each array entry must be a [name, value] pair.`);
      return String(pair[0]);
    });
  }
  return Object.keys(value);
}

/** Refuses header names the SDK owns or that break framing; `where` names the option in the message. */
export function checkHeaders(value: unknown, where: string): void {
  for (const name of headerNames(value, where)) {
    const why = OWNED[name.toLowerCase()];
    if (why) throw new TypeError(`${where} may not set ${name}: ${why}.`);
  }
}

/** The client's `headers` option as a plain object for openapi-fetch's defaults, after {@link checkHeaders}. */
export function clientHeaders(value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  checkHeaders(value, "headers");
  try {
    return Object.fromEntries(new Headers(value instanceof Map ? [...value] : (value as HeadersInit)));
  } catch (error) {
    throw new TypeError(`headers: ${(error as Error).message}`);
  }
}
