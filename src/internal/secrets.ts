/**
 * Which strings must never appear in an error or a log line: the caller's credentials.
 *
 * The transport reads them from the request's `Authorization` header (it is the only
 * layer that sees that header) and ties them to the `Response` it returns, so that
 * `errorFromResponse()` can scrub a server that echoes the token back in an error body.
 * Not exported from the package.
 */

const secretsByCarrier = new WeakMap<object, readonly string[]>();

/**
 * The credentials on `request`: the part of `Authorization` after its scheme (`Bearer`),
 * so that a scrubbed text still reads `Bearer [REDACTED]`; the whole value if it has no scheme.
 */
export function secretsOfRequest(request: Request): string[] {
  const authorization = request.headers.get("authorization")?.trim();
  if (!authorization) return [];
  const credentials = authorization.replace(/^\S+\s+/, "");
  return [credentials || authorization];
}

/**
 * Ties `secrets` to `response` and to its `headers` object (callers of `errorFromResponse`
 * often hold only the headers; a `Response` returns the same `Headers` object every time).
 */
export function attachSecrets(response: Response, secrets: readonly string[]): void {
  if (secrets.length === 0) return;
  secretsByCarrier.set(response, secrets);
  secretsByCarrier.set(response.headers, secrets);
}

/** The secrets tied to a `Response` or its `Headers` by {@link attachSecrets}. */
export function secretsAttachedTo(carrier: object | undefined): readonly string[] {
  return carrier ? (secretsByCarrier.get(carrier) ?? []) : [];
}
