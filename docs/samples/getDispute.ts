import { createStoreAdminClient, PermissionDeniedError } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

try {
  const dispute = await store.disputes.retrieve(77);
  console.log(`Dispute ${dispute.case_number}: ${dispute.status}, ${dispute.amount} ${dispute.currency}, order ${dispute.order}`);
} catch (error) {
  // The message names the scope the token lacks ("disputes:read").
  if (error instanceof PermissionDeniedError) console.error(error.message);
  else throw error;
}
