// The testing kit on any runtime (Node, Bun, Deno, a browser page): in process, no network.
// Imports the package by its name; prints one line per check, or sets `globalThis.kitSmokeResult`
// in a browser. Run by test/testing/runtimes.test.ts.
import { createStoreAdminClient, UnprocessableEntityError, unwrap } from "store-admin-sdk";
import { createMockStore, MockContractError, servePages } from "store-admin-sdk/testing";

function runtimeName() {
  if (typeof globalThis.Bun !== "undefined") return "bun";
  if (typeof globalThis.Deno !== "undefined") return "deno";
  if (typeof globalThis.document !== "undefined") return "browser";
  return "node";
}

async function smoke() {
  const lines = [`runtime: ${runtimeName()}`];
  const mock = createMockStore();
  const store = createStoreAdminClient({ apiUrl: mock.url, accessToken: "test-token", fetch: mock.fetch });

  const user = await unwrap(store.GET("/users/{id}/", { params: { path: { id: 42 } } }));
  lines.push(`example: ${user.email}`);

  mock.on("GET /users/", servePages([{ id: 1 }, { id: 2 }, { id: 3 }], { pageSize: 2 }));
  const ids = [];
  for await (const customer of store.paginate("/users/")) ids.push(customer.id);
  lines.push(`paginate: ${ids.join(",")} in ${mock.requests.filter((r) => r.path === "/users/").length} requests`);

  try {
    await unwrap(store.PATCH("/users/{id}/", { params: { path: { id: 42 } }, body: { first_name: "A".repeat(256) } }));
  } catch (error) {
    if (error instanceof UnprocessableEntityError) lines.push(`422: ${error.validation[0].location.join(".")}`);
  }

  mock.on("POST /tickets/attachments/", async ({ body }) => ({
    status: 201,
    body: { id: 2201, subject: `${body.files instanceof Blob} ${await body.files.text()}` },
  }));
  const ticket = await unwrap(
    store.POST("/tickets/attachments/", { body: { files: new Blob(["photo bytes"], { type: "image/jpeg" }) } }),
  );
  lines.push(`upload: ${ticket.subject}`);

  mock.on("GET /disputes/{id}/", () => ({ status: 200, body: { id: "55" } }));
  try {
    await store.GET("/disputes/{id}/", { params: { path: { id: 55 } } });
  } catch (error) {
    if (error instanceof MockContractError) lines.push(`drift: ${error.message}`);
  }
  lines.push("kit smoke ok");
  return lines;
}

if (runtimeName() === "browser") {
  globalThis.kitSmokeResult = await smoke().then(
    (lines) => ({ ok: true, lines }),
    (error) => ({ ok: false, lines: [], error: String(error?.stack ?? error) }),
  );
} else {
  for (const line of await smoke()) console.log(line);
}
