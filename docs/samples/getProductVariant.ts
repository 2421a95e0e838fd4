import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

const { data: variant, error } = await store.GET("/products/variants/{id}/", {
  params: { path: { id: 501 } },
});
if (error !== undefined) throw new Error(`Could not read variant 501: ${JSON.stringify(error)}`);

console.log(variant.sku, variant.title, variant.inventory_availability);
for (const price of variant.prices ?? []) console.log(price.currency, price.price);
for (const stock of variant.stockrecords ?? []) console.log(`location ${stock.location_id}: ${stock.num_in_stock} in stock`);
