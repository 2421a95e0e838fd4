import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// Every field is optional; `resolution` takes one of the values the contract lists.
const dispute = await store.disputes.resolve(77, { resolution: "issued_full_refund", create_external_refund: false });
console.log(`Dispute ${dispute.id} resolved: ${dispute.resolution}`);
