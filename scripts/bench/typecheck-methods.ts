/**
 * `typecheck-consumer.ts` written with the operation methods: the same 20 operations, the same
 * field of each answer, and one list walked (here `store.users.list()`, which `paginate()`s).
 * What `scripts/bench/footprint.ts` type-checks to compare the two styles. Never run.
 */
import { createStoreAdminClient } from "../../src/index.js";

const store = createStoreAdminClient({ baseUrl: "https://shop.example.com", accessToken: "sat_live_token" });

export async function callEveryOperation(): Promise<string[]> {
  const seen: Array<string | number | null | undefined> = [];
  // Customers
  for await (const user of store.users.list({ is_blocked: false, language: "sv" })) {
    seen.push(user.email);
    break;
  }
  const user = await store.users.retrieve(42);
  seen.push(user.addresses?.[0]?.line1);
  const replaced = await store.users.replace(42, { first_name: "Astrid", tags: ["vip"] });
  seen.push(replaced.first_name);
  const updated = await store.users.update(42, { accepts_marketing: false });
  seen.push(updated.last_name);
  const address = await store.users.addresses.update(42, 7, {
    country: "SE",
    line1: "Drottninggatan 12",
    line4: "Stockholm",
  });
  seen.push(address.postcode);
  for await (const note of store.users.notes.list(42, { cursor: "cD0x" })) {
    seen.push(note.message);
    break;
  }
  // Gift cards
  for await (const card of store.giftCards.list({ status: "active", amount_from: 10 })) {
    seen.push(card.balance);
    break;
  }
  const card = await store.giftCards.update(3, { expired_at: null, user: 42 });
  seen.push(card.last_four);
  // Products and stock
  const product = await store.products.create({ title: "Coffee beans", interval: "month", interval_counts: [1, 2] });
  seen.push(product.slug);
  const variant = await store.products.variants.retrieve(5001);
  seen.push(variant.sku);
  const image = await store.products.images.create(1201, { src: "https://cdn.example.org/a.jpg" });
  seen.push(image.id);
  const stock = await store.stockRecords.retrieve(9);
  seen.push(stock.id);
  // Disputes and gateways
  const dispute = await store.disputes.retrieve(11);
  seen.push(dispute.resolution ?? undefined);
  const note = await store.disputes.notes.create(11, { message: "Called the bank." });
  seen.push(note.message);
  const resolved = await store.disputes.resolve(11, { resolution: "won" });
  seen.push(resolved.id);
  const gateway = await store.gateways.retrieve(2);
  seen.push(gateway.name);
  // Orders, subscriptions, tickets
  const order = await store.orders.lines.update("100234", 5, { quantity: 2, reason: "Customer asked" });
  seen.push(order.lines?.[0]?.sku);
  const fulfillment = await store.orders.fulfillmentOrders.list("100234");
  seen.push(fulfillment[0]?.id);
  const renewal = await store.subscriptions.renew(77);
  seen.push(renewal.id);
  const ticket = await store.tickets.attachments.create({ files: new Blob(["receipt"], { type: "text/plain" }) });
  seen.push(ticket.subject);
  // Pagination
  for await (const customer of store.users.list({ accepts_marketing: true })) {
    seen.push(customer.email);
  }
  return seen.map(String);
}
