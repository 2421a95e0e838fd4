import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// Pass Blobs or Files and the body is sent as multipart/form-data.
// In Node, `await openAsBlob(path)` (node:fs) reads a file; in a browser, use `input.files`.
const photo = new File([new Uint8Array([0xff, 0xd8, 0xff, 0xd9])], "damaged-box.jpg", { type: "image/jpeg" });
const receipt = new File(["order,amount\n100234,49.90\n"], "receipt.csv", { type: "text/csv" });

const ticket = await store.tickets.attachments.create({ files: [photo, receipt] });
console.log(`Ticket ${ticket.id} now has ${ticket.comments?.at(-1)?.attachments?.length ?? 0} attachment(s) on its last comment`);
