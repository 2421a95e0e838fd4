import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// The notes kept on customer 42, oldest page first.
for await (const note of store.users.notes.list(42)) {
  console.log(note.created_at, note.author?.email ?? note.app?.name, note.message);
}
