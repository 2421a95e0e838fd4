import { redact } from "./redact.js";

/**
 * The id a server gives a request, to quote to its support: `x-request-id`, else `request-id`
 * (both are common; the contract names neither), scrubbed of `secrets` (the call's token: a
 * server may echo it). Read for `.withResponse()`, the errors and the log events alike, so a
 * success and a failure show the same id.
 */
export function requestIdOf(headers: Headers, secrets: readonly string[] | undefined): string | undefined {
  const id = headers.get("x-request-id") ?? headers.get("request-id");
  return id === null ? undefined : redact(id, secrets);
}
