/**
 * The setup every test of the testing kit starts from, exactly as the guide shows it: a mock
 * and the SDK's client talking to it through `mock.fetch`.
 */
import { createStoreAdminClient, type StoreAdminClient, type StoreAdminClientOptions } from "../../src/index.js";
import { createMockStore, type MockStore } from "../../src/testing/index.js";

export const TEST_TOKEN = "test-token";

export function mockedClient(options: Partial<Omit<StoreAdminClientOptions, "apiUrl" | "baseUrl" | "fetch">> = {}): {
  mock: MockStore;
  store: StoreAdminClient;
} {
  const mock = createMockStore();
  const store = createStoreAdminClient({ apiUrl: mock.url, accessToken: TEST_TOKEN, fetch: mock.fetch, ...options });
  return { mock, store };
}
