// In code mode a file is JSON: its name, its media type and its content in base64.
// The body is sent as multipart/form-data, one part per file.
const photo = { filename: "damaged-box.jpg", contentType: "image/jpeg", base64: "/9j/2Q==" };
const receipt = { filename: "receipt.csv", contentType: "text/csv", base64: "b3JkZXIsYW1vdW50CjEwMDIzNCw0OS45MAo=" };

const ticket = await store.tickets.attachments.create({ files: [photo, receipt] });
console.log(`Ticket ${ticket.id} now has ${ticket.comments?.at(-1)?.attachments?.length ?? 0} attachment(s) on its last comment`);
