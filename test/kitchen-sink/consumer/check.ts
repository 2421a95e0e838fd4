// What the SDK generated from the kitchen-sink contract lets a caller write, and what it refuses.
import {
  createStoreAdminClient,
  PermissionDeniedError,
  type LineItem,
  type Product,
  type Widget,
} from "store-admin-sdk";

const store = createStoreAdminClient({ baseUrl: "https://shop.example.com", accessToken: "token" });

// A schema shared by request and response: the body leaves out read-only fields, the response write-only ones.
const made: Widget = await store.widgets.create({ name: "Sprocket", secret: "s3cret" }, { dry_run: true });
made.id satisfies number;
made.created_at satisfies string;
// @ts-expect-error a write-only field is never in a response
made.secret;
// @ts-expect-error the body lacks the write-only field it requires
await store.widgets.create({ name: "Sprocket" });
// @ts-expect-error a read-only field is not sent
await store.widgets.create({ id: 1, name: "Sprocket", secret: "s3cret" });
const posted = await store.POST("/widgets/", {
  params: { query: { dry_run: false } },
  body: { name: "Sprocket", secret: "s3cret" },
});
if (posted.data) posted.data.id satisfies number;

// Responses without content: a method resolves to void, the path style's data is undefined.
const gone: void = await store.widgets.delete(1);
void gone;
// @ts-expect-error nothing to read from a response without content
(await store.widgets.rebuild(1)).id;
const { data: nothing } = await store.DELETE("/widgets/{id}/", { params: { path: { id: 1 } } });
const none: undefined = nothing;
void none;
// Not `never` (which would also pass the line above): `undefined` itself.
const isUndefined: [typeof nothing] extends [never]
  ? "never"
  : [undefined] extends [typeof nothing]
    ? "undefined"
    : "other" = "undefined";
void isUndefined;

// Names derived from the URL (no x-sdk-method), alternatives of scopes, no summary.
const widget: Widget = await store.widgets.retrieve(7);
widget.name satisfies string;
for await (const listed of store.widgets.list({ colour: "red" })) listed.name satisfies string;
// @ts-expect-error a query parameter the contract does not declare
store.widgets.list({ size: 3 });

// One media type per call: JSON (a file makes it multipart), a URL-encoded form, multipart.
const line: LineItem = await store.widgets.comments.create(7, { text: "Nice" });
await store.widgets.comments.create(7, { text: "With a file", attachment: new Blob(["x"]) });
const preferences = await store.preferences.update({ colour: "red", count: 2 });
preferences.colour satisfies "red" | "blue";
// @ts-expect-error not one of the colours
await store.preferences.update({ colour: "green" });
const upload = await store.uploads.create({ file: new Blob(["contents"]), note: "a note" });
upload.id satisfies number;
// @ts-expect-error the file is required
await store.uploads.create({ note: "a note" });

// A schema named "Product " (not an identifier) is the type Product.
const product: Product = await store.products.retrieve("ABC-1");
product.lines satisfies LineItem[];
(await store.status.retrieve()).ok satisfies boolean;
void line;

// The 403 error says what the operation requires, in OpenAPI's terms.
try {
  await store.widgets.create({ name: "Sprocket", secret: "s3cret" });
} catch (error) {
  if (error instanceof PermissionDeniedError) {
    const required: readonly (readonly string[])[] | undefined = error.requiredScopes;
    const scope: string | undefined = error.scope;
    void required;
    void scope;
  }
}
