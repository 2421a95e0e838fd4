/**
 * The types of one call that the generated operation methods (generated/methods.ts) and the
 * client's modules both use: what a call resolves to, the promise an operation method returns,
 * and the options it takes. Below src/core/types.ts, which imports generated/methods.ts.
 */
import type { HeadersOptions } from "openapi-fetch";

/** The result of every client call: openapi-fetch's `{ data, error, response }`. */
export type FetchResult = { data?: unknown; error?: unknown; response: Response };

/** The `fetch` signature the client calls: the platform's, or one with the same signature. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** What `.withResponse()` resolves to. */
export interface WithResponse<Data> {
  data: Data;
  /** The response of the attempt that succeeded; its body is already read (into `data`). */
  response: Response;
  /** The server's `x-request-id` (or `request-id`) header, when it sent one. */
  requestId: string | undefined;
}

/** The promise of an operation method's data, with `.withResponse()` and `.asResponse()`. */
export interface ResponsePromise<Data> extends Promise<Data> {
  /** Resolves to `{ data, response, requestId }`; rejects as the promise itself does. */
  withResponse(): Promise<WithResponse<Data>>;
  /**
   * Resolves to the 2xx `Response` with its body unread (a copy was read for the data, within
   * `maxResponseBytes`); rejects with the typed error otherwise, as the promise itself does.
   * Chain it on the call (`store.users.retrieve(42).asResponse()`): once the request has gone
   * out, its body is read for the data and this throws a `TypeError`.
   */
  asResponse(): Promise<Response>;
}

/** What the client adds per call on top of openapi-fetch's options. */
export interface PerCallLimits {
  /** Overrides the client's `timeoutMs` for this call (per attempt, headers and body). */
  timeoutMs?: number | undefined;
  /** Overrides the client's `maxRetries` for this call; 0 sends exactly one request. */
  maxRetries?: number | undefined;
}

/**
 * The last argument of every operation method (`store.users.retrieve(42, { signal })`):
 * exactly `signal`, `headers`, `timeoutMs` and `maxRetries`. Any other key is a compile error
 * and a `TypeError` naming it at run time, with nothing sent.
 */
export interface MethodOptions extends PerCallLimits {
  /** Aborts the call (every attempt and the wait between them). */
  signal?: AbortSignal | undefined;
  /**
   * Headers added to this call's request. `Authorization`, `X-Store-API-Version`,
   * `Content-Length`, `Transfer-Encoding` and `Host` are the client's: setting one is a `TypeError`.
   */
  headers?: HeadersOptions | undefined;
}
