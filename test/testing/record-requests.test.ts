/**
 * `createMockStore({ recordRequests: false })`: a mock that answers and validates as any other
 * and keeps no request; a wrong option is refused, naming it.
 */
import { describe, expect, it } from "vitest";
import { createStoreAdminClient, UnprocessableEntityError } from "../../src/index.js";
import { createMockStore } from "../../src/testing/index.js";

describe("recordRequests", () => {
  it("false: requests are answered and validated, and none is kept", async () => {
    const mock = createMockStore({ recordRequests: false });
    const store = createStoreAdminClient({
      apiUrl: mock.url,
      accessToken: "test-token",
      fetch: mock.fetch,
      maxRetries: 0,
    });
    mock.on("GET /users/{id}/", ({ path }) => ({ status: 200, body: { id: path.id, email: "ada@example.com" } }));
    expect(await store.users.retrieve(42)).toEqual({ id: 42, email: "ada@example.com" });
    await expect(store.giftCards.update(7, { expired_at: 42 as never })).rejects.toBeInstanceOf(
      UnprocessableEntityError,
    );
    expect(mock.requests).toEqual([]);
    expect(mock.requestsTo("GET /users/{id}/")).toEqual([]);
  });

  it("true (the default): every request is kept", async () => {
    for (const mock of [createMockStore(), createMockStore({ recordRequests: true })]) {
      const store = createStoreAdminClient({ apiUrl: mock.url, accessToken: "test-token", fetch: mock.fetch });
      await store.users.retrieve(42);
      expect(mock.requests.map((request) => request.operation)).toEqual(["GET /users/{id}/"]);
    }
  });

  it("refuses a value that is not a boolean, and an unknown option, naming it", () => {
    expect(() => createMockStore({ recordRequests: "no" as never })).toThrow(
      new TypeError('createMockStore(): recordRequests must be true or false, got "no".'),
    );
    expect(() => createMockStore({ recordRequest: false } as never)).toThrow(
      new TypeError('createMockStore(): "recordRequest" is not an option; the option is recordRequests.'),
    );
    expect(() => createMockStore(null as never)).toThrow(
      new TypeError("createMockStore() takes { recordRequests? } or nothing."),
    );
  });
});
