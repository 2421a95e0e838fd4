/**
 * One predictable shape for bodies the contract leaves open between "a list" and "one item"
 * (`GET /orders/{number}/fulfillment-orders/`: the spec describes a list, its example is one
 * object). The generator flags such operations (`singleOrList`); this middleware wraps a
 * single object in an array, so callers always get an array, as the types promise.
 */
import type { Middleware } from "openapi-fetch";
import { operations, type OperationKey } from "../generated/operations.js";
import { invalidJson } from "./errors.js";

export const singleOrListMiddleware: Middleware = {
  async onResponse({ request, response, schemaPath }) {
    if (!response.ok || response.status === 204) return undefined;
    if (operations[`${request.method} ${schemaPath}` as OperationKey]?.singleOrList !== true) return undefined;
    const text = await response.clone().text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (cause) {
      throw invalidJson({ method: request.method, path: schemaPath }, cause, response);
    }
    if (Array.isArray(body)) return undefined;
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    return new Response(JSON.stringify([body]), { status: response.status, statusText: response.statusText, headers });
  },
};
