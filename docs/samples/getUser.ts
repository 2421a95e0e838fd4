import { createStoreAdminClient, NotFoundError } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// The customer itself, or a typed error: NotFoundError, PermissionDeniedError, …
try {
  const customer = await store.users.retrieve(42);
  console.log(customer.email, customer.total_spent);
  for (const address of customer.addresses ?? []) console.log(address.line1, address.line4, address.country);
} catch (error) {
  if (error instanceof NotFoundError) console.error("No customer 42 in this store.");
  else throw error;
}
