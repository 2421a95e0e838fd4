/**
 * Type tests: compiled by `tsc -p tsconfig.json` in `npm test`, never run. Each
 * `@ts-expect-error` must stay an error (tsc fails on an unused one), and every unmarked
 * line must compile, so both directions are checked.
 */
import {
  createStoreAdminClient,
  unwrap,
  type AddressUpdate,
  type Dispute,
  type ErrorBody,
  type GiftCard,
  type ListItem,
  type ListPath,
  type Order,
  type ProductCreate,
  type RequestOptions,
  type Schemas,
  type StoreAdminClient,
  type User,
  type UserUpdate,
} from "../../src/index.js";
import type { Client, FetchResponse } from "openapi-fetch";
import type { paths } from "../../src/index.js";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** The GET paths whose success body is a page (`{ next, previous, results }`), from the response types. */
type PagedGetPath = {
  [P in keyof paths]: paths[P] extends { get: object }
    ? NonNullable<FetchResponse<paths[P]["get"], {}, "application/json">["data"]> extends {
        results: readonly unknown[];
        next?: unknown;
      }
      ? P
      : never
    : never;
}[keyof paths];
function assertType<T extends true>(_: T): void {}

export async function checks(store: StoreAdminClient): Promise<void> {
  // ── valid forms compile, with no version header or token in params ─────────────────
  await store.GET("/users/{id}/", { params: { path: { id: 42 } } });
  await store.GET("/users/");
  await store.GET("/users/", {
    params: { query: { language: "sv", is_blocked: false, date_joined_from: "2024-01-01" } },
  });
  await store.PATCH("/users/{id}/", { params: { path: { id: 42 } }, body: { first_name: "Astrid", language: null } });
  await store.PUT("/users/{id}/addresses/{addressId}/", {
    params: { path: { id: 42, addressId: 7 } },
    body: { country: "SE", line1: "Drottninggatan 12", line4: "Stockholm" },
  });
  await store.POST("/products/", { body: { title: "Coffee", ranking: 10, interval: "month" } });
  await store.POST("/disputes/{id}/resolve/", { params: { path: { id: 615 } }, body: { resolution: "won" } });
  await store.POST("/disputes/{id}/resolve/", { params: { path: { id: 615 } } });
  await store.PATCH("/orders/{number}/lines/{lineId}/", {
    params: { path: { number: "100234", lineId: 3301 } },
    body: { quantity: 0 },
  });
  await store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 410 } } });
  await store.POST("/tickets/attachments/", { body: { files: new File(["x"], "x.txt") } });
  await store.POST("/tickets/attachments/", { body: { files: [new Blob(["a"]), new File(["b"], "b.txt")] } });
  await store.PATCH("/gift-cards/{id}/", { params: { path: { id: 88 } }, body: { expired_at: null, user: 42 } });

  // ── response types come from the contract ─────────────────────────────────────────
  const { data: user } = await store.GET("/users/{id}/", { params: { path: { id: 42 } } });
  if (user) {
    // every response property may be null; the identifier is always there
    assertType<Equal<typeof user.email, string | null | undefined>>(true);
    assertType<Equal<typeof user.id, number>>(true);
    const named: User = user;
    void named;
    // @ts-expect-error a nullable email is not a string
    const email: string = user.email;
    void email;
    assertType<Equal<typeof user.language, Schemas["Language"] | undefined>>(true);
  }
  // the single-or-list body is always an array for callers
  const { data: fulfillmentOrders } = await store.GET("/orders/{number}/fulfillment-orders/", {
    params: { path: { number: "100234" } },
  });
  if (fulfillmentOrders) {
    const first = fulfillmentOrders[0];
    assertType<Equal<typeof fulfillmentOrders, NonNullable<typeof first>[]>>(true);
    assertType<Equal<NonNullable<typeof first>["id"], number>>(true);
    const quantity: number | null | undefined = first?.line_items?.[0]?.quantity;
    void quantity;
  }
  // Schemas[...] names the response shapes, read-only fields included
  const card: Schemas["GiftCard"] = await unwrap(
    store.PATCH("/gift-cards/{id}/", { params: { path: { id: 88 } }, body: { user: null } }),
  );
  assertType<Equal<typeof card.id, number>>(true);
  const namedCard: GiftCard = card;
  // the id of a response is a number, so the next call needs no `!`
  await store.PATCH("/gift-cards/{id}/", { params: { path: { id: namedCard.id } }, body: { expired_at: null } });
  const renewed = await unwrap(store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 410 } } }));
  assertType<Equal<typeof renewed.status, string | null | undefined>>(true);
  // scalar items of response arrays may be null; objects in arrays are objects
  assertType<Equal<NonNullable<typeof renewed.orders>[number] extends object ? true : false, true>>(true);
  const order: Order = await unwrap(
    store.PATCH("/orders/{number}/lines/{lineId}/", {
      params: { path: { number: "100234", lineId: 3301 } },
      body: { quantity: 1 },
    }),
  );
  assertType<Equal<typeof order.number, string>>(true);
  assertType<Equal<NonNullable<typeof order.tags>[number], string | null>>(true);
  const dispute: Dispute = await unwrap(store.GET("/disputes/{id}/", { params: { path: { id: 615 } } }));
  assertType<Equal<typeof dispute.order, number | null | undefined>>(true);

  // ── the error of { data, error } is the contract's error body, never an array ──────
  const failed = await store.GET("/disputes/{id}/", { params: { path: { id: 615 } } });
  if (failed.error) {
    assertType<Equal<typeof failed.error, ErrorBody>>(true);
    const detail: string | null | undefined = failed.error.detail;
    void detail;
    // @ts-expect-error an error body is an object, not a list
    void failed.error.length.toFixed();
  }
  const fulfillmentFailed = await store.GET("/orders/{number}/fulfillment-orders/", {
    params: { path: { number: "1" } },
  });
  if (fulfillmentFailed.error) assertType<Equal<typeof fulfillmentFailed.error, ErrorBody>>(true);

  // ── named request bodies under the contract's names ───────────────────────────────
  const update: UserUpdate = { first_name: "Ada", language: null };
  await store.PATCH("/users/{id}/", { params: { path: { id: 42 } }, body: update });
  const address: AddressUpdate = { country: "SE", line1: "Drottninggatan 12", line4: "Stockholm" };
  await store.PUT("/users/{id}/addresses/{addressId}/", { params: { path: { id: 42, addressId: 7 } }, body: address });
  const product: ProductCreate = { title: "Coffee", variants: [{ sku: "COF-1" }] };
  await store.POST("/products/", { body: product });
  // @ts-expect-error request bodies stay strict: no null where the specification names none
  const strict: UserUpdate = { first_name: null };
  void strict;
  assertType<Equal<Schemas["User"], User>>(true);

  // ── ticket attachments: further form fields of string, number or Blob ──────────────
  await store.POST("/tickets/attachments/", { body: { files: new File(["x"], "x.txt"), ticket: 2201 } });
  await store.POST("/tickets/attachments/", {
    body: { files: [new Blob(["a"])], ticket: "2201", note: new Blob(["n"]) },
  });
  // @ts-expect-error a further form field is a string, a number or a file, not an object
  await store.POST("/tickets/attachments/", { body: { files: new Blob(["a"]), ticket: { id: 2201 } } });

  // ── paginate: list operations only, items typed ───────────────────────────────────
  for await (const item of store.paginate("/users/", { params: { query: { is_blocked: false } } })) {
    assertType<Equal<typeof item.email, string | null | undefined>>(true);
  }
  for await (const note of store.paginate("/users/{id}/notes/", { params: { path: { id: 42 } } })) {
    assertType<Equal<typeof note.message, string | null | undefined>>(true);
  }
  for await (const page of store.paginate.pages("/gift-cards/", { params: { query: { status: "active" } } })) {
    assertType<Equal<typeof page.next, string | null | undefined>>(true);
  }
  assertType<Equal<ListPath, "/users/" | "/users/{id}/notes/" | "/gift-cards/">>(true);
  // ListPath is the generator's list (what paginate() checks at run time); it is exactly the
  // GET paths whose success body is a page: derived here from the response types, as a check
  assertType<Equal<ListPath, PagedGetPath>>(true);
  assertType<Equal<ListItem<"/gift-cards/">["balance"], string | null | undefined>>(true);

  // ── each of these must be a compile error ──────────────────────────────────────────
  // @ts-expect-error a string where an integer id is expected
  await store.GET("/users/{id}/", { params: { path: { id: "42" } } });
  // @ts-expect-error path parameters are required
  await store.GET("/users/{id}/");
  // @ts-expect-error `title` is required on product create
  await store.POST("/products/", { body: { description: "no title" } });
  await store.PUT("/users/{id}/addresses/{addressId}/", {
    params: { path: { id: 1, addressId: 2 } },
    // @ts-expect-error `country`, `line1` and `line4` are required on address update
    body: { line1: "x", line4: "y" },
  });
  await store.PUT("/users/{id}/addresses/{addressId}/", {
    params: { path: { id: 1, addressId: 2 } },
    // @ts-expect-error `line4` is required on address update
    body: { country: "SE", line1: "x" },
  });
  // @ts-expect-error `message` is required on a dispute note
  await store.POST("/disputes/{id}/notes/", { params: { path: { id: 1 } }, body: {} });
  // @ts-expect-error a readOnly field (`id`) in a request body
  await store.PATCH("/users/{id}/", { params: { path: { id: 42 } }, body: { id: 43 } });
  // @ts-expect-error a readOnly field (`orders_count`) in a request body
  await store.PUT("/users/{id}/", { params: { path: { id: 42 } }, body: { orders_count: 1 } });
  // @ts-expect-error an unknown path
  await store.GET("/customers/");
  // @ts-expect-error a method the path does not have
  await store.DELETE("/users/{id}/", { params: { path: { id: 42 } } });
  // @ts-expect-error a non-list path given to paginate
  store.paginate("/users/{id}/", { params: { path: { id: 42 } } });
  // @ts-expect-error a POST path given to paginate
  store.paginate("/products/");
  // @ts-expect-error a list path with a required path parameter needs it
  store.paginate("/users/{id}/notes/");
  // @ts-expect-error a wrong enum value: language code
  await store.PATCH("/users/{id}/", { params: { path: { id: 42 } }, body: { language: "pl" } });
  // @ts-expect-error a wrong enum value: dispute resolution
  await store.POST("/disputes/{id}/resolve/", { params: { path: { id: 1 } }, body: { resolution: "maybe" } });
  // @ts-expect-error a wrong enum value: gift card status filter
  await store.GET("/gift-cards/", { params: { query: { status: "lost" } } });
  // @ts-expect-error a wrong enum value: product interval
  await store.POST("/products/", { body: { title: "x", interval: "fortnight" } });
  // @ts-expect-error an unknown body field (request bodies are closed)
  await store.PATCH("/users/{id}/", { params: { path: { id: 42 } }, body: { nickname: "A" } });
  // @ts-expect-error a string where the multipart `files` field takes a Blob or File
  await store.POST("/tickets/attachments/", { body: { files: 42 } });
  // @ts-expect-error the order number is a string
  await store.GET("/orders/{number}/fulfillment-orders/", { params: { path: { number: 100234 } } });
  // @ts-expect-error the renewal takes no body
  await store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 1 } }, body: { force: true } });
}

export function optionChecks(): void {
  createStoreAdminClient({ baseUrl: "https://shop.example.com", accessToken: "t" });
  createStoreAdminClient({
    apiUrl: "http://127.0.0.1:4010",
    accessToken: async () => "t",
    timeoutMs: 5_000,
    maxRetries: 0,
  });
  // @ts-expect-error baseUrl and apiUrl are exclusive
  createStoreAdminClient({ baseUrl: "https://a.example", apiUrl: "https://b.example", accessToken: "t" });
  // @ts-expect-error one of baseUrl and apiUrl is required
  createStoreAdminClient({ accessToken: "t" });
  // @ts-expect-error accessToken is required
  createStoreAdminClient({ baseUrl: "https://shop.example.com" });
  // @ts-expect-error a token function returns a string
  createStoreAdminClient({ baseUrl: "https://shop.example.com", accessToken: () => 42 });
  // the headers option takes what the client accepts at run time
  createStoreAdminClient({
    baseUrl: "https://shop.example.com",
    accessToken: "t",
    maxResponseBytes: 1 << 20,
    headers: new Headers({ "X-Trace": "1" }),
  });
  createStoreAdminClient({ baseUrl: "https://shop.example.com", accessToken: "t", headers: [["X-Trace", "1"]] });
  createStoreAdminClient({
    baseUrl: "https://shop.example.com",
    accessToken: "t",
    headers: new Map([["X-Trace", "1"]]),
  });
  // @ts-expect-error a string is not a set of headers
  createStoreAdminClient({ baseUrl: "https://shop.example.com", accessToken: "t", headers: "X-Trace: 1" });
}

export async function perCallChecks(store: StoreAdminClient): Promise<void> {
  // @ts-expect-error a per-call baseUrl would send the token elsewhere
  await store.GET("/users/", { baseUrl: "https://elsewhere.example" });
  // @ts-expect-error a per-call fetch would skip retries and timeouts
  await store.GET("/users/", { fetch: globalThis.fetch });
  // @ts-expect-error a per-call pathSerializer could send the token to another origin
  await store.GET("/users/{id}/", { params: { path: { id: 1 } }, pathSerializer: () => "https://elsewhere.example/" });
  // @ts-expect-error a per-call redirect would follow a redirect with the body and headers
  await store.GET("/users/", { redirect: "follow" });
  // @ts-expect-error a misspelt option is not silently ignored
  await store.GET("/users/", { singal: AbortSignal.timeout(1_000) });
  // @ts-expect-error idempotency keys are not a per-call option
  await store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 1 } }, idempotencyKey: "k" });
  // @ts-expect-error a misspelt body field
  await store.PATCH("/users/{id}/", { params: { path: { id: 42 } }, body: { frist_name: "Ada" } });
  // @ts-expect-error a field of the wrong type
  await store.PATCH("/users/{id}/", { params: { path: { id: 42 } }, body: { first_name: 42 } });
  // every allowed per-call option compiles
  await store.GET("/users/", {
    params: { query: { is_blocked: false } },
    signal: AbortSignal.timeout(1_000),
    headers: { Prefer: "code=200" },
    parseAs: "json",
    querySerializer: { array: { style: "form", explode: true } },
    middleware: [{ onRequest: () => undefined }],
    timeoutMs: 5_000,
    maxRetries: 0,
  });
  await store.POST("/products/", { body: { title: "x" }, bodySerializer: (body) => JSON.stringify(body) });
  // parseAs changes the type of data
  const streamed = await store.GET("/users/{id}/", { params: { path: { id: 1 } }, parseAs: "stream" });
  assertType<Equal<typeof streamed.data, Response["body"] | undefined>>(true);
  // the exported per-call options type is the one the methods take
  const options: RequestOptions<"/users/{id}/", "get"> = { params: { path: { id: 1 } }, timeoutMs: 1_000 };
  await store.GET("/users/{id}/", options);
  // @ts-expect-error the exported type is exact too
  const wrong: RequestOptions<"/users/", "get"> = { redirect: "follow" };
  void wrong;
}

/** The client is an openapi-fetch client: assignable to its `Client<paths>`. */
export function assignable(store: StoreAdminClient): Client<paths> {
  return store;
}
