import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// Always an array, even when the server sends a single fulfillment order.
const fulfillmentOrders = await store.orders.fulfillmentOrders.list("100234");

for (const fulfillmentOrder of fulfillmentOrders) {
  const items = fulfillmentOrder.line_items?.map((item) => `${item.quantity} × ${item.sku}`).join(", ");
  console.log(`${fulfillmentOrder.id} from ${fulfillmentOrder.assigned_location?.name}: ${fulfillmentOrder.status} (${items})`);
}
