import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// Extend a gift card by a year and move it to another customer (null detaches it).
const card = await store.giftCards.update(88, { expired_at: "2027-12-31T23:59:59Z", user: 42 });
console.log(`Card …${card.last_four} expires ${card.expired_at}, balance ${card.balance} ${card.currency}`);
