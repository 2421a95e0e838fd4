/**
 * Contract tests, tag "Gift cards" (spec 4.2), against the Prism mock of openapi/store-admin.yaml.
 *
 * Operations covered (2 of 20):
 *   7. listGiftCards   GET   /gift-cards/
 *   8. updateGiftCard  PATCH /gift-cards/{id}/
 */
import { beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import type { StoreAdminClient } from "../../src/index.js";
import { createTestClient, expectOk } from "../helpers/client.js";
import { useFaultServer } from "../helpers/fault-server.js";

let store: StoreAdminClient;
beforeEach(() => {
  store = createTestClient();
});

describe("listGiftCards — GET /gift-cards/", () => {
  it("listGiftCards: every query filter at once returns a page of gift cards", async () => {
    const page = expectOk(
      await store.GET("/gift-cards/", {
        params: {
          query: {
            search_text: "astrid@example.org",
            created_from: "2024-01-01",
            created_to: "2024-06-30",
            customer: 42,
            status: "active",
            currency: "EUR",
            amount_from: 10.5,
            amount_to: 100,
            cursor: "cD04OA==",
          },
        },
      }),
    );
    expect(page.next).toBeNull();
    const card = page.results[0];
    expectTypeOf(card?.balance).toEqualTypeOf<string | null | undefined>();
    expect(card?.id).toBe(88);
    expect(card?.balance).toBe("35.00");
    expect(card?.currency).toBe("EUR");
    expect(card?.disabled_at).toBeNull();
    expect(card?.user?.email).toBe("astrid@example.org");
  });

  it("listGiftCards: each status filter value of spec part 3 is accepted", async () => {
    for (const status of ["active", "expired", "disabled"] as const) {
      const page = expectOk(await store.GET("/gift-cards/", { params: { query: { status } } }));
      expect(page.results[0]?.last_four, status).toBe("4F2K");
    }
  });

  describe("on the wire", () => {
    const server = useFaultServer();

    it("listGiftCards: numbers, dates and the cursor are sent as the contract declares them", async () => {
      server().enqueue({ body: { next: null, previous: null, results: [] } });
      await server()
        .client()
        .GET("/gift-cards/", {
          params: {
            query: {
              search_text: "gift for Astrid",
              created_from: "2024-01-01",
              created_to: "2024-06-30",
              customer: 42,
              status: "expired",
              currency: "EUR",
              amount_from: 10.5,
              amount_to: 100,
              cursor: "cD04OA==",
            },
          },
        });
      expect(server().requests).toHaveLength(1);
      expect(Object.fromEntries(server().requests[0]?.query ?? [])).toEqual({
        search_text: "gift for Astrid",
        created_from: "2024-01-01",
        created_to: "2024-06-30",
        customer: "42",
        status: "expired",
        currency: "EUR",
        amount_from: "10.5",
        amount_to: "100",
        cursor: "cD04OA==",
      });
    });
  });
});

describe("updateGiftCard — PATCH /gift-cards/{id}/", () => {
  it("updateGiftCard: extends the expiry and moves the card to a customer", async () => {
    const card = expectOk(
      await store.PATCH("/gift-cards/{id}/", {
        params: { path: { id: 88 } },
        body: { expired_at: "2026-12-31T23:59:59Z", user: 42 },
      }),
    );
    expect(card.id).toBe(88);
    expect(card.initial).toBe("50.00");
    expect(card.expired_at).toBe("2025-12-31T23:59:59Z");
    expect(card.user?.id).toBe(42);
  });

  it("updateGiftCard: null removes the expiry and detaches the customer", async () => {
    const card = expectOk(
      await store.PATCH("/gift-cards/{id}/", { params: { path: { id: 88 } }, body: { expired_at: null, user: null } }),
    );
    expect(card.id).toBe(88);
  });
});
