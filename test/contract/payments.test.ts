/**
 * Contract tests, tag "Payments" (spec 4.4), against the Prism mock of openapi/store-admin.yaml.
 *
 * Operations covered (4 of 20):
 *   13. getDispute         GET  /disputes/{id}/
 *   14. createDisputeNote  POST /disputes/{id}/notes/
 *   15. resolveDispute     POST /disputes/{id}/resolve/
 *   16. getGateway         GET  /gateways/{id}/
 */
import { beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import type { StoreAdminClient } from "../../src/index.js";
import { createTestClient, expectOk } from "../helpers/client.js";

let store: StoreAdminClient;
beforeEach(() => {
  store = createTestClient();
});

describe("getDispute — GET /disputes/{id}/", () => {
  it("getDispute: returns the dispute", async () => {
    const dispute = expectOk(await store.GET("/disputes/{id}/", { params: { path: { id: 615 } } }));
    expect(dispute.id).toBe(615);
    expect(dispute.amount).toBe("24.90");
    expect(dispute.case_number).toBe("CB-2024-000615");
    expect(dispute.status).toBe("new");
    expect(dispute.type).toBe("alert");
    expect(dispute.resolution).toBeNull();
    expect(dispute.order).toBe(100234);
  });
});

describe("createDisputeNote — POST /disputes/{id}/notes/", () => {
  it("createDisputeNote: adds a note to the case file", async () => {
    const note = expectOk(
      await store.POST("/disputes/{id}/notes/", {
        params: { path: { id: 615 } },
        body: { message: "Tracking shows the parcel was delivered on 4 June." },
      }),
    );
    expectTypeOf(note.message).toEqualTypeOf<string | null | undefined>();
    expect(note.id).toBe(301);
    expect(note.message).toBe("Customer asked to be called before delivery.");
    expect(note.created_at).toBe("2024-05-02T14:10:00Z");
  });
});

describe("resolveDispute — POST /disputes/{id}/resolve/", () => {
  it("resolveDispute: marks the dispute as won", async () => {
    const dispute = expectOk(
      await store.POST("/disputes/{id}/resolve/", {
        params: { path: { id: 615 } },
        body: { resolution: "won", create_external_refund: false },
      }),
    );
    expect(dispute.id).toBe(615);
    expect(dispute.currency).toBe("EUR");
  });

  it("resolveDispute: resolution other with its message; every resolution value of spec 2.10 is accepted", async () => {
    const resolutions = [
      "could_not_find_order",
      "declined_or_canceled_nothing_to_do",
      "issued_full_refund",
      "issued_refund_for_remaining_amount",
      "3ds_authorized_successfully",
      "previously_refunded_nothing_to_do",
      "unable_to_refund_merchant_account_closed",
      "won",
      "lost",
      "accepted",
      "other",
      "",
      null,
    ] as const;
    for (const resolution of resolutions) {
      const dispute = expectOk(
        await store.POST("/disputes/{id}/resolve/", {
          params: { path: { id: 615 } },
          body: {
            resolution,
            resolution_other_message: "Settled with the cardholder by phone.",
            create_external_refund: true,
          },
        }),
      );
      expect(dispute.id, String(resolution)).toBe(615);
    }
  });

  it("resolveDispute: no body at all (every field optional)", async () => {
    const dispute = expectOk(await store.POST("/disputes/{id}/resolve/", { params: { path: { id: 615 } } }));
    expect(dispute.id).toBe(615);
  });
});

describe("getGateway — GET /gateways/{id}/", () => {
  it("getGateway: returns the payment gateway", async () => {
    const gateway = expectOk(await store.GET("/gateways/{id}/", { params: { path: { id: 12 } } }));
    expect(gateway.id).toBe(12);
    expect(gateway.name).toBe("Cards (EUR)");
    expect(gateway.active).toBe(true);
    expect(gateway.card_types?.map((card) => card.code)).toEqual(["visa", "mastercard"]);
    expect(gateway.gateway_groups?.[0]?.weight).toBe(100);
    expect(gateway.payment_flow).toBe("charge");
  });
});
