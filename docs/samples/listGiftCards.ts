import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// Active EUR gift cards, one page at a time (`{ next, previous, results }`).
let total = 0;
for await (const page of store.paginate.pages("/gift-cards/", {
  params: { query: { status: "active", currency: "EUR", amount_from: 10 } },
})) {
  for (const card of page.results) total += Number(card.balance ?? 0);
  console.log(`${page.results.length} cards on this page, more to come: ${Boolean(page.next)}`);
}
console.log(`Outstanding balance: ${total.toFixed(2)} EUR`);
