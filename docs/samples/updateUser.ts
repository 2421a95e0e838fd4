import { createStoreAdminClient, NotFoundError } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// Block a customer after a chargeback; only the fields sent are changed.
try {
  const customer = await store.users.update(42, { is_blocked: true, tags: ["chargeback-risk"] });
  console.log(`${customer.email ?? "(no email)"} blocked: ${customer.is_blocked}`);
} catch (error) {
  if (error instanceof NotFoundError) console.error("No customer 42 in this store.");
  else throw error;
}
