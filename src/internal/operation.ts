/**
 * The operation a transport-level `Request` belongs to, so that errors and log events
 * raised deep in the transport can name it (`[POST /subscriptions/{id}/renew/] …`).
 *
 * `withRetry` knows the operation (through the client's `describe` lookup) but sends a
 * clone of the request per attempt; it records the clone here and `withTimeout` reads it.
 * Not exported from the package.
 */

import type { Operation } from "../errors.js";

const operations = new WeakMap<Request, Operation>();

/** Records that `request` (usually a per-attempt clone) carries `operation`. */
export function rememberOperation(request: Request, operation: Operation): void {
  operations.set(request, operation);
}

/**
 * The recorded operation of `request`; else its method and URL pathname. The query string
 * is left out on purpose: it can carry personal data (an email filter) into logs.
 */
export function operationOf(request: Request): Operation {
  const known = operations.get(request);
  if (known) return known;
  let path: string;
  try {
    path = new URL(request.url).pathname;
  } catch {
    path = "/";
  }
  return { method: request.method, path };
}
