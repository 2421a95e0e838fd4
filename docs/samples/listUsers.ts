import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// Every customer who joined this year and accepts marketing, page after page.
for await (const customer of store.users.list({ accepts_marketing: true, date_joined_from: "2026-01-01", is_blocked: false })) {
  console.log(customer.id, customer.email, customer.orders_count);
}
