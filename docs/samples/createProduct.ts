import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// Only `title` is required. POST is never retried by the SDK: one call, one product.
const product = await store.products.create({
  title: "Morning Blend Coffee",
  description: "Medium roast, 500 g.",
  is_public: true,
  enable_subscription: true,
  interval: "month",
  interval_counts: [1, 2, 3],
  metadata: { origin: "Colombia" },
});
console.log(`Created product ${product.id} at ${product.url}`);
