/**
 * Public option types, aliases over `generated/`, and every type-level helper of the SDK.
 * Nothing here restates a path, field or schema: it is all derived from
 * `generated/schema.ts`.
 */
import type {
  Client,
  FetchResponse,
  Middleware,
  ParseAs,
  RequestOptions as OpenapiFetchRequestOptions,
} from "openapi-fetch";
import type { FilterKeys, RequiredKeysOf } from "openapi-typescript-helpers";
import type { OperationMethods } from "../../generated/methods.js";
import type { PaginatedPath } from "../../generated/operations.js";
import type { paths as ContractPaths } from "../../generated/schema.js";
import type { Logger } from "./logger.js";
import type { StoreAdminPlugin } from "./plugin.js";
import type { FetchLike, PerCallLimits } from "./call-types.js";
import type { HttpMethod } from "./http-methods.js";
export type { MethodOptions, ResponsePromise, WithResponse } from "./call-types.js";

// ─── Paths as callers see them ──────────────────────────────────────────────────────

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

/** The success statuses openapi-fetch reads `data` from. */
type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206 | 207 | "2XX";

/** Only success bodies are normalised: an error body is the contract's error body, as sent. */
type NormalizeResponses<Responses> = {
  [Status in keyof Responses]: Status extends SuccessStatus
    ? Responses[Status] extends { content: { "application/json": infer Body } }
      ? Omit<Responses[Status], "content"> & { content: { "application/json": ListNotSingle<Body> } }
      : Responses[Status]
    : Responses[Status];
};

/**
 * An operation as callers see it: no header parameters, lists as lists. A homomorphic
 * mapping (it keeps `requestBody?` optional where the contract's is), cheaper to check than
 * an `Omit` and an intersection per operation.
 */
type CallerOperation<Operation> = {
  [Key in keyof Operation]: Key extends "parameters"
    ? WithoutHeaderParams<Operation[Key]>
    : Key extends "responses"
      ? NormalizeResponses<Operation[Key]>
      : Operation[Key];
};

/**
 * Every path of the API, as the client's methods accept them (see {@link CallerOperation}).
 * An interface over the mapped type, so that its members are computed once: a call's
 * `paths[Path]`, with `Path` still generic, is then a plain lookup instead of the mapping
 * instantiated anew for it (which doubled what type-checking a first call instantiated).
 */
export interface paths extends CallerPaths {}

type CallerPaths = {
  [Path in keyof ContractPaths]: {
    [Key in keyof ContractPaths[Path]]: Key extends HttpMethod
      ? CallerOperation<ContractPaths[Path][Key]>
      : ContractPaths[Path][Key];
  };
};

// ─── Pagination ─────────────────────────────────────────────────────────────────────

/**
 * A list operation's success body: the `data` of its `GET`, the very type a
 * `store.GET(path, …)` call resolves to (see {@link ClientMethod}), so it is computed once.
 */
type SuccessBody<P extends ListPath> = NonNullable<CallResult<P, "get", OpenapiFetchInit<P, "get">, undefined>["data"]>;

/**
 * The paths of the cursor-paginated list operations (`GET` taking `cursor` and answering
 * `{ next, previous, results }`): the generator's, the same fact `paginate()` checks at run time.
 */
export type ListPath = PaginatedPath;

/** The item type a list operation yields, e.g. `ListItem<"/users/">` is a User. */
export type ListItem<P extends ListPath> =
  SuccessBody<P> extends { results?: readonly (infer Item)[] | null | undefined } ? Item : never;

/** One page of a list operation. */
export type ListPage<P extends ListPath> = SuccessBody<P>;

/** The request options of a list operation: those of its `GET` (see {@link RequestOptions}). */
type ListInit<P extends ListPath> = RequestOptions<P, "get">;

/** The init argument is optional exactly when the operation needs no parameter (the test of {@link InitArg}). */
export type ListInitArg<P extends ListPath> =
  RequiredKeysOf<OpenapiFetchInit<P, "get">> extends never ? [init?: ListInit<P>] : [init: ListInit<P>];

/** `paginate()`: iterate over every item of a list operation, following `next` cursors. */
export interface Paginate {
  <P extends ListPath>(path: P, ...init: ListInitArg<P>): AsyncGenerator<ListItem<P>, void, undefined>;
  /**
   * The same walk, one page (`{ next, previous, results }`) at a time. Each page's `nextCursor`
   * is where the walk goes on after it (`null` on the last page): save it, and a later walk
   * given it as `params.query.cursor` starts at the page that follows.
   */
  pages<P extends ListPath>(
    path: P,
    ...init: ListInitArg<P>
  ): AsyncGenerator<ListPage<P> & { nextCursor: string | null }, void, undefined>;
}

// ─── Client ─────────────────────────────────────────────────────────────────────────

/** An access token, or a function returning one (sync or async), called before every request. */
export type AccessToken = string | (() => string | Promise<string>);

/** The options of the `telemetry()` plugin: which providers to use (either left out: the global one), and fixed attributes. */
export interface TelemetryOptions {
  /** A `TracerProvider` of `@opentelemetry/api`. @default the global one (`trace.getTracerProvider()`) */
  tracerProvider?: { getTracer(name: string, version?: string): unknown } | undefined;
  /** A `MeterProvider` of `@opentelemetry/api`. @default the global one (`metrics.getMeterProvider()`) */
  meterProvider?: { getMeter(name: string, version?: string): unknown } | undefined;
  /** Attributes on every span, event and metric point the client makes (a store or tenant tag), the drift counter's included. */
  attributes?: Readonly<Record<string, string | number | boolean>> | undefined;
}

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
  fetch?: FetchLike | undefined;
  /**
   * Per-attempt time limit in milliseconds, covering the response headers and the whole body.
   * @default 30000
   */
  timeoutMs?: number | undefined;
  /**
   * How many times a failed attempt may be retried when retrying cannot duplicate work
   * (see docs/reliability.md); 0 disables retries.
   * @default 2
   */
  maxRetries?: number | undefined;
  /**
   * Extra headers for every request: an object, a `Headers`, a `Map` or an array of
   * `[name, value]` pairs. `Authorization`, `X-Store-API-Version`, `Content-Length`,
   * `Transfer-Encoding` and `Host` are the client's or fetch's: setting one is a `TypeError`.
   */
  headers?:
    | Record<string, string>
    | Headers
    | ReadonlyMap<string, string>
    | ReadonlyArray<readonly [string, string]>
    | undefined;
  /**
   * Largest response body the client reads, in decoded bytes (after gzip and the like),
   * for success and error bodies alike; a larger one fails with `ResponseTooLargeError`.
   * @default 33554432 (32 MiB)
   */
  maxResponseBytes?: number | undefined;
  /** Called once per attempt with method, path template, status, attempt and duration; never the token. */
  logger?: Logger | undefined;
  /**
   * Plugins on the client's hook chain (docs/guide.md, "Plugins"; `store-admin-sdk/plugins` has
   * the SDK's own), run in the order given. None is ever handed the token.
   * @default []
   */
  plugins?: readonly StoreAdminPlugin[] | undefined;
  /** Moved: `telemetry()` of `store-admin-sdk/plugins`, in `plugins`. Passing it is a `TypeError` naming the plugin. */
  telemetry?: never;
  /** Moved: `validateResponses()` of `store-admin-sdk/plugins`, in `plugins`. Passing it is a `TypeError` naming the plugin. */
  validateResponses?: never;
}

/** The modes of the `validateResponses()` plugin (store-admin-sdk/plugins). */
export type ValidateResponses = "report" | "strict";

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

/** The keys a call may pass to openapi-fetch; see {@link RequestOptions}. */
type OpenapiFetchKeys =
  | "params"
  | "body"
  | "signal"
  | "headers"
  | "parseAs"
  | "bodySerializer"
  | "querySerializer"
  | "middleware";

/** Every key {@link RequestOptions} allows; the client's run-time check is typed by it. */
export type CallOptionKey = OpenapiFetchKeys | keyof PerCallLimits;

/**
 * openapi-fetch's options for one call, cut down to the keys the client allows (a homomorphic
 * `Pick`, so a required `params` or `body` stays required). The other keys also take
 * `undefined`, as if left out, so that a caller's `signal: maybeSignal` compiles under
 * `exactOptionalPropertyTypes`.
 */
type AllowedKeys<Init, Keys extends keyof Init> = {
  [Key in Keys]: Init[Key] | (Key extends "params" | "body" ? never : undefined);
};

/**
 * The options of one call, e.g. `RequestOptions<"/users/{id}/", "get">`: exactly `params`,
 * `body`, `signal`, `headers`, `parseAs`, `bodySerializer`, `querySerializer`, `middleware`,
 * `timeoutMs` and `maxRetries`. Any other key (`pathSerializer`, `redirect`, `baseUrl`, `fetch`,
 * a misspelling) is a compile error here, and a `TypeError` naming the key at run time, with
 * nothing sent: the client's origin, transport and redirect handling are fixed at creation.
 *
 * Per-call `headers` are added to the request, but cannot set `Authorization`,
 * `X-Store-API-Version`, `Content-Length`, `Transfer-Encoding` or `Host`: the client owns
 * those, and a call that tries is refused with a `TypeError`.
 */
export type RequestOptions<Path extends keyof paths, Method extends HttpMethod & keyof paths[Path]> = CallOptions<
  OpenapiFetchInit<Path, Method>
>;

/**
 * openapi-fetch's options for one call, of the keys a call may pass: its `RequestOptions`
 * (`params`, `body`, the serializers, …) and fetch's `signal`. That is its `FetchOptions`
 * (what `MaybeOptionalInit` resolves to) without the other `RequestInit` keys, which
 * {@link CallOptions} leaves out anyway and whose `RequiredKeysOf` every call would pay for.
 * One type for the methods' `Init`, {@link RequestOptions} and `paginate`'s init, so
 * TypeScript computes it once per operation.
 */
type OpenapiFetchInit<Path extends keyof paths, Method extends keyof paths[Path]> = OpenapiFetchRequestOptions<
  FilterKeys<paths[Path], Method>
> &
  Pick<RequestInit, "signal">;

type CallOptions<Init> = AllowedKeys<Init, OpenapiFetchKeys & keyof Init> & PerCallLimits;

/**
 * The init argument: optional exactly when the operation needs no parameter or body. The
 * options are wrapped in `NoInfer`, so `Init` stays openapi-fetch's type for the path (its
 * default) instead of being inferred from the literal a caller wrote: the literal is then
 * checked against {@link CallOptions}, and TypeScript's excess-property check names any
 * unknown key (`'frist_name' does not exist in type …`). Only `As` is inferred, from
 * `parseAs`, so `data` still follows it. Built on openapi-fetch's own `Init`, with the shape
 * of its `InitParam` (the same `RequiredKeysOf` test, from openapi-fetch's own helper
 * package), the method stays assignable to openapi-fetch's `Client<paths>`
 * (openapi-react-query, swr-openapi): test/types/client.ts checks both.
 */
type InitArg<Init, As> =
  RequiredKeysOf<Init> extends never
    ? [init?: NoInfer<CallOptions<Init>> & { parseAs?: As }]
    : [init: NoInfer<CallOptions<Init>> & { parseAs?: As }];

/**
 * The `parseAs` a call's `data` follows: the one the caller wrote, or JSON when it is not
 * known (none given, or options typed as {@link RequestOptions} whose `parseAs` may be any).
 */
type ParsedAs<As> = ParseAs extends As ? undefined : As;

/** openapi-fetch's method signature, with exact per-call options (see {@link RequestOptions}). */
type ClientMethod<Method extends HttpMethod> = <
  Path extends PathsWithMethod<Method>,
  // openapi-fetch's own options for the path, never the caller's literal (see InitArg).
  // Unconstrained, unlike openapi-fetch's `Init extends MaybeOptionalInit<…>`: a call only ever
  // takes this default, and that constraint, checked for a still generic `Path`, cost more
  // type instantiations than all the rest of a call.
  Init = OpenapiFetchInit<Path, Method>,
  As extends ParseAs | undefined = undefined,
>(
  url: Path,
  ...init: InitArg<Init, As>
) => Promise<CallResult<Path, Method, Init, As>>;

/** What a call resolves to: openapi-fetch's `{ data, error, response }`, `data` following `parseAs`. */
type CallResult<Path extends keyof paths, Method extends keyof paths[Path], Init, As> = FetchResponse<
  paths[Path][Method] & Record<string | number, any>,
  Init & { parseAs: ParsedAs<As> },
  `${string}/${string}`
>;

/**
 * The client: the operation methods by resource (`store.users.retrieve(42)`, generated from
 * the contract), and openapi-fetch's client over the Store Admin API (`GET`, `PUT`, `POST`,
 * `PATCH`, `use`, …), plus `paginate`.
 */
export type StoreAdminClient = OperationMethods &
  Omit<Client<paths>, Uppercase<HttpMethod>> & {
    [Method in HttpMethod as Uppercase<Method>]: ClientMethod<Method>;
  } & {
    paginate: Paginate;
  };

export type { Middleware };
