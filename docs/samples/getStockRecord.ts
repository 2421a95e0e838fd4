import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

const { data: stock, error } = await store.GET("/stockrecords/{id}/", { params: { path: { id: 3001 } } });
if (error !== undefined) throw new Error(`Could not read stock record 3001: ${JSON.stringify(error)}`);

const available = (stock.num_in_stock ?? 0) - (stock.num_allocated ?? 0);
console.log(`${stock.product?.sku} at ${stock.location?.name}: ${available} available`);
if (available <= (stock.low_stock_threshold ?? 0)) console.warn("Low stock: reorder.");
