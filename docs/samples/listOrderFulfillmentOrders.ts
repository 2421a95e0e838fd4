import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// Always an array, even when the server sends a single fulfillment order.
const { data: fulfillmentOrders, error } = await store.GET("/orders/{number}/fulfillment-orders/", {
  params: { path: { number: "100234" } },
});
if (error !== undefined) throw new Error(`Could not read the fulfillment orders: ${JSON.stringify(error)}`);

for (const fulfillmentOrder of fulfillmentOrders) {
  const items = fulfillmentOrder.line_items?.map((item) => `${item.quantity} × ${item.sku}`).join(", ");
  console.log(`${fulfillmentOrder.id} from ${fulfillmentOrder.assigned_location?.name}: ${fulfillmentOrder.status} (${items})`);
}
