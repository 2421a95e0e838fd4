/**
 * The `X-Store-API-Version` header. The spec requires it on every request with one allowed
 * value; that value comes from the contract (`generated/operations.ts`), so a new API
 * version is one edit to the YAML. The client sends it as a default header and puts it back
 * on top of any header a caller passes.
 */
import { API_VERSION } from "../generated/operations.js";

/** The header name the API reads its version from. */
export const API_VERSION_HEADER = "X-Store-API-Version";

export { API_VERSION };
