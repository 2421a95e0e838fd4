import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// Every active EUR gift card of at least 10, following the pages (`cursor`) as it goes.
let total = 0;
for await (const card of store.giftCards.list({ status: "active", currency: "EUR", amount_from: 10 })) {
  total += Number(card.balance ?? 0);
}
console.log(`Outstanding balance: ${total.toFixed(2)} EUR`);
