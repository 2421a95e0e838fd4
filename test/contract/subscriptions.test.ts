/**
 * Contract tests, tag "Subscriptions" (spec 4.6), against the Prism mock of
 * openapi/store-admin.yaml.
 *
 * Operations covered (1 of 20):
 *   19. renewSubscription  POST /subscriptions/{id}/renew/   (no request body)
 */
import { beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import type { StoreAdminClient } from "../../src/index.js";
import { createTestClient, expectOk } from "../helpers/client.js";
import { useFaultServer } from "../helpers/fault-server.js";

let store: StoreAdminClient;
beforeEach(() => {
  store = createTestClient();
});

describe("renewSubscription — POST /subscriptions/{id}/renew/", () => {
  it("renewSubscription: with no body, returns the subscription and its orders", async () => {
    const subscription = expectOk(await store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 410 } } }));
    expectTypeOf(subscription.status).toEqualTypeOf<string | null | undefined>();
    expect(subscription.id).toBe(410);
    expect(subscription.status).toBe("active");
    expect(subscription.interval).toBe("month");
    expect(subscription.next_renewal_date).toBe("2024-07-01T09:00:00Z");
    expect(subscription.orders?.map((o) => o.order_number)).toEqual(["100234", "100871"]);
    expect(subscription.lines?.[0]?.sku).toBe("COF-ETH-1KG");
  });

  describe("on the wire", () => {
    const server = useFaultServer();

    it("renewSubscription: one POST with an empty body and no content-type", async () => {
      server().enqueue({ body: { id: 410, status: "active" } });
      const subscription = expectOk(
        await server()
          .client()
          .POST("/subscriptions/{id}/renew/", { params: { path: { id: 410 } } }),
      );
      expect(subscription.id).toBe(410);
      expect(server().requests).toHaveLength(1);
      const [request] = server().requests;
      expect(request?.method).toBe("POST");
      expect(request?.url).toBe("/subscriptions/410/renew/");
      expect(request?.body.length).toBe(0);
      expect(request?.headers["content-type"]).toBeUndefined();
    });
  });
});
