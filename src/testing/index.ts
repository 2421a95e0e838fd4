/**
 * store-admin-sdk/testing: an in-process mock of the Store Admin API for testing code that
 * uses the SDK. It validates requests and replies against the contract the SDK is generated
 * from, so a test cannot pass against an API shape that does not exist.
 *
 * @example
 * import { createStoreAdminClient } from "store-admin-sdk";
 * import { createMockStore } from "store-admin-sdk/testing";
 *
 * const mock = createMockStore();
 * const store = createStoreAdminClient({ apiUrl: mock.url, accessToken: "test-token", fetch: mock.fetch });
 * mock.on("GET /users/{id}/", ({ path }) => ({ status: 200, body: { id: path.id, email: "ada@example.com" } }));
 */
export { createMockStore } from "./mock-store.js";
export { servePages, type ServedPage } from "./pages.js";
export { MockContractError } from "./contract-error.js";
export { MockHandlerError } from "./handler-error.js";
export type { Problem } from "./problems.js";
export type {
  CheckedReply,
  HandlerContext,
  HandlerResult,
  MockHandler,
  MockReply,
  MockStore,
  MockStoreOptions,
  OperationKey,
  RecordedRequest,
  RecordedRequestOf,
  UnmatchedRequest,
} from "./types.js";
