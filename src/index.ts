/**
 * store-admin-sdk: a typed client for the Store Administration API.
 *
 * @example
 * import { createStoreAdminClient } from "store-admin-sdk";
 * const store = createStoreAdminClient({ baseUrl: "https://shop.example.com", accessToken: process.env.STORE_TOKEN! });
 */
export { createStoreAdminClient } from "./client/client.js";
export { unwrap, type DataOf, type FetchResult } from "./client/unwrap.js";
export {
  StoreAdminError,
  ApiError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
  ConnectionError,
  TimeoutError,
  InvalidResponseError,
  RedirectError,
  PaginationError,
  ResponseTooLargeError,
  ContractDriftError,
  type ContractDrift,
  type Operation,
  type ValidationIssue,
} from "./core/errors.js";
export { formatLogEvent, type Logger, type RequestLogEvent } from "./core/logger.js";
export type {
  AttemptOutcome,
  AttemptVerdict,
  PluginAttempt,
  PluginAttributeValue,
  PluginCall,
  PluginClient,
  RetryDecision,
  StoreAdminPlugin,
} from "./core/plugin.js";
export { API_VERSION } from "../generated/operations.js";
export { VERSION } from "./core/version.js";
export type {
  AccessToken,
  ListItem,
  ListPage,
  ListPath,
  MethodOptions,
  Middleware,
  Paginate,
  RequestOptions,
  ResponsePromise,
  StoreAdminClient,
  StoreAdminClientOptions,
  TelemetryOptions,
  ValidateResponses,
  WithResponse,
  paths,
} from "./core/types.js";
export type { operations } from "../generated/schema.js";
// The operation methods' types: `OperationMethods` (the resources of the client), `UsersMethods`, …,
// and the query types of the list methods (`ListUsersQuery`, …).
export type * from "../generated/methods.js";
// Every schema of the contract by its own name (`User`, `Order`, `UserUpdate`, …) and `Schemas`.
export type * from "../generated/names.js";
