import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// The order number is a string; the answer is the whole order after the edit.
const order = await store.orders.lines.update("100234", 3301, {
  quantity: 1,
  reason: "Customer asked for one bag instead of two",
});
const line = order.lines?.find((item) => item.id === 3301);
console.log(`Line ${line?.sku}: ${line?.quantity}; order total ${order.total_incl_tax} ${order.currency}`);
