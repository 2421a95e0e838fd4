/**
 * The `X-Store-API-Version` header, as an openapi-fetch middleware. The spec requires it on
 * every request with one allowed value; that value comes from the contract
 * (`generated/operations.ts`), so a new API version is one edit to the YAML.
 */
import type { Middleware } from "openapi-fetch";
import { API_VERSION } from "../generated/operations.js";

/** The header name the API reads its version from. */
export const API_VERSION_HEADER = "X-Store-API-Version";

/** Sets `X-Store-API-Version: 2024-04-01` on every request, over any value a caller set. */
export const apiVersionMiddleware: Middleware = {
  onRequest({ request }) {
    request.headers.set(API_VERSION_HEADER, API_VERSION);
  },
};

export { API_VERSION };
