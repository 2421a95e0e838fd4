/**
 * The tour of the client (`npm start` builds quietly, then runs this), using the built
 * package as a user would: the operation methods (`store.users.retrieve(id)`), and the path
 * style where it gives more (`store.paginate.pages` for whole pages). Each step says what it
 * calls and what the answer means.
 *
 * With no environment it starts the bundled Prism mock on a free port of 127.0.0.1 and
 * runs every step against it. The mock answers with the contract's fixed examples (it
 * stores nothing); to show pagination crossing pages, the tour asks it, per request, for
 * the named example of a first page (`pageWithNext`) and of the page its cursor leads to
 * (`lastPage`), with Prism's `Prefer: example=…` header. With `STORE_ADMIN_URL` and `STORE_ADMIN_TOKEN` set it talks
 * to that store instead, and then only reads: the steps that change data run against a
 * real store only with `--write`. Ids for the steps that need one come from
 * `STORE_ADMIN_DISPUTE_ID`, `STORE_ADMIN_ORDER_NUMBER` + `STORE_ADMIN_LINE_ID`; a step
 * without its id is skipped with a note.
 */
import {
  ApiError,
  AuthenticationError,
  createStoreAdminClient,
  type Middleware,
  PermissionDeniedError,
  StoreAdminError,
  type StoreAdminClient,
} from "store-admin-sdk";
import { startMock, type MockServer } from "./mock.js";

const env = process.env;
const realStore = Boolean(env.STORE_ADMIN_URL || env.STORE_ADMIN_TOKEN);
const allowWrites = !realStore || process.argv.includes("--write");

/** Example ids of the contract, which the mock answers for. */
const MOCK_IDS = { disputeId: "615", orderNumber: "100234", lineId: "3301" };

function idsFor(mode: "mock" | "store") {
  if (mode === "mock") return MOCK_IDS;
  return {
    disputeId: env.STORE_ADMIN_DISPUTE_ID,
    orderNumber: env.STORE_ADMIN_ORDER_NUMBER,
    lineId: env.STORE_ADMIN_LINE_ID,
  };
}

function step(title: string): void {
  console.log(`\n▸ ${title}`);
}

function skip(reason: string): void {
  console.log(`  skipped: ${reason}`);
}

/** What an answer of the mock means; printed only against the mock. */
function mockNote(mode: "mock" | "store", text: string): void {
  if (mode === "mock") console.log(`  (mock: ${text})`);
}

/** How many items the first step reads at most: a tour, not an export. */
const MAX_CUSTOMERS = 50;

/**
 * Against the mock only: picks the contract's named example for each page of `GET /users/`,
 * a first page that has a `next` cursor, then the last page for a request with a cursor.
 * Without it Prism answers every request with the first example, a single last page.
 */
const mockPages: Middleware = {
  onRequest({ request }) {
    const url = new URL(request.url);
    if (!url.pathname.endsWith("/users/")) return undefined;
    request.headers.set("Prefer", `example=${url.searchParams.has("cursor") ? "lastPage" : "pageWithNext"}`);
    return request;
  },
};

async function tour(store: StoreAdminClient, mode: "mock" | "store"): Promise<void> {
  const ids = idsFor(mode);
  const firstId = await pageThroughCustomers(store, mode);
  await readCustomer(store, mode, firstId);
  await readAndResolveDispute(store, mode, ids);
  await editOrderLine(store, mode, ids);
  await uploadAttachment(store, mode);
}

/** The ids of the things the tour reads and edits, as `idsFor` gives them. */
type TourIds = ReturnType<typeof idsFor>;

/** The tour's first step: customers page by page, up to MAX_CUSTOMERS; the first customer's id, if any. */
async function pageThroughCustomers(store: StoreAdminClient, mode: "mock" | "store"): Promise<number | undefined> {
  // Pages themselves are the path style's: `store.users.list()` yields the customers, `paginate.pages` the pages.
  step('Page through customers: store.paginate.pages("/users/") requests a page, then follows its next cursor');
  let count = 0;
  let pages = 0;
  let firstId: number | undefined;
  for await (const page of store.paginate.pages("/users/", { params: { query: { is_blocked: false } } })) {
    pages += 1;
    const cursor = page.next ? new URL(page.next, "http://relative.invalid").searchParams.get("cursor") : null;
    console.log(
      `  page ${pages}: ${page.results.length} customer(s); ${cursor ? `next cursor ${cursor}` : "no next link: the last page"}`,
    );
    for (const user of page.results.slice(0, 3)) {
      firstId ??= user.id;
      console.log(`    #${user.id} ${user.first_name ?? ""} ${user.last_name ?? ""} <${user.email ?? "no email"}>`);
    }
    count += page.results.length;
    if (count >= MAX_CUSTOMERS) break; // breaking out fetches no further page
  }
  console.log(
    `  ${count} customer(s) on ${pages} page(s)${count >= MAX_CUSTOMERS ? ` (stopped at ${MAX_CUSTOMERS})` : ""}`,
  );
  mockNote(
    mode,
    'page 1 is the contract\'s example "pageWithNext", page 2 its example "lastPage", picked by a Prefer header this tour sends; both hold the same example customer',
  );
  return firstId;
}

/** The tour's second step: the first customer, read by id. */
async function readCustomer(
  store: StoreAdminClient,
  mode: "mock" | "store",
  firstId: number | undefined,
): Promise<void> {
  step("Read a customer: store.users.retrieve(id) (GET /users/{id}/), the customer or a typed error");
  if (firstId === undefined) skip("the store has no customers");
  else {
    const user = await store.users.retrieve(firstId);
    console.log(
      `  ${user.email ?? "no email"}: ${user.orders_count ?? 0} orders, ${user.total_spent ?? "0"} spent, language ${user.language ?? "unset"}`,
    );
    mockNote(mode, "the contract's example customer, whatever the id");
  }
}

/** The tour's third step: a dispute read by id, then resolved when writes are allowed. */
async function readAndResolveDispute(store: StoreAdminClient, mode: "mock" | "store", ids: TourIds): Promise<void> {
  step("Read a dispute: store.disputes.retrieve(id) (GET /disputes/{id}/)");
  const disputeId = Number(ids.disputeId);
  if (!ids.disputeId || !Number.isInteger(disputeId)) skip("set STORE_ADMIN_DISPUTE_ID to read one");
  else {
    const dispute = await store.disputes.retrieve(disputeId);
    console.log(
      `  dispute ${dispute.id}: ${dispute.amount} ${dispute.currency}, status ${dispute.status}, resolution ${dispute.resolution ?? "none"}`,
    );
    mockNote(mode, "the contract's example dispute");

    step('Resolve the dispute: store.disputes.resolve(id, { resolution: "won" }) (POST /disputes/{id}/resolve/)');
    if (!allowWrites) skip("writes to a real store need --write");
    else {
      const resolved = await store.disputes.resolve(disputeId, { resolution: "won" });
      console.log(`  dispute ${resolved.id} answered with resolution ${resolved.resolution ?? "none"}`);
      mockNote(
        mode,
        "it checked the body against the contract and answered its example dispute, unchanged: a mock stores nothing, a real store answers with the resolution set",
      );
    }
  }
}

/** The tour's fourth step: an order line's quantity changed, when writes are allowed. */
async function editOrderLine(store: StoreAdminClient, mode: "mock" | "store", ids: TourIds): Promise<void> {
  step("Edit an order line: store.orders.lines.update(number, lineId, body) (PATCH /orders/{number}/lines/{lineId}/)");
  const lineId = Number(ids.lineId);
  if (!ids.orderNumber || !Number.isInteger(lineId))
    skip("set STORE_ADMIN_ORDER_NUMBER and STORE_ADMIN_LINE_ID to edit one");
  else if (!allowWrites) skip("writes to a real store need --write");
  else {
    const order = await store.orders.lines.update(ids.orderNumber, lineId, {
      quantity: 1,
      reason: "Demo: customer asked for one bag",
    });
    console.log(
      `  order ${order.number}: ${order.lines?.length ?? 0} line(s), total ${order.total_incl_tax} ${order.currency}`,
    );
    mockNote(mode, "the body was valid; the answer is the contract's example order, not recomputed");
  }
}

/** The tour's last step: a file uploaded as a ticket attachment, multipart, when writes are allowed. */
async function uploadAttachment(store: StoreAdminClient, mode: "mock" | "store"): Promise<void> {
  step(
    "Upload a ticket attachment: store.tickets.attachments.create({ files }) (POST /tickets/attachments/, multipart)",
  );
  if (!allowWrites) skip("writes to a real store need --write");
  else {
    const file = new File(["Parcel arrived torn; photo to follow.\n"], "report.txt", { type: "text/plain" });
    const ticket = await store.tickets.attachments.create({ files: file });
    const attachments = ticket.comments?.flatMap((comment) => comment.attachments ?? []) ?? [];
    console.log(`  ticket ${ticket.id} "${ticket.subject}": ${attachments.length} attachment(s)`);
    mockNote(mode, "the SDK sent the file as multipart/form-data; the answer is the contract's example ticket");
  }
}

/** One line a person can act on, instead of a stack trace. */
function explain(error: unknown): string {
  if (error instanceof AuthenticationError) {
    return `The store rejected the token (401) for ${error.operation?.method} ${error.operation?.path}: check STORE_ADMIN_TOKEN.`;
  }
  if (error instanceof PermissionDeniedError) {
    return `The token lacks the scope ${error.scope ?? "this operation needs"} (403) for ${error.operation?.method} ${error.operation?.path}: grant it under API Access.`;
  }
  if (error instanceof ApiError || error instanceof StoreAdminError || error instanceof TypeError) return error.message;
  return String(error);
}

async function main(): Promise<number> {
  let mock: MockServer | undefined;
  try {
    let store: StoreAdminClient;
    if (realStore) {
      if (!env.STORE_ADMIN_URL || !env.STORE_ADMIN_TOKEN) {
        console.error(
          "Set both STORE_ADMIN_URL (the store's address) and STORE_ADMIN_TOKEN (an API access token), or neither to use the bundled mock.",
        );
        return 1;
      }
      console.log(
        `Touring ${env.STORE_ADMIN_URL} (${allowWrites ? "reads and writes: --write given" : "read-only; pass --write to run the steps that change data"})`,
      );
      store = createStoreAdminClient({ baseUrl: env.STORE_ADMIN_URL, accessToken: env.STORE_ADMIN_TOKEN });
    } else {
      mock = await startMock();
      console.log(`Touring the bundled Prism mock at ${mock.url}. It checks each request against the contract and`);
      console.log(
        "answers with the contract's fixed examples. (Set STORE_ADMIN_URL and STORE_ADMIN_TOKEN to tour a real store.)",
      );
      store = createStoreAdminClient({ apiUrl: mock.url, accessToken: "demo-token" });
      store.use(mockPages);
    }
    await tour(store, realStore ? "store" : "mock");
    console.log("\nDone.");
    return 0;
  } catch (error) {
    console.error(`\n✗ ${explain(error)}`);
    return 1;
  } finally {
    await mock?.stop();
  }
}

process.exitCode = await main();
