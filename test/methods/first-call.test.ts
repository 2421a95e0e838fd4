/**
 * The first call of an operation method, made before the per-operation tables have loaded
 * (they load on the first call: src/client/tables.ts): its promise is the same
 * `ResponsePromise` as any later call's, with `.withResponse()` and `.asResponse()`, one
 * request sent, and a bad argument rejected (not thrown) with nothing sent. Each case imports
 * the client afresh (`vi.resetModules()`), so that its call is the first one.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";

/** A client from freshly imported modules, whose fetch answers one user and counts requests. */
async function freshClient() {
  vi.resetModules();
  const { createStoreAdminClient } = await import("../../src/index.js");
  const { loadedTables } = await import("../../src/client/tables.js");
  const sent: string[] = [];
  const store = createStoreAdminClient({
    apiUrl: "https://shop.example.com/api/admin",
    accessToken: "token",
    fetch: async (input: Request | string | URL) => {
      sent.push(new URL(input instanceof Request ? input.url : input).pathname);
      return Response.json({ id: 42, email: "ada@example.com" }, { headers: { "x-request-id": "req_first" } });
    },
  });
  return { store, sent, loadedTables };
}

describe("an operation method's first call, before the tables load", () => {
  beforeEach(() => vi.resetModules());

  it("has .withResponse(): the data, the response and the request id, one request", async () => {
    const { store, sent, loadedTables } = await freshClient();
    expect(loadedTables()).toBeUndefined();
    const { data, response, requestId } = await store.users.retrieve(42).withResponse();
    expect(data).toEqual({ id: 42, email: "ada@example.com" });
    expect(response.status).toBe(200);
    expect(requestId).toBe("req_first");
    expect(sent).toEqual(["/api/admin/users/42/"]);
    expect(loadedTables()).toBeDefined();
  });

  it("has .asResponse(): the Response with its body unread", async () => {
    const { store, sent, loadedTables } = await freshClient();
    expect(loadedTables()).toBeUndefined();
    const response = await store.users.retrieve(42).asResponse();
    expect(response.bodyUsed).toBe(false);
    expect(await response.json()).toEqual({ id: 42, email: "ada@example.com" });
    expect(sent).toEqual(["/api/admin/users/42/"]);
  });

  it("rejects a bad option with a TypeError naming it, and sends nothing", async () => {
    const { store, sent, loadedTables } = await freshClient();
    expect(loadedTables()).toBeUndefined();
    // @ts-expect-error not a method option
    const call = store.users.retrieve(42, { retries: 3 });
    await expect(call).rejects.toThrow(/^users\.retrieve\(\): unknown option "retries" .*the request was not sent\.$/);
    expect(sent).toEqual([]);
  });
});
