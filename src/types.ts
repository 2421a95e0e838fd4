/**
 * Public option types, aliases over `generated/`, and every type-level helper of the SDK.
 * Nothing here restates a path, field or schema: it is all derived from
 * `generated/schema.ts`.
 */
import type { Client, FetchResponse, MaybeOptionalInit, Middleware } from "openapi-fetch";
import type { components, paths as ContractPaths, Readable } from "../generated/schema.js";
import type { Logger } from "./logger.js";
import type { FetchLike } from "./transport.js";

// ─── Paths as callers see them ──────────────────────────────────────────────────────

type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";

/**
 * The contract declares `X-Store-API-Version` as a required header on every operation, and
 * openapi-fetch's types would then demand `params.header` on every call. The client sets
 * that header (and the token) itself, so callers' types must not ask for them.
 */
type WithoutHeaderParams<Params> = Omit<Params, "header"> & { header?: never };

/**
 * The contract leaves open whether some list bodies (`GET /orders/{number}/fulfillment-orders/`)
 * are an array or one object (`oneOf`). The client always hands callers an array, so the
 * types say so: `X[] | X` becomes `X[]`.
 */
type ListNotSingle<Body> = [Extract<Body, readonly unknown[]>] extends [never]
  ? Body
  : [Exclude<Body, readonly unknown[]>] extends [never]
    ? Body
    : Extract<Body, readonly unknown[]>;

type NormalizeResponses<Responses> = {
  [Status in keyof Responses]: Responses[Status] extends { content: { "application/json": infer Body } }
    ? Omit<Responses[Status], "content"> & { content: { "application/json": ListNotSingle<Body> } }
    : Responses[Status];
};

type CallerOperation<Operation> = Operation extends { parameters: infer Params; responses: infer Responses }
  ? Omit<Operation, "parameters" | "responses"> & {
      parameters: WithoutHeaderParams<Params>;
      responses: NormalizeResponses<Responses>;
    }
  : Operation;

/** Every path of the API, as the client's methods accept them (see {@link CallerOperation}). */
export type paths = {
  [Path in keyof ContractPaths]: {
    [Key in keyof ContractPaths[Path]]: Key extends HttpMethod
      ? CallerOperation<ContractPaths[Path][Key]>
      : ContractPaths[Path][Key];
  };
};

/**
 * The component schemas of the contract as responses carry them, e.g. `Schemas["User"]`
 * (read-only fields included, without the generator's read/write markers).
 */
export type Schemas = { [Name in keyof components["schemas"]]: Readable<components["schemas"][Name]> };

// ─── Pagination ─────────────────────────────────────────────────────────────────────

type GetPath = { [P in keyof paths]: paths[P] extends { get: object } ? P : never }[keyof paths];

type SuccessBody<P extends GetPath> = NonNullable<FetchResponse<paths[P]["get"], {}, "application/json">["data"]>;

/** The paths of the cursor-paginated list operations (`GET` answering `{ next, previous, results }`). */
export type ListPath = {
  [P in GetPath]: SuccessBody<P> extends { results?: readonly unknown[] } ? P : never;
}[GetPath];

/** The item type a list operation yields, e.g. `ListItem<"/users/">` is a User. */
export type ListItem<P extends ListPath> = NonNullable<SuccessBody<P>["results"]>[number];

/** One page of a list operation. */
export type ListPage<P extends ListPath> = SuccessBody<P>;

/** The request options of a list operation: those of its `GET`. */
export type ListInit<P extends ListPath> = MaybeOptionalInit<paths[P], "get">;

type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];

/** The init argument is optional exactly when the operation needs no parameter. */
export type ListInitArg<P extends ListPath> = RequiredKeys<NonNullable<ListInit<P>>> extends never
  ? [init?: ListInit<P>]
  : [init: ListInit<P>];

/** `paginate()`: iterate over every item of a list operation, following `next` cursors. */
export interface Paginate {
  <P extends ListPath>(path: P, ...init: ListInitArg<P>): AsyncGenerator<ListItem<P>, void, undefined>;
  /** The same walk, one page (`{ next, previous, results }`) at a time. */
  pages<P extends ListPath>(path: P, ...init: ListInitArg<P>): AsyncGenerator<ListPage<P>, void, undefined>;
}

// ─── Client ─────────────────────────────────────────────────────────────────────────

/** An access token, or a function returning one (sync or async), called before every request. */
export type AccessToken = string | (() => string | Promise<string>);

interface CommonOptions {
  /**
   * The bearer token, or a function that returns it (sync or async). A function is
   * called before every request, so it can refresh an expiring token.
   */
  accessToken: AccessToken;
  /**
   * The `fetch` to send requests with: any function with the signature of the global `fetch`.
   * It is called as `fetch(url, init)`, or `fetch(request)` while middleware is registered;
   * either way it must honour the signal it is given (it carries the timeout and the caller's abort).
   * @default globalThis.fetch
   */
  fetch?: FetchLike;
  /**
   * Per-attempt time limit in milliseconds, covering the response headers and the whole body.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * How many times a failed attempt may be retried when retrying cannot duplicate work
   * (see docs/reliability.md); 0 disables retries.
   * @default 2
   */
  maxRetries?: number;
  /** Extra headers for every request. The `Authorization` and `X-Store-API-Version` headers are always the client's. */
  headers?: Record<string, string>;
  /**
   * Largest response body the client reads, in decoded bytes (after gzip and the like),
   * for success and error bodies alike; a larger one fails with `ResponseTooLargeError`.
   * @default 33554432 (32 MiB)
   */
  maxResponseBytes?: number;
  /** Called once per attempt with method, path template, status, attempt and duration; never the token. */
  logger?: Logger;
}

/** Options of {@link createStoreAdminClient}: exactly one of `baseUrl` and `apiUrl`. */
export type StoreAdminClientOptions = CommonOptions &
  (
    | {
        /** The store's address, e.g. `https://shop.example.com`; requests go to `{baseUrl}/api/admin/...`. */
        baseUrl: string;
        apiUrl?: never;
      }
    | {
        /** The API root itself, used as is (a mock server, a proxy). */
        apiUrl: string;
        baseUrl?: never;
      }
  );

type PathsWithMethod<Method extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends { [M in Method]: {} } ? P : never;
}[keyof paths];

type InitArg<Init> = RequiredKeys<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** `Actual` with every key `Expected` lacks turned into `never`. */
type Exactly<Actual, Expected> = Actual extends object
  ? Actual & { [K in Exclude<keyof Actual, keyof Expected>]: never }
  : Actual;

type BodyOf<Init> = NonNullable<Init> extends { body?: infer Body } ? NonNullable<Body> : never;

/**
 * openapi-fetch infers `init` as a type parameter, and TypeScript does not check excess
 * properties against a constraint, so `body: { frist_name: "A" }` or a read-only `id` would
 * compile. This makes every key the operation's body does not declare a `never`.
 */
type ExactBody<Init, Expected> = Init extends { body: infer Body } ? Init & { body: Exactly<Body, BodyOf<Expected>> } : Init;

/** The client's origin and transport are fixed at creation: no per-call `baseUrl` or `fetch`. */
type PerCallOptions = { baseUrl?: never; fetch?: never };

/** openapi-fetch's method signature, with {@link ExactBody} bodies and no per-call origin or transport. */
type ClientMethod<Method extends HttpMethod> = <
  Path extends PathsWithMethod<Method>,
  Init extends MaybeOptionalInit<paths[Path], Method>,
>(
  url: Path,
  ...init: InitArg<ExactBody<Init, MaybeOptionalInit<paths[Path], Method>> & PerCallOptions>
) => Promise<FetchResponse<paths[Path][Method] & Record<string | number, any>, Init, `${string}/${string}`>>;

/**
 * The client: openapi-fetch's client over the Store Admin API (`GET`, `PUT`, `POST`,
 * `PATCH`, `use`, …), plus `paginate`.
 */
export type StoreAdminClient = Omit<Client<paths>, Uppercase<HttpMethod>> & {
  [Method in HttpMethod as Uppercase<Method>]: ClientMethod<Method>;
} & {
  paginate: Paginate;
};

export type { Middleware };
