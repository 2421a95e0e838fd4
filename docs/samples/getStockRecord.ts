import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

const stock = await store.stockRecords.retrieve(3001);

const available = (stock.num_in_stock ?? 0) - (stock.num_allocated ?? 0);
console.log(`${stock.product?.sku} at ${stock.location?.name}: ${available} available`);
if (available <= (stock.low_stock_threshold ?? 0)) console.warn("Low stock: reorder.");
