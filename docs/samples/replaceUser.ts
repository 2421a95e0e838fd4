import { createStoreAdminClient, unwrap } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// Every body field is optional; unwrap() returns the customer or throws a typed error.
const customer = await unwrap(
  store.PUT("/users/{id}/", {
    params: { path: { id: 42 } },
    body: {
      first_name: "Astrid",
      last_name: "Lindgren",
      email: "astrid@example.org",
      language: "sv",
      accepts_marketing: true,
      tags: ["vip"],
    },
  }),
);
console.log(`Saved ${customer.email ?? "(no email)"}`);
