import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

const note = await store.disputes.notes.create(77, {
  message: "Sent proof of delivery (tracking and signature) to the card issuer.",
});
console.log(`Note ${note.id} added at ${note.created_at}`);
