/**
 * Every operation of the contract through the SDK's client against the kit, with no handler:
 * each valid call gets its first success response with the contract's example as the body,
 * and the mock records the request under its operation with converted parameters.
 */
import { describe, expect, it } from "vitest";
import { operations } from "../../generated/operation-facts.js";
import type { OperationKey } from "../../generated/operations.js";
import { mockOperations } from "../../generated/testing/operations.js";
import type { StoreAdminClient } from "../../src/index.js";
import { mockedClient } from "./kit.js";

/** Each operation's facts, from its module (the kit loads one on the operation's first request). */
const loaded = Object.fromEntries(await Promise.all(Object.entries(mockOperations).map(async ([key, load]) => [key, (await load()).operation] as const)));
const factsOf = (key: OperationKey) => loaded[key]!;

type Call = (store: StoreAdminClient) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

const photo = new File([new Uint8Array([0xff, 0xd8, 0xff, 0xd9])], "box.jpg", { type: "image/jpeg" });

/** One valid call per operation, with the path parameters the mock must record. */
const CALLS: Record<OperationKey, { call: Call; path: Record<string, unknown> }> = {
  "GET /users/": { call: (s) => s.GET("/users/", { params: { query: { is_blocked: false, language: "sv" } } }), path: {} },
  "GET /users/{id}/": { call: (s) => s.GET("/users/{id}/", { params: { path: { id: 42 } } }), path: { id: 42 } },
  "PUT /users/{id}/": {
    call: (s) => s.PUT("/users/{id}/", { params: { path: { id: 42 } }, body: { first_name: "Astrid", language: "sv" } }),
    path: { id: 42 },
  },
  "PATCH /users/{id}/": { call: (s) => s.PATCH("/users/{id}/", { params: { path: { id: 42 } }, body: { is_blocked: true } }), path: { id: 42 } },
  "PUT /users/{id}/addresses/{addressId}/": {
    call: (s) =>
      s.PUT("/users/{id}/addresses/{addressId}/", {
        params: { path: { id: 42, addressId: 7 } },
        body: { country: "SE", line1: "Drottninggatan 12", line4: "Stockholm" },
      }),
    path: { id: 42, addressId: 7 },
  },
  "GET /users/{id}/notes/": { call: (s) => s.GET("/users/{id}/notes/", { params: { path: { id: 42 } } }), path: { id: 42 } },
  "GET /gift-cards/": { call: (s) => s.GET("/gift-cards/", { params: { query: { status: "active" } } }), path: {} },
  "PATCH /gift-cards/{id}/": {
    call: (s) => s.PATCH("/gift-cards/{id}/", { params: { path: { id: 88 } }, body: { expired_at: "2026-12-31T23:59:59Z", user: 42 } }),
    path: { id: 88 },
  },
  "POST /products/": { call: (s) => s.POST("/products/", { body: { title: "Coffee beans, 1 kg", interval: "month" } }), path: {} },
  "GET /products/variants/{id}/": { call: (s) => s.GET("/products/variants/{id}/", { params: { path: { id: 5001 } } }), path: { id: 5001 } },
  "POST /products/{id}/images/": {
    call: (s) => s.POST("/products/{id}/images/", { params: { path: { id: 1201 } }, body: { src: "https://images.example.org/a.jpg" } }),
    path: { id: 1201 },
  },
  "GET /stockrecords/{id}/": { call: (s) => s.GET("/stockrecords/{id}/", { params: { path: { id: 9001 } } }), path: { id: 9001 } },
  "GET /disputes/{id}/": { call: (s) => s.GET("/disputes/{id}/", { params: { path: { id: 55 } } }), path: { id: 55 } },
  "POST /disputes/{id}/notes/": {
    call: (s) => s.POST("/disputes/{id}/notes/", { params: { path: { id: 55 } }, body: { message: "Delivered on 4 June." } }),
    path: { id: 55 },
  },
  "POST /disputes/{id}/resolve/": {
    call: (s) => s.POST("/disputes/{id}/resolve/", { params: { path: { id: 55 } }, body: { resolution: "won" } }),
    path: { id: 55 },
  },
  "GET /gateways/{id}/": { call: (s) => s.GET("/gateways/{id}/", { params: { path: { id: 3 } } }), path: { id: 3 } },
  "PATCH /orders/{number}/lines/{lineId}/": {
    call: (s) =>
      s.PATCH("/orders/{number}/lines/{lineId}/", { params: { path: { number: "100234", lineId: 3301 } }, body: { quantity: 1 } }),
    path: { number: "100234", lineId: 3301 },
  },
  "GET /orders/{number}/fulfillment-orders/": {
    call: (s) => s.GET("/orders/{number}/fulfillment-orders/", { params: { path: { number: "100234" } } }),
    path: { number: "100234" },
  },
  "POST /subscriptions/{id}/renew/": { call: (s) => s.POST("/subscriptions/{id}/renew/", { params: { path: { id: 410 } } }), path: { id: 410 } },
  "POST /tickets/attachments/": { call: (s) => s.POST("/tickets/attachments/", { body: { files: [photo] } }), path: {} },
};

describe("every operation against the kit, without a handler", () => {
  it("the table has one call for each of the contract's operations", () => {
    expect(Object.keys(CALLS).sort()).toEqual(Object.keys(operations).sort());
    expect(Object.keys(CALLS)).toHaveLength(20);
  });

  for (const [key, { call, path }] of Object.entries(CALLS) as Array<[OperationKey, (typeof CALLS)[OperationKey]]>) {
    it(`${factsOf(key).operationId} (${key}) answers its first 2xx with the contract's example`, async () => {
      const { mock, store } = mockedClient();
      const { data, error, response } = await call(store);
      const [status, facts] = Object.entries(factsOf(key).responses).find(([code]) => /^2\d\d$/.test(code))!;
      expect(error, JSON.stringify(error)).toBeUndefined();
      expect(response.status).toBe(Number(status));
      // The client hands a single fulfillment order over as a list (see src/request.ts).
      const expected = operations[key].singleOrList && !Array.isArray(facts.example) ? [facts.example] : facts.example;
      expect(facts.example, "the contract has an example for it").toBeInstanceOf(Object);
      expect(data).toEqual(expected);
      if (operations[key].paginated) expect(data).toMatchObject({ results: expect.any(Array) });

      const [method, template] = key.split(" ");
      expect(mock.requests).toHaveLength(1);
      expect(mock.requests[0]).toMatchObject({ method, path: template, operation: key, status: Number(status) });
      expect(mock.requests[0]!.params.path).toEqual(path);
      expect(mock.requests[0]!.headers["authorization"]).toBe("Bearer test-token");
    });
  }
});
