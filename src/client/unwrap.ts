/**
 * Data or throw: for callers who prefer exceptions to openapi-fetch's `{ data, error }`.
 *
 * @example
 * const user = await unwrap(store.GET("/users/{id}/", { params: { path: { id: 42 } } }));
 */
import { recallCall } from "./call-info.js";
import { errorFromResponse } from "../core/errors.js";
import type { FetchResult } from "../core/call-types.js";

export type { FetchResult };

/** The `data` type of a call's success branch. */
export type DataOf<Result> = Result extends { data: infer Data; error?: never } ? Data : never;

/**
 * Resolves to `data` when the call succeeded; otherwise throws the typed error for its status
 * (`NotFoundError`, `PermissionDeniedError`, … all `ApiError`), naming the operation and the
 * scope it requires.
 */
export async function unwrap<Result extends FetchResult>(result: Result | Promise<Result>): Promise<DataOf<Result>> {
  const { data, error, response } = await result;
  if (response.ok) return data as DataOf<Result>;
  // The call's operation, scopes and secrets, when the client made the response.
  throw errorFromResponse({
    ...recallCall(response),
    status: response.status,
    body: error,
    headers: response.headers,
    url: response.url,
  });
}
