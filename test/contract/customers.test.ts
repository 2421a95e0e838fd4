/**
 * Contract tests, tag "Customers" (spec 4.1), against the Prism mock of openapi/store-admin.yaml.
 *
 * Operations covered (6 of 20):
 *   1. listUsers          GET   /users/
 *   2. getUser            GET   /users/{id}/
 *   3. replaceUser        PUT   /users/{id}/
 *   4. updateUser         PATCH /users/{id}/
 *   5. updateUserAddress  PUT   /users/{id}/addresses/{addressId}/
 *   6. listUserNotes      GET   /users/{id}/notes/
 *
 * Prism validates every request against the contract (a 422 fails these tests), so they also
 * check the SDK's serialisation; the wire format of the list filters is checked separately
 * against the test server, because Prism ignores a query parameter that never arrives.
 */
import { beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import type { StoreAdminClient } from "../../src/index.js";
import { createTestClient, expectOk } from "../helpers/client.js";
import { useFaultServer } from "../helpers/fault-server.js";

/** Every query filter of `GET /users/` (spec 4.1), once each. */
const USER_FILTERS = {
  email: "astrid@example.org",
  name: "Astrid Lindgren",
  phone_number: "+46812345678",
  language: "sv",
  user_type: "customer",
  date_joined_from: "2023-01-01",
  date_joined_to: "2024-12-31",
  is_blocked: false,
  accepts_marketing: true,
  cursor: "cD0yMDIzLTAzLTE0",
} as const;

let store: StoreAdminClient;
beforeEach(() => {
  store = createTestClient();
});

describe("listUsers — GET /users/", () => {
  it("listUsers: every query filter at once returns a page of customers", async () => {
    const page = expectOk(
      await store.GET("/users/", {
        params: {
          query: USER_FILTERS,
        },
      }),
    );
    expectTypeOf(page.results).toBeArray();
    expect(page.next).toBeNull();
    expect(page.results).toHaveLength(1);
    const user = page.results[0];
    expect(user?.id).toBe(42);
    expect(user?.email).toBe("astrid@example.org");
    expect(user?.language).toBe("sv");
    expect(user?.addresses?.[0]?.line4).toBe("Stockholm");
    expect(user?.total_spent).toBe("1249.50");
  });

  it("listUsers: no filter at all; the pageWithNext example carries the next cursor", async () => {
    const page = expectOk(await store.GET("/users/", { headers: { Prefer: "example=pageWithNext" } }));
    expect(page.next).toBe("https://shop.example.org/api/admin/users/?cursor=cD0yMDIzLTAzLTE0");
    expect(page.previous).toBeNull();
    expect(page.results[0]?.user_type).toBe("customer");
  });

  describe("on the wire", () => {
    const server = useFaultServer();

    it("listUsers: each filter is sent as one query parameter, formatted as the contract says", async () => {
      server().enqueue({ body: { next: null, previous: null, results: [] } });
      await server()
        .client()
        .GET("/users/", {
          params: {
            query: { ...USER_FILTERS, email: "astrid+shop@example.org" },
          },
        });
      expect(server().requests).toHaveLength(1);
      const [request] = server().requests;
      expect(request?.path).toBe("/users/");
      expect(Object.fromEntries(request?.query ?? [])).toEqual({
        email: "astrid+shop@example.org",
        name: "Astrid Lindgren",
        phone_number: "+46812345678",
        language: "sv",
        user_type: "customer",
        date_joined_from: "2023-01-01",
        date_joined_to: "2024-12-31",
        is_blocked: "false",
        accepts_marketing: "true",
        cursor: "cD0yMDIzLTAzLTE0",
      });
      // A "+" must arrive percent-encoded: a literal "+" in a query string reads as a space.
      expect(request?.url).toContain("email=astrid%2Bshop%40example.org");
    });
  });
});

describe("getUser — GET /users/{id}/", () => {
  it("getUser: returns the customer with their addresses", async () => {
    const user = expectOk(await store.GET("/users/{id}/", { params: { path: { id: 42 } } }));
    expectTypeOf(user.email).toEqualTypeOf<string | null | undefined>();
    expect(user.id).toBe(42);
    expect(user.email).toBe("astrid@example.org");
    expect(user.first_name).toBe("Astrid");
    expect(user.is_blocked).toBe(false);
    expect(user.tags).toEqual(["vip", "newsletter"]);
    expect(user.addresses?.[0]?.is_default_for_shipping).toBe(true);
    expect(user.date_joined).toBe("2023-03-14T09:26:53Z");
  });
});

describe("replaceUser — PUT /users/{id}/", () => {
  it("replaceUser: every writable field, at its limits, is accepted", async () => {
    const user = expectOk(
      await store.PUT("/users/{id}/", {
        params: { path: { id: 42 } },
        body: {
          accepts_marketing: false,
          email: "astrid.lindgren@example.org",
          first_name: "A".repeat(255),
          last_name: "Lindgren",
          ip: "203.0.113.24",
          is_blocked: false,
          language: "sv",
          metadata: { loyalty_tier: "gold", referrals: 3 },
          phone_number: "+46812345678",
          tags: ["vip"],
          user_agent: "Mozilla/5.0 (X11; Linux x86_64)",
        },
      }),
    );
    expect(user.id).toBe(42);
    expect(user.email).toBe("astrid@example.org");
    expect(user.orders_count).toBe(12);
  });

  it("replaceUser: the empty string and null are valid languages (spec 2.1)", async () => {
    const cleared = expectOk(await store.PUT("/users/{id}/", { params: { path: { id: 42 } }, body: { language: "" } }));
    expect(cleared.id).toBe(42);
    const unset = expectOk(await store.PUT("/users/{id}/", { params: { path: { id: 42 } }, body: { language: null } }));
    expect(unset.id).toBe(42);
  });
});

describe("updateUser — PATCH /users/{id}/", () => {
  it("updateUser: blocks a customer and sets their language", async () => {
    const user = expectOk(
      await store.PATCH("/users/{id}/", {
        params: { path: { id: 42 } },
        body: { is_blocked: true, language: "de", tags: ["chargeback-risk"] },
      }),
    );
    expect(user.id).toBe(42);
    expect(user.email).toBe("astrid@example.org");
    expect(user.subscriptions_count).toBe(1);
  });

  it("updateUser: an empty body (every field optional) is accepted", async () => {
    const user = expectOk(await store.PATCH("/users/{id}/", { params: { path: { id: 42 } }, body: {} }));
    expect(user.id).toBe(42);
  });
});

describe("updateUserAddress — PUT /users/{id}/addresses/{addressId}/", () => {
  it("updateUserAddress: the three required fields alone", async () => {
    const address = expectOk(
      await store.PUT("/users/{id}/addresses/{addressId}/", {
        params: { path: { id: 42, addressId: 7 } },
        body: { country: "SE", line1: "Drottninggatan 12", line4: "Stockholm" },
      }),
    );
    expect(address.id).toBe(7);
    expect(address.country).toBe("SE");
    expect(address.line4).toBe("Stockholm");
  });

  it("updateUserAddress: every field, each at its length limit", async () => {
    const address = expectOk(
      await store.PUT("/users/{id}/addresses/{addressId}/", {
        params: { path: { id: 42, addressId: 7 } },
        body: {
          country: "SE",
          first_name: "F".repeat(255),
          last_name: "Lindgren",
          line1: "Drottninggatan 12",
          line2: "Lägenhet 1102",
          line3: "",
          line4: "Stockholm",
          state: "Stockholms län",
          postcode: "1".repeat(64),
          phone_number: "+".padEnd(128, "4"),
          notes: "Leave at the door",
          is_default_for_billing: true,
          is_default_for_shipping: false,
        },
      }),
    );
    expect(address.postcode).toBe("111 51");
    expect(address.notes).toBe("Leave at the door");
    expect(address.is_default_for_billing).toBe(true);
  });
});

describe("listUserNotes — GET /users/{id}/notes/", () => {
  it("listUserNotes: with a cursor, returns a page of notes with author and app", async () => {
    const page = expectOk(
      await store.GET("/users/{id}/notes/", { params: { path: { id: 42 }, query: { cursor: "cD0zMDE=" } } }),
    );
    expect(page.next).toBeNull();
    const note = page.results[0];
    expect(note?.id).toBe(301);
    expect(note?.message).toBe("Customer asked to be called before delivery.");
    expect(note?.author?.email).toBe("agent@example.org");
    expect(note?.app?.client_id).toBe("support-desk");
  });

  it("listUserNotes: without a cursor (first page)", async () => {
    const page = expectOk(await store.GET("/users/{id}/notes/", { params: { path: { id: 42 } } }));
    expect(page.results).toHaveLength(1);
  });
});
