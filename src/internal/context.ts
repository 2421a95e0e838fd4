/**
 * Which operation a `Request` or `Response` belongs to. openapi-fetch tells middleware the
 * path template (`schemaPath`); the transport (retries, timeouts) and `unwrap()` see only
 * the `Request`/`Response` objects, so a middleware records the operation against them.
 * Weak maps: nothing is kept once the objects are gone. Not exported from the package.
 */
import type { Middleware } from "openapi-fetch";
import { operations, type OperationKey } from "../../generated/operations.js";

/** An operation: method, path template and the scope its token needs. */
export interface DescribedOperation {
  method: string;
  path: string;
  scope: string | undefined;
}

const byRequest = new WeakMap<Request, DescribedOperation>();
const byResponse = new WeakMap<Response, DescribedOperation>();

/** The operation of a request as openapi-fetch built it, if the client sent it. */
export function describeRequest(request: Request): DescribedOperation | undefined {
  return byRequest.get(request);
}

/** The operation whose call returned `response`, if the client made it. */
export function operationOfResponse(response: Response): DescribedOperation | undefined {
  return byResponse.get(response);
}

function describe(method: string, schemaPath: string): DescribedOperation {
  return { method, path: schemaPath, scope: operations[`${method} ${schemaPath}` as OperationKey]?.scope };
}

/**
 * Records each request's and response's operation. Registered after the client's other
 * request middleware, so it sees the `Request` that is really sent.
 */
export const contextMiddleware: Middleware = {
  onRequest({ request, schemaPath }) {
    byRequest.set(request, describe(request.method, schemaPath));
  },
  onResponse({ request, response, schemaPath }) {
    byResponse.set(response, byRequest.get(request) ?? describe(request.method, schemaPath));
  },
};
