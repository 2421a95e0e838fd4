import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// Every body field is optional; the method returns the customer or throws a typed error.
const customer = await store.users.replace(42, {
  first_name: "Astrid",
  last_name: "Lindgren",
  email: "astrid@example.org",
  language: "sv",
  accepts_marketing: true,
  tags: ["vip"],
});
console.log(`Saved ${customer.email ?? "(no email)"}`);
