import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

const { data: customer, error, response } = await store.GET("/users/{id}/", {
  params: { path: { id: 42 } },
});
if (error !== undefined) {
  console.error(`Could not read customer 42: HTTP ${response.status}`, error);
} else {
  console.log(customer.email, customer.total_spent);
  for (const address of customer.addresses ?? []) console.log(address.line1, address.line4, address.country);
}
