/**
 * `servePages(items, { pageSize })`: a handler that serves a list the way the API does, in
 * pages of `{ next, previous, results }` whose links carry a `cursor` (an offset here; to the
 * client it is opaque, as the contract says).
 */
import { problemResponse } from "./problems.js";

/** A page of a list operation, as {@link servePages} answers it. */
export interface ServedPage<Item> {
  status: 200;
  body: { next: string | null; previous: string | null; results: Item[] };
}

/**
 * A handler for a list operation that serves `items` in pages of `pageSize`, following the
 * request's `cursor` query parameter.
 *
 * @example
 * mock.on("GET /users/", servePages(users, { pageSize: 2 }));
 */
export function servePages<Item>(
  items: readonly Item[],
  options: { pageSize: number },
): (context: { query: { cursor?: string | undefined }; request: Request }) => ServedPage<Item> | Response {
  const { pageSize } = options;
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new TypeError(`servePages(): pageSize must be a whole number ≥ 1, got ${String(pageSize)}.`);
  }
  const list = [...items];
  return ({ query, request }) => {
    const offset = query.cursor === undefined ? 0 : Number(query.cursor);
    if (!Number.isInteger(offset) || offset < 0 || offset > list.length) {
      return problemResponse(400, `servePages(): the cursor ${JSON.stringify(query.cursor)} is not one this list handed out.`);
    }
    const link = (at: number): string => {
      const url = new URL(request.url);
      url.searchParams.set("cursor", String(at));
      return url.href;
    };
    const end = offset + pageSize;
    return {
      status: 200,
      body: {
        next: end < list.length ? link(end) : null,
        previous: offset > 0 ? link(Math.max(0, offset - pageSize)) : null,
        results: list.slice(offset, end),
      },
    };
  };
}
