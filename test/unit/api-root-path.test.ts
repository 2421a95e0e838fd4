/**
 * The API root's path (`/api/admin`) is one fact, the contract's `servers`: generated into
 * `API_ROOT_PATH`, which the client appends to `baseUrl` and the testing kit's mock serves under.
 */
import { describe, expect, it } from "vitest";
import { API_ROOT_PATH } from "../../generated/operations.js";
import { apiRootPath } from "../../scripts/generate.js";
import { loadContractFile } from "../../scripts/load-contract.js";
import { createStoreAdminClient } from "../../src/index.js";
import { createMockStore } from "../../src/testing/index.js";
import { CONTRACT_PATH } from "../../scripts/facts.js";

const servers = (url: string) => ({ servers: [{ url }] });

describe("the API root's path", () => {
  it("is the path of the contract's first server, after its {base_url} or origin", () => {
    expect(apiRootPath(servers("{base_url}/api/admin"))).toBe("/api/admin");
    expect(apiRootPath(servers("https://widgets.store.test/v2/"))).toBe("/v2");
    expect(apiRootPath(servers("https://widgets.store.test"))).toBe("");
    expect(apiRootPath({})).toBe("");
  });

  it("refuses a path that is not plain segments, naming where it is", () => {
    for (const url of [
      "{base_url}/../admin",
      "{base_url}/api/./admin",
      "{base_url}/api?x=1",
      "{base_url}/a b",
      "{base_url}/{tenant}",
    ]) {
      expect(() => apiRootPath(servers(url)), url).toThrow(/^#\/servers\/0\/url: /);
    }
  });

  it("is generated from openapi/store-admin.yaml, and both the client and the mock use it", async () => {
    const doc = loadContractFile(CONTRACT_PATH) as Record<string, unknown>;
    expect(API_ROOT_PATH).toBe(apiRootPath(doc));
    expect(API_ROOT_PATH).toBe("/api/admin");
    const seen: string[] = [];
    const store = createStoreAdminClient({
      baseUrl: "https://shop.example.com",
      accessToken: "token-0123456789",
      fetch: async (input) => (
        seen.push(new Request(input).url),
        new Response("{}", { status: 200, headers: { "content-type": "application/json" } })
      ),
    });
    await store.GET("/users/{id}/", { params: { path: { id: 42 } } });
    expect(seen).toEqual([`https://shop.example.com${API_ROOT_PATH}/users/42/`]);
    expect(() =>
      createStoreAdminClient({ baseUrl: `https://shop.example.com${API_ROOT_PATH}`, accessToken: "token-0123456789" }),
    ).toThrow(`baseUrl ends in ${API_ROOT_PATH}`);
    expect(new URL(createMockStore().url).pathname).toBe(API_ROOT_PATH);
  });
});
