/**
 * A consumer of the SDK that calls each of the 20 operations once and uses what comes back,
 * plus one `paginate()`: what `scripts/bench/typecheck.ts` type-checks (against the built
 * `.d.ts`, as a user would) to measure check time and type instantiations. Never run.
 */
import { createStoreAdminClient } from "../../src/index.js";

const store = createStoreAdminClient({ baseUrl: "https://shop.example.com", accessToken: "sat_live_token" });

export async function callEveryOperation(): Promise<string[]> {
  const seen: Array<string | number | null | undefined> = [];
  // Customers
  const users = await store.GET("/users/", { params: { query: { is_blocked: false, language: "sv" } } });
  seen.push(users.data?.results[0]?.email);
  const user = await store.GET("/users/{id}/", { params: { path: { id: 42 } } });
  seen.push(user.data?.addresses?.[0]?.line1);
  const replaced = await store.PUT("/users/{id}/", {
    params: { path: { id: 42 } },
    body: { first_name: "Astrid", tags: ["vip"] },
  });
  seen.push(replaced.data?.first_name);
  const updated = await store.PATCH("/users/{id}/", {
    params: { path: { id: 42 } },
    body: { accepts_marketing: false },
  });
  seen.push(updated.error ? "failed" : updated.data.last_name);
  const address = await store.PUT("/users/{id}/addresses/{addressId}/", {
    params: { path: { id: 42, addressId: 7 } },
    body: { country: "SE", line1: "Drottninggatan 12", line4: "Stockholm" },
  });
  seen.push(address.data?.postcode);
  const notes = await store.GET("/users/{id}/notes/", { params: { path: { id: 42 }, query: { cursor: "cD0x" } } });
  seen.push(notes.data?.results[0]?.message);
  // Gift cards
  const cards = await store.GET("/gift-cards/", { params: { query: { status: "active", amount_from: 10 } } });
  seen.push(cards.data?.results[0]?.balance);
  const card = await store.PATCH("/gift-cards/{id}/", {
    params: { path: { id: 3 } },
    body: { expired_at: null, user: 42 },
  });
  seen.push(card.data?.last_four);
  // Products and stock
  const product = await store.POST("/products/", {
    body: { title: "Coffee beans", interval: "month", interval_counts: [1, 2] },
  });
  seen.push(product.data?.slug);
  const variant = await store.GET("/products/variants/{id}/", { params: { path: { id: 5001 } } });
  seen.push(variant.data?.sku);
  const image = await store.POST("/products/{id}/images/", {
    params: { path: { id: 1201 } },
    body: { src: "https://cdn.example.org/a.jpg" },
  });
  seen.push(image.data?.id);
  const stock = await store.GET("/stockrecords/{id}/", { params: { path: { id: 9 } } });
  seen.push(stock.data?.id);
  // Disputes and gateways
  const dispute = await store.GET("/disputes/{id}/", { params: { path: { id: 11 } } });
  seen.push(dispute.data?.resolution ?? undefined);
  const note = await store.POST("/disputes/{id}/notes/", {
    params: { path: { id: 11 } },
    body: { message: "Called the bank." },
  });
  seen.push(note.data?.message);
  const resolved = await store.POST("/disputes/{id}/resolve/", {
    params: { path: { id: 11 } },
    body: { resolution: "won" },
  });
  seen.push(resolved.data?.id);
  const gateway = await store.GET("/gateways/{id}/", { params: { path: { id: 2 } } });
  seen.push(gateway.data?.name);
  // Orders, subscriptions, tickets
  const order = await store.PATCH("/orders/{number}/lines/{lineId}/", {
    params: { path: { number: "100234", lineId: 5 } },
    body: { quantity: 2, reason: "Customer asked" },
  });
  seen.push(order.data?.lines?.[0]?.sku);
  const fulfillment = await store.GET("/orders/{number}/fulfillment-orders/", {
    params: { path: { number: "100234" } },
  });
  seen.push(fulfillment.data?.[0]?.id);
  const renewal = await store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 77 } } });
  seen.push(renewal.data?.id);
  const ticket = await store.POST("/tickets/attachments/", {
    body: { files: new Blob(["receipt"], { type: "text/plain" }) },
  });
  seen.push(ticket.data?.subject);
  // Pagination
  for await (const customer of store.paginate("/users/", { params: { query: { accepts_marketing: true } } })) {
    seen.push(customer.email);
  }
  return seen.map(String);
}
