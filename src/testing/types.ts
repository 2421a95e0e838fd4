/**
 * The types of the testing kit, all derived from the contract's generated types: a handler's
 * key is an operation (`"GET /users/{id}/"`), its context carries that operation's path and
 * query parameters and request body, and its reply is one of that operation's declared
 * responses with the body its schema describes.
 */
import type { OperationKey } from "../../generated/operations.js";
import type { $Read, $Write, paths, Readable } from "../../generated/schema.js";

export type { OperationKey };

type OperationOf<K extends OperationKey> = K extends `${infer Method} ${infer Path}`
  ? Path extends keyof paths
    ? Lowercase<Method> extends keyof paths[Path]
      ? paths[Path][Lowercase<Method>]
      : never
    : never
  : never;

type ParametersOf<K extends OperationKey> = OperationOf<K> extends { parameters: infer P } ? P : never;

/** One location's parameters (`path`, `query`): `{}` when the operation has none there. */
type ParameterGroup<P, Location extends string> = P extends { [L in Location]?: infer Group }
  ? [NonNullable<Group>] extends [never]
    ? {}
    : NonNullable<Group>
  : {};

/**
 * A request body as sent: the generator's `Writable` (read-only fields left out), except that
 * a file stays a Blob (`Writable` would map a Blob's methods into a plain object).
 */
type Received<T> = T extends Blob
  ? T
  : T extends $Read<any>
    ? never
    : T extends $Write<infer U>
      ? Received<U>
      : T extends (infer E)[]
        ? Received<E>[]
        : T extends object
          ? { [K in keyof T as NonNullable<T[K]> extends $Read<any> ? never : K]: Received<T[K]> }
          : T;

/** The request body as the handler receives it (parsed JSON, or form fields with files as Blobs). */
type RequestBodyOf<K extends OperationKey> =
  OperationOf<K> extends { requestBody?: infer Body }
    ? NonNullable<Body> extends { content: infer Content }
      ? Received<Content[keyof Content]> | (undefined extends Body ? undefined : never)
      : undefined
    : undefined;

/** HTTP statuses a `5XX` / `4XX` range of the contract stands for (RFC 9110 §15). */
type ServerErrorStatus = 500 | 501 | 502 | 503 | 504 | 505 | 506 | 507 | 508 | 510 | 511;
type ClientErrorStatus =
  | 400
  | 401
  | 402
  | 403
  | 404
  | 405
  | 406
  | 407
  | 408
  | 409
  | 410
  | 411
  | 412
  | 413
  | 414
  | 415
  | 416
  | 417
  | 421
  | 422
  | 423
  | 424
  | 425
  | 426
  | 428
  | 429
  | 431
  | 451;

type StatusOf<Key> = Key extends number
  ? Key
  : Key extends `${infer N extends number}`
    ? N
    : Key extends "5XX"
      ? ServerErrorStatus
      : Key extends "4XX"
        ? ClientErrorStatus
        : never;

/** What a handler may add to any reply. */
interface ReplyOptions {
  /** Response headers, e.g. `{ "retry-after": "1" }`. */
  headers?: Record<string, string> | undefined;
  /** Answer after this many milliseconds (the request's signal still aborts the wait). */
  delayMs?: number | undefined;
}

type ReplyFor<Status, Response> = Response extends { content: { "application/json": infer Body } }
  ? ReplyOptions & { status: Status; body: Readable<Body> }
  : ReplyOptions & { status: Status; body?: undefined };

type ResponsesOf<K extends OperationKey> = OperationOf<K> extends { responses: infer R } ? R : never;

/**
 * A reply of operation `K`: one of its declared statuses with a body of that status's schema,
 * e.g. `{ status: 200, body: user }` or `{ status: 429, body: { detail: "slow down" }, headers: { "retry-after": "1" } }`.
 * For a status the contract does not declare, return a `Response` instead.
 */
export type MockReply<K extends OperationKey> = {
  [Status in keyof ResponsesOf<K>]: ReplyFor<StatusOf<Status>, ResponsesOf<K>[Status]>;
}[keyof ResponsesOf<K>];

/** What a handler of operation `K` receives. Parameters are converted as their schemas say (`path.id` is a number). */
export interface HandlerContext<K extends OperationKey> {
  /** The operation, e.g. `"GET /users/{id}/"`. */
  operation: K;
  path: ParameterGroup<ParametersOf<K>, "path">;
  query: ParameterGroup<ParametersOf<K>, "query">;
  /** The request body: parsed JSON, or form fields with files as Blobs; `undefined` when none was sent. */
  body: RequestBodyOf<K>;
  /** Request headers, names lower-cased. */
  headers: Record<string, string>;
  /** The request itself (its body already read). */
  request: Request;
}

/**
 * Answers one operation. Return a reply (checked against the contract: a body that breaks
 * it fails the call), or a `Response` for anything else (`Response.error()` fails the
 * request as a network error would); wait (or set `delayMs`) to answer late. A handler that
 * throws is a bug in the test: the call fails with a `MockHandlerError` whose `cause` is
 * what the handler threw, and the client does not retry it.
 *
 * This is the type of a handler held in a variable; `mock.on()` checks a handler written
 * in place more strictly (see {@link CheckedReply}).
 */
export type MockHandler<K extends OperationKey> = (
  context: HandlerContext<K>,
) => MockReply<K> | Response | Promise<MockReply<K> | Response>;

/** The statuses operation `K` declares, as numbers (`"5XX"` stands for 500–511). */
type DeclaredStatus<K extends OperationKey> = MockReply<K>["status"];

/** What `mock.on()` infers a handler's result as: a reply with a declared status, a Response, or a promise of a reply or Response. */
export type HandlerResult<K extends OperationKey> = { status: DeclaredStatus<K> } | Response | Promise<unknown>;

type KeysOf<T> = T extends unknown ? keyof T : never;
type ValueAt<T, P> = T extends unknown ? (P extends keyof T ? T[P] : never) : never;

/**
 * `R` with each property that no member of `T` has, at any depth, typed as a sentence
 * (`"emial is not in the contract"`): TypeScript's excess-property check, which a
 * function's returned object literal does not get, rebuilt as a type. Known properties are
 * left `unknown` here; the reply type checks their values.
 */
type NoExtraFields<R, T> = R extends Response | Blob | Date
  ? unknown
  : R extends readonly (infer E)[]
    ? readonly NoExtraFields<E, T extends readonly (infer F)[] ? F : never>[]
    : R extends object
      ? {
          [P in keyof R]: P extends KeysOf<T>
            ? NoExtraFields<R[P], NonNullable<ValueAt<T, P>>>
            : `${P & string} is not in the contract`;
        }
      : unknown;

/** What a field of a reply must be, where the handler's value is not: the compile error names it. */
interface Expected<T> {
  "the contract's type": T;
}

type RequiredKeysOf<T> = T extends unknown ? { [P in keyof T]-?: {} extends Pick<T, P> ? never : P }[keyof T] : never;

/**
 * `R` checked against a reply type `T` that it does not match: each value of the wrong type
 * becomes {@link Expected} of the contract's type (intersected with the value's own type it
 * would otherwise be `never`, a message that names nothing), each field the contract lacks a
 * sentence, and each required field missing is asked for.
 */
type Mismatch<R, T> = R extends Response | Blob | Date
  ? unknown
  : R extends readonly (infer E)[]
    ? readonly Mismatch<E, T extends readonly (infer F)[] ? F : never>[]
    : R extends object
      ? {
          [P in keyof R]: P extends KeysOf<T>
            ? R[P] extends ValueAt<T, P>
              ? unknown
              : R[P] extends object
                ? Mismatch<R[P], NonNullable<ValueAt<T, P>>>
                : Expected<ValueAt<T, P>>
            : `${P & string} is not in the contract`;
        } & { [P in Exclude<RequiredKeysOf<T>, keyof R>]: ValueAt<T, P> }
      : R extends T
        ? unknown
        : Expected<T>;

/** The reply types of operation `K` that a status `S` matches (`503` matches the `5XX` reply). */
type ReplyOfStatus<K extends OperationKey, S> =
  MockReply<K> extends infer U ? (U extends { status: infer X } ? (S extends X ? U : never) : never) : never;

/**
 * The type a handler's result `R` must have for operation `K`: a Response as it is; a
 * reply, the reply of its status with no field the contract lacks. So a misspelt field
 * (`emial`) is a compile error at that field, and a wrong value's error is at its field,
 * not on the union of every reply. A promise (an `async` handler) is checked at run time
 * only: TypeScript widens its `status` to `number` before the reply could be picked, so a
 * handler that must be checked at compile time returns its reply directly (and awaits
 * nothing) or declares its return type, `async (): Promise<MockReply<K>> => …`.
 */
export type CheckedReply<K extends OperationKey, R> =
  R extends Promise<infer U>
    ? unknown extends U
      ? R
      : Promise<(ReplyOptions & { status: number; body?: unknown }) | Response>
    : R extends Response
      ? R
      : R extends { status: infer S }
        ? R extends ReplyOfStatus<K, S>
          ? ReplyOfStatus<K, S> & NoExtraFields<R, ReplyOfStatus<K, S>>
          : Mismatch<R, ReplyOfStatus<K, S>>
        : MockReply<K>;

/** One request the mock received, as `mock.requests` lists it; narrow on `operation` for its typed `body` and `params`. */
export type RecordedRequest = { [K in OperationKey]: RecordedRequestOf<K> }[OperationKey] | UnmatchedRequest;

interface RequestRecord {
  /** `GET`, `POST`, … */
  method: string;
  /** The path template of the operation (`/users/{id}/`), or the path as sent when no operation matched. */
  path: string;
  /** The full URL as sent. */
  url: string;
  /** Request headers, names lower-cased. */
  headers: Record<string, string>;
  /** The status answered; `undefined` while pending or when the request failed as a network error. */
  status: number | undefined;
}

/** A request to operation `K`. */
export interface RecordedRequestOf<K extends OperationKey> extends RequestRecord {
  /** The operation (`"GET /users/{id}/"`). */
  operation: K;
  /** Path and query parameters, converted as their schemas say. */
  params: { path: ParameterGroup<ParametersOf<K>, "path">; query: ParameterGroup<ParametersOf<K>, "query"> };
  /**
   * The parsed body (JSON, or form fields with files as Blobs), typed as the operation takes
   * it; `undefined` when none was read. For a request the mock refused (a 422 or 415 answer),
   * what was sent, whatever its shape.
   */
  body: RequestBodyOf<K>;
}

/** A request that matched no operation of the contract (answered 422). */
export interface UnmatchedRequest extends RequestRecord {
  operation: undefined;
  params: { path: Record<string, unknown>; query: Record<string, unknown> };
  body: undefined;
}

/** The options of `createMockStore()`. */
export interface MockStoreOptions {
  /**
   * Whether the mock keeps each request in `requests` and `requestsTo()`. `false` keeps none (a
   * mock that only checks calls, or serves for long): its memory does not grow with the requests.
   * @default true
   */
  recordRequests?: boolean | undefined;
}

/** The mock of the Store Admin API that {@link createMockStore} returns. */
export interface MockStore {
  /** The API root to give the client as `apiUrl`; unique to this mock. */
  readonly url: string;
  /** A `fetch` (the global signature) that answers requests to {@link url} in process, without a port. */
  readonly fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /**
   * Answers `operation` with `handler` from now on (replacing an earlier handler of it). A
   * reply the handler returns is checked at compile time: a declared status, a body of that
   * status's schema, and no field the contract lacks (see {@link CheckedReply}).
   */
  on<K extends OperationKey, R extends HandlerResult<K>>(
    operation: K,
    handler: (context: HandlerContext<K>) => R & NoInfer<CheckedReply<K, R>>,
  ): MockStore;
  /** Every request received, oldest first (none when the mock was made with `recordRequests: false`). */
  readonly requests: readonly RecordedRequest[];
  /** The requests to one operation, oldest first, with their `body` and `params` typed as that operation takes them. */
  requestsTo<K extends OperationKey>(operation: K): ReadonlyArray<RecordedRequestOf<K>>;
  /** Removes every handler and forgets every recorded request. */
  reset(): void;
}
