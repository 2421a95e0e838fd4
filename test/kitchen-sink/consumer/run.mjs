// Calls every operation of the kitchen-sink SDK: through its testing kit (`node run.mjs kit`)
// or a server (`node run.mjs <apiUrl>`), and prints what came back as one JSON line.
import { createStoreAdminClient } from "store-admin-sdk";
import { createMockStore } from "store-admin-sdk/testing";

const target = process.argv[2];
const mock = target === "kit" ? createMockStore() : undefined;
const store = mock
  ? createStoreAdminClient({ apiUrl: mock.url, accessToken: "token", fetch: mock.fetch, maxRetries: 0 })
  : createStoreAdminClient({ apiUrl: target, accessToken: "token", maxRetries: 0 });

const out = {};
const settle = async (name, call) => {
  try {
    const value = await call();
    out[name] = value === undefined ? "(undefined)" : value;
  } catch (error) {
    out[name] = { error: error.name, message: error.message };
  }
};
await settle("created", () => store.widgets.create({ name: "Sprocket", secret: "s3cret" }, { dry_run: true }));
await settle("widget", () => store.widgets.retrieve(7));
await settle("deleted", () => store.widgets.delete(7));
await settle("rebuilt", () => store.widgets.rebuild(7));
await settle("commentJson", () => store.widgets.comments.create(7, { text: "Nice" }));
await settle("commentFile", () =>
  store.widgets.comments.create(7, { text: "With a file", attachment: new Blob(["x"]) }),
);
await settle("preferences", () => store.preferences.update({ colour: "red", count: 2 }));
await settle("upload", () => store.uploads.create({ file: new Blob(["contents"]), note: "a note" }));
await settle("product", () => store.products.retrieve("ABC-1"));
await settle("status", () => store.status.retrieve());
await settle("pathStyleData", async () => (await store.DELETE("/widgets/{id}/", { params: { path: { id: 7 } } })).data);
if (mock) {
  await settle("listed", async () => {
    const items = [];
    for await (const item of store.widgets.list()) items.push(item);
    return items;
  });
  out.requests = mock.requests.map((r) => ({
    operation: r.operation,
    contentType: (r.headers["content-type"] ?? "").split(";")[0],
    status: r.status,
  }));
  mock.on("POST /widgets/", () => ({ status: 403, body: { detail: "Not allowed." } }));
  try {
    await store.widgets.create({ name: "Sprocket", secret: "s3cret" });
  } catch (error) {
    out.forbidden = {
      name: error.name,
      message: error.message,
      scope: error.scope ?? null,
      requiredScopes: error.requiredScopes,
    };
  }
}
console.log(JSON.stringify(out));
