import { createStoreAdminClient, unwrap } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

const note = await unwrap(
  store.POST("/disputes/{id}/notes/", {
    params: { path: { id: 77 } },
    body: { message: "Sent proof of delivery (tracking and signature) to the card issuer." },
  }),
);
console.log(`Note ${note.id} added at ${note.created_at}`);
