/**
 * Contract tests, tag "Orders" (spec 4.5), against the Prism mock of openapi/store-admin.yaml.
 *
 * Operations covered (2 of 20):
 *   17. updateOrderLine             PATCH /orders/{number}/lines/{lineId}/
 *   18. listOrderFulfillmentOrders  GET   /orders/{number}/fulfillment-orders/
 *
 * The contract accepts an array or a single object for the fulfillment orders (the spec
 * describes a list; its example is one object); the client always hands callers an array.
 * Prism has one example of each form: `Prefer: example=single` and `example=list`.
 */
import { beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import type { StoreAdminClient } from "../../src/index.js";
import { createTestClient, expectOk } from "../helpers/client.js";
import { useFaultServer } from "../helpers/fault-server.js";

let store: StoreAdminClient;
beforeEach(() => {
  store = createTestClient();
});

describe("updateOrderLine — PATCH /orders/{number}/lines/{lineId}/", () => {
  it("updateOrderLine: reduces a line's quantity and returns the full order", async () => {
    const order = expectOk(
      await store.PATCH("/orders/{number}/lines/{lineId}/", {
        params: { path: { number: "100234", lineId: 3301 } },
        body: { quantity: 1, reason: "Customer asked for one bag instead of two.", metadata: { edited_by: "support" } },
      }),
    );
    expectTypeOf(order.number).toEqualTypeOf<string>();
    expect(order.number).toBe("100234");
    expect(order.lines?.[0]?.id).toBe(3301);
    expect(order.lines?.[0]?.quantity).toBe(1);
    expect(order.total_incl_tax).toBe("29.80");
    expect(order.transactions?.[0]?.payment_details?.gateway?.name).toBe("Cards (EUR)");
    expect(order.user?.email).toBe("astrid@example.org");
  });

  it("updateOrderLine: quantity 0 (the lower limit) and metadata of any JSON type", async () => {
    const order = expectOk(
      await store.PATCH("/orders/{number}/lines/{lineId}/", {
        params: { path: { number: "100234", lineId: 3301 } },
        body: { quantity: 0, metadata: "gift" },
      }),
    );
    expect(order.number).toBe("100234");
  });
});

describe("listOrderFulfillmentOrders — GET /orders/{number}/fulfillment-orders/", () => {
  const call = (prefer?: string) =>
    store.GET("/orders/{number}/fulfillment-orders/", {
      params: { path: { number: "100234" } },
      ...(prefer === undefined ? {} : { headers: { Prefer: prefer } }),
    });

  it("listOrderFulfillmentOrders: Prism example=single (one object) reaches the caller as an array", async () => {
    const orders = expectOk(await call("example=single"));
    // The declared type is an array (the contract's `X[] | X` narrowed by the SDK), not a union.
    expectTypeOf(orders).toBeArray();
    expectTypeOf(orders[0]?.id).toEqualTypeOf<number | undefined>();
    expect(Array.isArray(orders)).toBe(true);
    expect(orders).toHaveLength(1);
    expect(orders[0]?.id).toBe(7001);
    expect(orders[0]?.order_number).toBe("100234");
    expect(orders[0]?.assigned_location?.name).toBe("Main warehouse");
    expect(orders[0]?.line_items?.[0]?.product_id).toBe("1201");
  });

  it("listOrderFulfillmentOrders: Prism example=list (an array) stays the same array", async () => {
    const orders = expectOk(await call("example=list"));
    expect(Array.isArray(orders)).toBe(true);
    expect(orders).toHaveLength(1);
    expect(orders[0]?.id).toBe(7001);
    expect(orders[0]?.fulfillment_holds?.[0]?.reason).toBe("address_incorrect");
  });

  it("listOrderFulfillmentOrders: Prism's default example is an array too", async () => {
    const orders = expectOk(await call());
    expect(Array.isArray(orders)).toBe(true);
    expect(orders[0]?.status).toBe("not_required");
  });

  describe("on the wire", () => {
    const server = useFaultServer();

    it("listOrderFulfillmentOrders: one object is wrapped; an array of two or none is left as is", async () => {
      server().enqueue({ body: { id: 1 } }, { body: [{ id: 1 }, { id: 2 }] }, { body: [] });
      const client = server().client();
      const get = () => client.GET("/orders/{number}/fulfillment-orders/", { params: { path: { number: "100234" } } });
      expect(expectOk(await get())).toEqual([{ id: 1 }]);
      expect(expectOk(await get())).toEqual([{ id: 1 }, { id: 2 }]);
      expect(expectOk(await get())).toEqual([]);
      expect(server().requests.map((r) => r.path)).toEqual(Array(3).fill("/orders/100234/fulfillment-orders/"));
    });

    it("updateOrderLine: an order number with / ? # stays one path segment", async () => {
      await server()
        .client()
        .PATCH("/orders/{number}/lines/{lineId}/", {
          params: { path: { number: "2024/10?x#y", lineId: 3301 } },
          body: { quantity: 2 },
        });
      expect(server().requests.map((r) => r.url)).toEqual(["/orders/2024%2F10%3Fx%23y/lines/3301/"]);
    });
  });
});
