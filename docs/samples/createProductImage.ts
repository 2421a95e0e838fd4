import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// Add an image by URL (the store fetches it); display_order 0 makes it the primary image.
// To upload the file itself, send `attachment` (base64) and `file_name` instead of `src`.
const image = await store.products.images.create(1201, {
  src: "https://cdn.example.com/images/morning-blend.jpg",
  caption: "Morning Blend, 500 g bag",
  display_order: 0,
});
console.log(`Image ${image.id}: ${image.src}`);
