/**
 * `npm start`: a short tour of the client, using the built package as a user would.
 *
 * With no environment it starts the bundled Prism mock on a free port of 127.0.0.1 and
 * runs every step against it. With `STORE_ADMIN_URL` and `STORE_ADMIN_TOKEN` set it talks
 * to that store instead, and then only reads: the steps that change data run against a
 * real store only with `--write`. Ids for the steps that need one come from
 * `STORE_ADMIN_DISPUTE_ID`, `STORE_ADMIN_ORDER_NUMBER` + `STORE_ADMIN_LINE_ID`; a step
 * without its id is skipped with a note.
 */
import {
  ApiError,
  AuthenticationError,
  createStoreAdminClient,
  PermissionDeniedError,
  StoreAdminError,
  unwrap,
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
  return { disputeId: env.STORE_ADMIN_DISPUTE_ID, orderNumber: env.STORE_ADMIN_ORDER_NUMBER, lineId: env.STORE_ADMIN_LINE_ID };
}

function step(title: string): void {
  console.log(`\n▸ ${title}`);
}

function skip(reason: string): void {
  console.log(`  skipped: ${reason}`);
}

async function tour(store: StoreAdminClient, mode: "mock" | "store"): Promise<void> {
  const ids = idsFor(mode);

  step("Page through customers (GET /users/, following next cursors)");
  let count = 0;
  let firstId: number | undefined;
  for await (const user of store.paginate("/users/", { params: { query: { is_blocked: false } } })) {
    firstId ??= user.id;
    if (count < 3) console.log(`  #${user.id} ${user.first_name ?? ""} ${user.last_name ?? ""} <${user.email ?? "no email"}>`);
    if (++count >= 50) break; // a tour, not an export: stop after 50 (no further page is fetched)
  }
  console.log(`  ${count} customer(s) read`);

  step("Read a customer (GET /users/{id}/)");
  if (firstId === undefined) skip("the store has no customers");
  else {
    const user = await unwrap(store.GET("/users/{id}/", { params: { path: { id: firstId } } }));
    console.log(`  ${user.email ?? "no email"}: ${user.orders_count ?? 0} orders, ${user.total_spent ?? "0"} spent, language ${user.language ?? "unset"}`);
  }

  step("Read a dispute (GET /disputes/{id}/)");
  const disputeId = Number(ids.disputeId);
  if (!ids.disputeId || !Number.isInteger(disputeId)) skip("set STORE_ADMIN_DISPUTE_ID to read one");
  else {
    const dispute = await unwrap(store.GET("/disputes/{id}/", { params: { path: { id: disputeId } } }));
    console.log(`  dispute ${dispute.id}: ${dispute.amount} ${dispute.currency}, status ${dispute.status}, resolution ${dispute.resolution ?? "none"}`);

    step("Resolve the dispute (POST /disputes/{id}/resolve/)");
    if (!allowWrites) skip("writes to a real store need --write");
    else {
      const resolved = await unwrap(store.POST("/disputes/{id}/resolve/", { params: { path: { id: disputeId } }, body: { resolution: "won" } }));
      console.log(`  dispute ${resolved.id} resolution: ${resolved.resolution}`);
    }
  }

  step("Edit an order line (PATCH /orders/{number}/lines/{lineId}/)");
  const lineId = Number(ids.lineId);
  if (!ids.orderNumber || !Number.isInteger(lineId)) skip("set STORE_ADMIN_ORDER_NUMBER and STORE_ADMIN_LINE_ID to edit one");
  else if (!allowWrites) skip("writes to a real store need --write");
  else {
    const order = await unwrap(
      store.PATCH("/orders/{number}/lines/{lineId}/", {
        params: { path: { number: ids.orderNumber, lineId } },
        body: { quantity: 1, reason: "Demo: customer asked for one bag" },
      }),
    );
    console.log(`  order ${order.number}: ${order.lines?.length ?? 0} line(s), total ${order.total_incl_tax} ${order.currency}`);
  }

  step("Upload a ticket attachment (POST /tickets/attachments/, multipart)");
  if (!allowWrites) skip("writes to a real store need --write");
  else {
    const file = new File(["Parcel arrived torn; photo to follow.\n"], "report.txt", { type: "text/plain" });
    const ticket = await unwrap(store.POST("/tickets/attachments/", { body: { files: file } }));
    const attachments = ticket.comments?.flatMap((comment) => comment.attachments ?? []) ?? [];
    console.log(`  ticket ${ticket.id} "${ticket.subject}": ${attachments.length} attachment(s)`);
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
        console.error("Set both STORE_ADMIN_URL (the store's address) and STORE_ADMIN_TOKEN (an API access token), or neither to use the bundled mock.");
        return 1;
      }
      console.log(`Touring ${env.STORE_ADMIN_URL} (${allowWrites ? "reads and writes: --write given" : "read-only; pass --write to run the steps that change data"})`);
      store = createStoreAdminClient({ baseUrl: env.STORE_ADMIN_URL, accessToken: env.STORE_ADMIN_TOKEN });
    } else {
      mock = await startMock();
      console.log(`Touring the bundled Prism mock at ${mock.url} (set STORE_ADMIN_URL and STORE_ADMIN_TOKEN to use a real store)`);
      store = createStoreAdminClient({ apiUrl: mock.url, accessToken: "demo-token" });
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
