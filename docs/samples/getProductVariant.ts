import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

const variant = await store.products.variants.retrieve(501);

console.log(variant.sku, variant.title, variant.inventory_availability);
for (const price of variant.prices ?? []) console.log(price.currency, price.price);
for (const stock of variant.stockrecords ?? []) console.log(`location ${stock.location_id}: ${stock.num_in_stock} in stock`);
