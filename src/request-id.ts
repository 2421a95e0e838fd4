/**
 * The id a server gives a request, to quote to its support: `x-request-id`, else `request-id`
 * (both are common; the contract names neither). Read for `.withResponse()`, the errors and
 * the log events alike.
 */
export const requestIdOf = (headers: Headers): string | undefined => headers.get("x-request-id") ?? headers.get("request-id") ?? undefined;
