/**
 * One operation as every generator reads it: the shape scripts/contract-model.ts builds and
 * scripts/method-names.ts names, apart from both so that neither imports the other for it.
 */
import type { RequiredScopes } from "../src/core/error-messages.js";
import type { HttpMethod } from "../src/core/http-methods.js";
import type { Json } from "./contract-json.js";

/** One operation, as every generator reads it. */
export interface OperationModel {
  /** `"GET /widgets/{id}/"`. */
  key: string;
  /** `#/paths/~1widgets~1{id}~1/get`. */
  at: string;
  /** Lower case, as in the document. */
  method: HttpMethod;
  path: string;
  /** The `operationId`, or one derived from the method name (`widgets.list` → `widgetsList`). */
  operationId: string;
  /** The operationId as an identifier (its words camelCased when it is not one): what generated names (`<Id>Body`, validators) are made of. */
  ident: string;
  /** `x-sdk-method`, or derived by the rule above. */
  methodName: string;
  /** The summary, else the description's first sentence, else `METHOD /path`; no final period. */
  summary: string;
  /** The description's first paragraph, on one line ("" when none). */
  description: string;
  /** Alternatives of scope sets ({@link RequiredScopes}). */
  security: RequiredScopes;
  /** Whether a bearer token is sent for it (some alternative names a scheme). */
  authenticated: boolean;
  /** Parameters, resolved; an operation's override its path item's of the same name and place. */
  parameters: Json[];
  /** Path parameter names, in the template's order. */
  pathParams: string[];
  /** Their arguments' names (scripts/contract-names.ts). */
  pathArguments: string[];
  hasQuery: boolean;
  /** The request body: the media type a call is sent as, every one offered, and their schemas. */
  body?: { mediaType: string; offered: string[]; required: boolean; schemas: Record<string, unknown>; at: string };
  /** The first 2xx response: its status, and its JSON schema when it has content. */
  success: { status: string; content: boolean; schema?: unknown };
  responses: Record<string, Json>;
  tags: string[];
  /** The operation object itself. */
  operation: Json;
}
