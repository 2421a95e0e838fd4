/**
 * Spec coverage: `openapi/store-admin.yaml` checked against the tables of
 * `spec/store-admin-api.md` (the one source of truth about the API).
 *
 * Every expected value below is transcribed from the spec document; the section it comes
 * from is named beside it. Each check is a function returning a list of problems (empty when
 * the contract agrees with the spec), so that the tests assert `[]` on the real document and
 * the self-checks at the end can show that the same functions do report a deliberately
 * damaged copy. Every problem names the operation and field it is about.
 */
import { describe, expect, it } from "vitest";
import {
  admittedTypes,
  admittedValues,
  admitsType,
  isNode,
  loadOpenApiDoc,
  type Node,
  type OpenApiDoc,
  type Operation,
} from "./openapi-doc.js";

// ---------------------------------------------------------------------------------------------
// Fixtures transcribed from the spec
// ---------------------------------------------------------------------------------------------

type ParamType = "integer" | "string" | "number" | "boolean";

interface OperationRow {
  operationId: string;
  method: "GET" | "PUT" | "PATCH" | "POST";
  path: string;
  /** Path parameters and their types (spec part 4). */
  pathParams: Record<string, ParamType>;
}

/** Spec part 4: the 20 endpoints (operationIds from the contract's naming convention). */
const OPERATIONS: readonly OperationRow[] = [
  // 4.1 Customers
  { operationId: "listUsers", method: "GET", path: "/users/", pathParams: {} },
  { operationId: "getUser", method: "GET", path: "/users/{id}/", pathParams: { id: "integer" } },
  { operationId: "replaceUser", method: "PUT", path: "/users/{id}/", pathParams: { id: "integer" } },
  { operationId: "updateUser", method: "PATCH", path: "/users/{id}/", pathParams: { id: "integer" } },
  {
    operationId: "updateUserAddress",
    method: "PUT",
    path: "/users/{id}/addresses/{addressId}/",
    pathParams: { id: "integer", addressId: "integer" },
  },
  { operationId: "listUserNotes", method: "GET", path: "/users/{id}/notes/", pathParams: { id: "integer" } },
  // 4.2 Gift cards
  { operationId: "listGiftCards", method: "GET", path: "/gift-cards/", pathParams: {} },
  { operationId: "updateGiftCard", method: "PATCH", path: "/gift-cards/{id}/", pathParams: { id: "integer" } },
  // 4.3 Products and stock
  { operationId: "createProduct", method: "POST", path: "/products/", pathParams: {} },
  { operationId: "getProductVariant", method: "GET", path: "/products/variants/{id}/", pathParams: { id: "integer" } },
  { operationId: "createProductImage", method: "POST", path: "/products/{id}/images/", pathParams: { id: "integer" } },
  { operationId: "getStockRecord", method: "GET", path: "/stockrecords/{id}/", pathParams: { id: "integer" } },
  // 4.4 Payments
  { operationId: "getDispute", method: "GET", path: "/disputes/{id}/", pathParams: { id: "integer" } },
  { operationId: "createDisputeNote", method: "POST", path: "/disputes/{id}/notes/", pathParams: { id: "integer" } },
  { operationId: "resolveDispute", method: "POST", path: "/disputes/{id}/resolve/", pathParams: { id: "integer" } },
  { operationId: "getGateway", method: "GET", path: "/gateways/{id}/", pathParams: { id: "integer" } },
  // 4.5 Orders
  {
    operationId: "updateOrderLine",
    method: "PATCH",
    path: "/orders/{number}/lines/{lineId}/",
    pathParams: { number: "string", lineId: "integer" },
  },
  {
    operationId: "listOrderFulfillmentOrders",
    method: "GET",
    path: "/orders/{number}/fulfillment-orders/",
    pathParams: { number: "string" },
  },
  // 4.6 Subscriptions
  { operationId: "renewSubscription", method: "POST", path: "/subscriptions/{id}/renew/", pathParams: { id: "integer" } },
  // 4.7 Support
  { operationId: "createTicketAttachment", method: "POST", path: "/tickets/attachments/", pathParams: {} },
];

/** Spec part 5: the scope table, as written there. */
const SCOPE_TABLE: ReadonlyArray<readonly [scope: string, usedBy: readonly string[]]> = [
  ["users:read", ["GET /users/", "GET /users/{id}/", "GET /users/{id}/notes/"]],
  ["users:write", ["PUT /users/{id}/", "PATCH /users/{id}/", "PUT /users/{id}/addresses/{addressId}/"]],
  ["gift_cards:read", ["GET /gift-cards/"]],
  ["gift_cards:write", ["PATCH /gift-cards/{id}/"]],
  ["catalogue:read", ["GET /products/variants/{id}/", "GET /stockrecords/{id}/"]],
  ["catalogue:write", ["POST /products/", "POST /products/{id}/images/"]],
  ["disputes:read", ["GET /disputes/{id}/"]],
  ["disputes:write", ["POST /disputes/{id}/notes/", "POST /disputes/{id}/resolve/"]],
  ["gateways:read", ["GET /gateways/{id}/"]],
  ["orders:read", ["GET /orders/{number}/fulfillment-orders/"]],
  ["orders:write", ["PATCH /orders/{number}/lines/{lineId}/"]],
  ["subscriptions:write", ["POST /subscriptions/{id}/renew/"]],
  ["tickets:write", ["POST /tickets/attachments/"]],
];

/** Spec 2.1: the language codes. */
const LANGUAGE_CODES = ["en", "fr", "th", "de", "sv", "no", "it", "es", "nl", "pt", "da", "fi"] as const;

/** Spec 2.10: the dispute resolution values. */
const DISPUTE_RESOLUTIONS = [
  "could_not_find_order",
  "declined_or_canceled_nothing_to_do",
  "issued_full_refund",
  "issued_refund_for_remaining_amount",
  "3ds_authorized_successfully",
  "previously_refunded_nothing_to_do",
  "unable_to_refund_merchant_account_closed",
  "won",
  "lost",
  "accepted",
  "other",
] as const;

/** Spec 4.2 / part 3: gift card `status` filter values. */
const GIFT_CARD_STATUSES = ["active", "disabled", "expired"] as const;

/** Spec 2.6: product interval values. */
const PRODUCT_INTERVALS = ["day", "week", "month", "year"] as const;

interface QueryParamRow {
  operationId: string;
  name: string;
  type: ParamType;
  format?: string;
  enum?: readonly unknown[];
}

/** Spec 4.1 / 4.2: the query parameters of the three list operations (all optional). */
const QUERY_PARAMS: readonly QueryParamRow[] = [
  // GET /users/
  { operationId: "listUsers", name: "email", type: "string" },
  { operationId: "listUsers", name: "name", type: "string" },
  { operationId: "listUsers", name: "phone_number", type: "string" },
  { operationId: "listUsers", name: "language", type: "string", enum: LANGUAGE_CODES },
  { operationId: "listUsers", name: "user_type", type: "string" },
  { operationId: "listUsers", name: "date_joined_from", type: "string", format: "date" },
  { operationId: "listUsers", name: "date_joined_to", type: "string", format: "date" },
  { operationId: "listUsers", name: "is_blocked", type: "boolean" },
  { operationId: "listUsers", name: "accepts_marketing", type: "boolean" },
  { operationId: "listUsers", name: "cursor", type: "string" },
  // GET /users/{id}/notes/
  { operationId: "listUserNotes", name: "cursor", type: "string" },
  // GET /gift-cards/
  { operationId: "listGiftCards", name: "search_text", type: "string" },
  { operationId: "listGiftCards", name: "created_from", type: "string", format: "date" },
  { operationId: "listGiftCards", name: "created_to", type: "string", format: "date" },
  { operationId: "listGiftCards", name: "customer", type: "integer" },
  { operationId: "listGiftCards", name: "status", type: "string", enum: GIFT_CARD_STATUSES },
  { operationId: "listGiftCards", name: "currency", type: "string" },
  { operationId: "listGiftCards", name: "amount_from", type: "number" },
  { operationId: "listGiftCards", name: "amount_to", type: "number" },
  { operationId: "listGiftCards", name: "cursor", type: "string" },
];

const LIST_OPERATIONS = ["listUsers", "listUserNotes", "listGiftCards"] as const;

type Limit = { maxLength: number } | { integer: true; minimum: number; maximum?: number };

interface LimitRow {
  operationId: string;
  field: string;
  limit: Limit;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** Spec part 8 (and 2.1, 2.2, 2.6, 2.8, 4.5): the limits, on the request bodies that carry them. */
const LIMITS: readonly LimitRow[] = [
  // User.first_name, User.last_name: length <= 255 (PUT and PATCH /users/{id}/)
  { operationId: "replaceUser", field: "first_name", limit: { maxLength: 255 } },
  { operationId: "replaceUser", field: "last_name", limit: { maxLength: 255 } },
  { operationId: "updateUser", field: "first_name", limit: { maxLength: 255 } },
  { operationId: "updateUser", field: "last_name", limit: { maxLength: 255 } },
  // Address (PUT /users/{id}/addresses/{addressId}/)
  { operationId: "updateUserAddress", field: "first_name", limit: { maxLength: 255 } },
  { operationId: "updateUserAddress", field: "last_name", limit: { maxLength: 255 } },
  { operationId: "updateUserAddress", field: "line1", limit: { maxLength: 255 } },
  { operationId: "updateUserAddress", field: "line2", limit: { maxLength: 255 } },
  { operationId: "updateUserAddress", field: "line3", limit: { maxLength: 255 } },
  { operationId: "updateUserAddress", field: "line4", limit: { maxLength: 255 } },
  { operationId: "updateUserAddress", field: "state", limit: { maxLength: 255 } },
  { operationId: "updateUserAddress", field: "phone_number", limit: { maxLength: 128 } },
  { operationId: "updateUserAddress", field: "postcode", limit: { maxLength: 64 } },
  // ProductImage (POST /products/{id}/images/)
  { operationId: "createProductImage", field: "caption", limit: { maxLength: 200 } },
  { operationId: "createProductImage", field: "display_order", limit: { integer: true, minimum: 0, maximum: INT32_MAX } },
  // Product.ranking (POST /products/)
  { operationId: "createProduct", field: "ranking", limit: { integer: true, minimum: INT32_MIN, maximum: INT32_MAX } },
  // Order line quantity (PATCH /orders/{number}/lines/{lineId}/)
  { operationId: "updateOrderLine", field: "quantity", limit: { integer: true, minimum: 0 } },
];

interface BodyRow {
  operationId: string;
  mediaType: "application/json" | "multipart/form-data";
  /** The body fields spec part 4 lists for the operation. */
  fields: readonly string[];
  /** The fields it makes required. */
  required: readonly string[];
}

const USER_BODY_FIELDS = [
  "accepts_marketing",
  "email",
  "first_name",
  "ip",
  "is_blocked",
  "language",
  "last_name",
  "metadata",
  "phone_number",
  "tags",
  "user_agent",
] as const;

/** Spec part 4: every request body, its fields and its required fields. */
const BODIES: readonly BodyRow[] = [
  // 4.1: "all optional"
  { operationId: "replaceUser", mediaType: "application/json", fields: USER_BODY_FIELDS, required: [] },
  { operationId: "updateUser", mediaType: "application/json", fields: USER_BODY_FIELDS, required: [] },
  // 4.1: "country (string; required), line1 (required), line4 (required), ..."
  {
    operationId: "updateUserAddress",
    mediaType: "application/json",
    fields: [
      "country",
      "line1",
      "line4",
      "first_name",
      "last_name",
      "line2",
      "line3",
      "state",
      "postcode",
      "phone_number",
      "notes",
      "is_default_for_billing",
      "is_default_for_shipping",
    ],
    required: ["country", "line1", "line4"],
  },
  // 4.2: "Body (optional fields)"
  { operationId: "updateGiftCard", mediaType: "application/json", fields: ["expired_at", "user"], required: [] },
  // 4.3: "title (string, required); optional ..."
  {
    operationId: "createProduct",
    mediaType: "application/json",
    fields: [
      "title",
      "categories",
      "description",
      "enable_subscription",
      "external_tax_code",
      "interval",
      "interval_counts",
      "is_discountable",
      "is_public",
      "meta_description",
      "meta_title",
      "metadata",
      "ranking",
      "recommended_products",
      "template",
      "variant_attributes",
      "variants",
    ],
    required: ["title"],
  },
  // 4.3: "Body (all optional)"
  {
    operationId: "createProductImage",
    mediaType: "application/json",
    fields: ["attachment", "caption", "display_order", "file_name", "src"],
    required: [],
  },
  // 4.4: "message (string, required)"
  { operationId: "createDisputeNote", mediaType: "application/json", fields: ["message"], required: ["message"] },
  // 4.4: "Body (all optional)"
  {
    operationId: "resolveDispute",
    mediaType: "application/json",
    fields: ["create_external_refund", "resolution", "resolution_other_message"],
    required: [],
  },
  // 4.5: "Body (all optional)"
  { operationId: "updateOrderLine", mediaType: "application/json", fields: ["metadata", "quantity", "reason"], required: [] },
  // 4.7: "multipart/form-data with optional field files"
  { operationId: "createTicketAttachment", mediaType: "multipart/form-data", fields: ["files"], required: [] },
];

interface EnumRow {
  label: string;
  operationId: string;
  where: "body" | "query";
  field: string;
  values: readonly unknown[];
}

/** Spec 2.1, 2.6, 2.10, 4.1, 4.2: the enumerated values the request side must admit, exactly. */
const ENUMS: readonly EnumRow[] = [
  { label: "PUT /users/{id}/ body language", operationId: "replaceUser", where: "body", field: "language", values: [...LANGUAGE_CODES, "", null] },
  { label: "PATCH /users/{id}/ body language", operationId: "updateUser", where: "body", field: "language", values: [...LANGUAGE_CODES, "", null] },
  {
    label: "POST /disputes/{id}/resolve/ body resolution",
    operationId: "resolveDispute",
    where: "body",
    field: "resolution",
    values: [...DISPUTE_RESOLUTIONS, "", null],
  },
  { label: "POST /products/ body interval", operationId: "createProduct", where: "body", field: "interval", values: [...PRODUCT_INTERVALS, "", null] },
  { label: "GET /gift-cards/ query status", operationId: "listGiftCards", where: "query", field: "status", values: GIFT_CARD_STATUSES },
  { label: "GET /users/ query language", operationId: "listUsers", where: "query", field: "language", values: LANGUAGE_CODES },
];

/** Spec 4.1, 4.2: list operations and the item their `results` hold. */
const ENVELOPES: ReadonlyArray<{ operationId: (typeof LIST_OPERATIONS)[number]; item: string }> = [
  { operationId: "listUsers", item: "User" },
  { operationId: "listUserNotes", item: "Note" },
  { operationId: "listGiftCards", item: "GiftCard" },
];

interface ValuesSeenRow {
  /** The field as spec 2.16 names it. */
  label: string;
  /** An operation whose response carries it, and the path to it in that response (`[]` = array items, `[]?` = items if an array). */
  operationId: string;
  responsePath: readonly string[];
  /** The component schema that declares it, and the path inside it. */
  component: string;
  componentPath: readonly string[];
}

/** Spec 2.16: string fields whose response values are only "values seen" (complete sets: not shown). */
const VALUES_SEEN: readonly ValuesSeenRow[] = [
  { label: "Product.structure", operationId: "createProduct", responsePath: ["structure"], component: "Product", componentPath: ["structure"] },
  {
    label: "Variant.inventory_availability",
    operationId: "getProductVariant",
    responsePath: ["inventory_availability"],
    component: "Variant",
    componentPath: ["inventory_availability"],
  },
  {
    label: "Variant.purchase_availability",
    operationId: "getProductVariant",
    responsePath: ["purchase_availability"],
    component: "Variant",
    componentPath: ["purchase_availability"],
  },
  { label: "Dispute.status", operationId: "getDispute", responsePath: ["status"], component: "Dispute", componentPath: ["status"] },
  { label: "Dispute.type", operationId: "getDispute", responsePath: ["type"], component: "Dispute", componentPath: ["type"] },
  { label: "User.user_type", operationId: "getUser", responsePath: ["user_type"], component: "User", componentPath: ["user_type"] },
  { label: "Ticket.channel", operationId: "createTicketAttachment", responsePath: ["channel"], component: "Ticket", componentPath: ["channel"] },
  { label: "Ticket.priority", operationId: "createTicketAttachment", responsePath: ["priority"], component: "Ticket", componentPath: ["priority"] },
  { label: "Ticket.status", operationId: "createTicketAttachment", responsePath: ["status"], component: "Ticket", componentPath: ["status"] },
  {
    label: "Order.fulfillment_status",
    operationId: "updateOrderLine",
    responsePath: ["fulfillment_status"],
    component: "Order",
    componentPath: ["fulfillment_status"],
  },
  {
    label: "Order.payment_status",
    operationId: "updateOrderLine",
    responsePath: ["payment_status"],
    component: "Order",
    componentPath: ["payment_status"],
  },
  {
    label: "Fulfillment.status",
    operationId: "updateOrderLine",
    responsePath: ["fulfillments", "[]", "status"],
    component: "Fulfillment",
    componentPath: ["status"],
  },
  {
    label: "Transaction.status",
    operationId: "updateOrderLine",
    responsePath: ["transactions", "[]", "status"],
    component: "Transaction",
    componentPath: ["status"],
  },
  {
    label: "Refund adjustment type",
    operationId: "updateOrderLine",
    responsePath: ["refunds", "[]", "adjustments", "[]", "type"],
    component: "Refund",
    componentPath: ["adjustments", "[]", "type"],
  },
  {
    label: "refund line restock_type",
    operationId: "updateOrderLine",
    responsePath: ["refunds", "[]", "refund_line_items", "[]", "restock_type"],
    component: "Refund",
    componentPath: ["refund_line_items", "[]", "restock_type"],
  },
  {
    label: "FulfillmentOrder.status",
    operationId: "listOrderFulfillmentOrders",
    responsePath: ["[]?", "status"],
    component: "FulfillmentOrder",
    componentPath: ["status"],
  },
  {
    label: "FulfillmentOrder.request_status",
    operationId: "listOrderFulfillmentOrders",
    responsePath: ["[]?", "request_status"],
    component: "FulfillmentOrder",
    componentPath: ["request_status"],
  },
  {
    label: "fulfillment hold reason",
    operationId: "listOrderFulfillmentOrders",
    responsePath: ["[]?", "fulfillment_holds", "[]", "reason"],
    component: "FulfillmentOrder",
    componentPath: ["fulfillment_holds", "[]", "reason"],
  },
  {
    label: "merchant request type",
    operationId: "listOrderFulfillmentOrders",
    responsePath: ["[]?", "merchant_requests", "[]", "type"],
    component: "FulfillmentOrder",
    componentPath: ["merchant_requests", "[]", "type"],
  },
  { label: "Subscription.status", operationId: "renewSubscription", responsePath: ["status"], component: "Subscription", componentPath: ["status"] },
  { label: "Gateway.payment_flow", operationId: "getGateway", responsePath: ["payment_flow"], component: "Gateway", componentPath: ["payment_flow"] },
];

/** Spec 4 (common rules) and 9: the version header. */
const VERSION_HEADER = "X-Store-API-Version";
const API_VERSION = "2024-04-01";

/** Contract convention: the bearer security scheme's name. */
const SECURITY_SCHEME = "storeAdminToken";

// ---------------------------------------------------------------------------------------------
// Checks: each returns the problems it finds (empty = agrees with the spec)
// ---------------------------------------------------------------------------------------------

function rowFor(operationId: string): OperationRow {
  const row = OPERATIONS.find((r) => r.operationId === operationId);
  if (row === undefined) throw new Error(`no fixture row for ${operationId}`);
  return row;
}

function scopeOf(row: OperationRow): string[] {
  const key = `${row.method} ${row.path}`;
  return SCOPE_TABLE.filter(([, usedBy]) => usedBy.includes(key)).map(([scope]) => scope);
}

function label(operationId: string): string {
  const row = rowFor(operationId);
  return `${operationId} (${row.method} ${row.path})`;
}

/** The operation at the row's method + path, or a problem saying it is missing. */
function findOperation(doc: OpenApiDoc, operationId: string): Operation | string {
  const row = rowFor(operationId);
  return doc.operation(row.method, row.path) ?? `${label(operationId)}: operation missing from paths`;
}

function show(value: unknown): string {
  return value === undefined ? "absent" : JSON.stringify(value);
}

function sameValues(actual: readonly unknown[], expected: readonly unknown[]): { missing: unknown[]; extra: unknown[] } {
  const key = (v: unknown) => JSON.stringify(v);
  const a = new Set(actual.map(key));
  const e = new Set(expected.map(key));
  return {
    missing: expected.filter((v) => !a.has(key(v))),
    extra: actual.filter((v) => !e.has(key(v))),
  };
}

function unique(problems: string[]): string[] {
  return [...new Set(problems)];
}

/** The type a set of alternatives declares, for messages. */
function describeTypes(leaves: readonly Node[]): string {
  return leaves
    .map((leaf) => {
      const types = admittedTypes(leaf);
      return types === "any" ? "any" : [...types].join("|");
    })
    .join(" or ");
}

/** Every alternative must be typed, and its types other than null must be exactly `expected`. */
function typeProblems(leaves: readonly Node[], expected: ParamType, where: string): string[] {
  if (leaves.length === 0) return [`${where}: schema admits nothing`];
  const problems: string[] = [];
  if (!leaves.some((leaf) => admitsType(leaf, expected))) problems.push(`${where}: does not admit ${expected}`);
  for (const leaf of leaves) {
    const types = admittedTypes(leaf);
    const nonNull = types === "any" ? ["any"] : [...types].filter((t) => t !== "null");
    if (nonNull.length === 0) continue;
    if (nonNull.length !== 1 || nonNull[0] !== expected) {
      problems.push(`${where}: type is ${describeTypes(leaves)}, spec says ${expected}`);
    }
  }
  return unique(problems);
}

function enumProblems(leaves: readonly Node[], expected: readonly unknown[], where: string): string[] {
  const admitted = admittedValues(leaves);
  if (admitted === "open") return [`${where}: not an enum (admits values beyond ${show(expected)})`];
  const { missing, extra } = sameValues(admitted, expected);
  const problems: string[] = [];
  if (missing.length > 0) problems.push(`${where}: enum lacks ${show(missing)}`);
  if (extra.length > 0) problems.push(`${where}: enum has values the spec does not give: ${show(extra)}`);
  return problems;
}

/** Item 1: the exact set of method + path pairs. */
function operationSetProblems(doc: OpenApiDoc): string[] {
  const expected = OPERATIONS.map((r) => `${r.method} ${r.path}`);
  const actual = doc.operations().map((o) => `${o.method.toUpperCase()} ${o.path}`);
  return [
    ...expected.filter((k) => !actual.includes(k)).map((k) => `${k}: operation missing from paths (spec part 4)`),
    ...actual.filter((k) => !expected.includes(k)).map((k) => `${k}: operation not in spec part 4`),
  ];
}

/** Item 1: operationId, summary, description, one tag, exactly the part-5 scope. */
function operationProblems(doc: OpenApiDoc, operationId: string): string[] {
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return [found];
  const { op } = found;
  const where = label(operationId);
  const problems: string[] = [];
  if (op.operationId !== operationId) problems.push(`${where}: operationId is ${show(op.operationId)}`);
  if (typeof op.summary !== "string" || op.summary.trim() === "") problems.push(`${where}: no summary`);
  if (typeof op.description !== "string" || op.description.trim() === "") problems.push(`${where}: no description`);
  if (!Array.isArray(op.tags) || op.tags.length !== 1 || typeof op.tags[0] !== "string") {
    problems.push(`${where}: tags is ${show(op.tags)}, expected exactly one tag`);
  }
  const scopes = scopeOf(rowFor(operationId));
  const expectedSecurity = [{ [SECURITY_SCHEME]: scopes }];
  if (JSON.stringify(op.security) !== JSON.stringify(expectedSecurity)) {
    problems.push(`${where}: security is ${show(op.security)}, spec part 5 says ${show(expectedSecurity)}`);
  }
  return problems;
}

function securitySchemeProblems(doc: OpenApiDoc): string[] {
  const components = isNode(doc.raw.components) ? doc.raw.components : {};
  const schemes = isNode(components.securitySchemes) ? components.securitySchemes : {};
  const scheme = doc.resolveNode(schemes[SECURITY_SCHEME]);
  const problems: string[] = [];
  if (scheme.type !== "http") problems.push(`securitySchemes.${SECURITY_SCHEME}: type is ${show(scheme.type)}, expected "http" (spec 5.1)`);
  if (typeof scheme.scheme !== "string" || scheme.scheme.toLowerCase() !== "bearer") {
    problems.push(`securitySchemes.${SECURITY_SCHEME}: scheme is ${show(scheme.scheme)}, expected "bearer" (spec 5.1)`);
  }
  return problems;
}

/** Item 2: path parameters, required, with the spec's types. */
function pathParamProblems(doc: OpenApiDoc, operationId: string): string[] {
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return [found];
  const where = label(operationId);
  const expected = rowFor(operationId).pathParams;
  const declared = doc.effectiveParameters(found).filter((p) => p.in === "path");
  const problems: string[] = [];
  for (const [name, type] of Object.entries(expected)) {
    const param = declared.find((p) => p.name === name);
    if (param === undefined) {
      problems.push(`${where}: path parameter ${name} missing`);
      continue;
    }
    if (param.required !== true) problems.push(`${where}: path parameter ${name} is not required: true`);
    problems.push(...typeProblems(doc.variants(param.schema), type, `${where} path parameter ${name}`));
  }
  for (const param of declared) {
    if (!(String(param.name) in expected)) problems.push(`${where}: path parameter ${String(param.name)} not in spec`);
  }
  return problems;
}

function queryParam(doc: OpenApiDoc, operation: Operation, name: string): Node | undefined {
  return doc.effectiveParameters(operation).find((p) => p.in === "query" && p.name === name);
}

/** Item 3: one query parameter of a list operation. */
function queryParamProblems(doc: OpenApiDoc, row: QueryParamRow): string[] {
  const found = findOperation(doc, row.operationId);
  if (typeof found === "string") return [found];
  const where = `${label(row.operationId)} query parameter ${row.name}`;
  const param = queryParam(doc, found, row.name);
  if (param === undefined) return [`${where}: missing`];
  const problems: string[] = [];
  if (param.required === true) problems.push(`${where}: required, spec says optional`);
  if (param.schema === undefined) return [...problems, `${where}: no schema`];
  const leaves = doc.variants(param.schema);
  problems.push(...typeProblems(leaves, row.type, where));
  if (row.format !== undefined) {
    for (const leaf of leaves.filter((l) => admitsType(l, "string"))) {
      if (leaf.format !== row.format) problems.push(`${where}: format is ${show(leaf.format)}, spec says ${row.format}`);
    }
  }
  if (row.enum !== undefined) problems.push(...enumProblems(leaves, row.enum, where));
  return unique(problems);
}

/** Item 3: a list operation has exactly the spec's query parameters. */
function queryParamSetProblems(doc: OpenApiDoc, operationId: string): string[] {
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return [found];
  const expected = QUERY_PARAMS.filter((r) => r.operationId === operationId).map((r) => r.name);
  const actual = doc
    .effectiveParameters(found)
    .filter((p) => p.in === "query")
    .map((p) => String(p.name));
  const { missing, extra } = sameValues(actual, expected);
  return [
    ...missing.map((n) => `${label(operationId)}: query parameter ${String(n)} missing`),
    ...extra.map((n) => `${label(operationId)}: query parameter ${String(n)} not in spec`),
  ];
}

/** The schemas a request body property has (across `allOf`/`oneOf`/`anyOf`), or a problem. */
function bodyProperty(
  doc: OpenApiDoc,
  operationId: string,
  field: string,
  mediaType = "application/json",
): { where: string; schemas: unknown[] } | string {
  const where = `${label(operationId)} request body (${mediaType}) .${field}`;
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return found;
  const body = doc.requestBodySchema(found, mediaType);
  if (body === undefined) return `${label(operationId)}: no ${mediaType} request body schema`;
  const schemas = doc.findProperty(body, field);
  if (schemas.length === 0) return `${where}: property missing`;
  return { where, schemas };
}

/** Item 4: one limit of spec part 8 on a request body. */
function limitProblems(doc: OpenApiDoc, row: LimitRow): string[] {
  const prop = bodyProperty(doc, row.operationId, row.field);
  if (typeof prop === "string") return [prop];
  const { where, schemas } = prop;
  const leaves = schemas.flatMap((s) => doc.variants(s));
  const problems: string[] = [];
  const limit = row.limit;
  if ("maxLength" in limit) {
    const strings = leaves.filter((l) => admitsType(l, "string"));
    if (strings.length === 0) problems.push(`${where}: does not admit strings`);
    for (const leaf of strings) {
      if (leaf.maxLength !== limit.maxLength) {
        problems.push(`${where}: maxLength is ${show(leaf.maxLength)}, spec part 8 says ${limit.maxLength}`);
      }
    }
  } else {
    const numbers = leaves.filter((l) => admitsType(l, "integer"));
    if (numbers.length === 0) problems.push(`${where}: does not admit integers`);
    for (const leaf of numbers) {
      const types = admittedTypes(leaf);
      if (types === "any" || types.has("number")) problems.push(`${where}: type is ${describeTypes([leaf])}, spec says integer`);
      if (leaf.minimum !== limit.minimum) problems.push(`${where}: minimum is ${show(leaf.minimum)}, spec part 8 says ${limit.minimum}`);
      if (limit.maximum !== undefined && leaf.maximum !== limit.maximum) {
        problems.push(`${where}: maximum is ${show(leaf.maximum)}, spec part 8 says ${limit.maximum}`);
      }
    }
  }
  return unique(problems);
}

/** Item 5: a request body's required fields, exactly. */
function requiredProblems(doc: OpenApiDoc, row: BodyRow): string[] {
  const found = findOperation(doc, row.operationId);
  if (typeof found === "string") return [found];
  const where = `${label(row.operationId)} request body (${row.mediaType})`;
  const body = doc.requestBodySchema(found, row.mediaType);
  if (body === undefined) return [`${where}: missing`];
  const problems: string[] = [];
  if (row.required.length > 0) {
    const requestBody = doc.resolveNode(found.op.requestBody);
    if (requestBody.required !== true) problems.push(`${where}: requestBody.required is ${show(requestBody.required)}, but the body has required fields`);
  }
  for (const variant of doc.variants(body)) {
    const required = Array.isArray(variant.required) ? variant.required : [];
    const { missing, extra } = sameValues(required, row.required);
    if (missing.length > 0) problems.push(`${where}: ${show(missing)} not required, spec says required`);
    if (extra.length > 0) problems.push(`${where}: ${show(extra)} required, spec says optional`);
  }
  return unique(problems);
}

/** Item 5: a request body declares the spec's fields; any other property must be readOnly. */
function bodyFieldProblems(doc: OpenApiDoc, row: BodyRow): string[] {
  const found = findOperation(doc, row.operationId);
  if (typeof found === "string") return [found];
  const where = `${label(row.operationId)} request body (${row.mediaType})`;
  const body = doc.requestBodySchema(found, row.mediaType);
  if (body === undefined) return [`${where}: missing`];
  const declared = new Set<string>();
  for (const variant of doc.variants(body)) {
    if (isNode(variant.properties)) Object.keys(variant.properties).forEach((name) => declared.add(name));
  }
  const problems = row.fields.filter((f) => !declared.has(f)).map((f) => `${where} .${f}: property missing`);
  for (const name of declared) {
    if (row.fields.includes(name)) continue;
    const readOnly = doc.findProperty(body, name).every((s) => doc.variants(s).every((leaf) => leaf.readOnly === true));
    if (!readOnly) problems.push(`${where} .${name}: writable property not in spec part 4`);
  }
  return problems;
}

/** Item 5: the multipart `files` field is a binary file (or an array of them). */
function multipartFilesProblems(doc: OpenApiDoc): string[] {
  const prop = bodyProperty(doc, "createTicketAttachment", "files", "multipart/form-data");
  if (typeof prop === "string") return [prop];
  const leaves = prop.schemas.flatMap((s) => doc.variants(s));
  const files = leaves.flatMap((leaf) => (leaf.items !== undefined ? doc.variants(leaf.items) : [leaf]));
  const problems: string[] = [];
  if (!files.some((leaf) => leaf.format === "binary")) problems.push(`${prop.where}: no format: binary`);
  for (const leaf of files) {
    if (admitsType(leaf, "string") && leaf.format !== "binary") problems.push(`${prop.where}: a string alternative without format: binary`);
  }
  return unique(problems);
}

/** Item 6: an enumeration on the request side, exactly. */
function enumRowProblems(doc: OpenApiDoc, row: EnumRow): string[] {
  if (row.where === "query") {
    const found = findOperation(doc, row.operationId);
    if (typeof found === "string") return [found];
    const param = queryParam(doc, found, row.field);
    if (param === undefined) return [`${row.label}: missing`];
    return enumProblems(doc.variants(param.schema), row.values, row.label);
  }
  const prop = bodyProperty(doc, row.operationId, row.field);
  if (typeof prop === "string") return [prop];
  return enumProblems(
    prop.schemas.flatMap((s) => doc.variants(s)),
    row.values,
    `${label(row.operationId)} request body .${row.field}`,
  );
}

/** Item 7: exactly one required version header admitting only 2024-04-01. */
function versionHeaderProblems(doc: OpenApiDoc, operationId: string): string[] {
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return [found];
  const where = `${label(operationId)} header ${VERSION_HEADER}`;
  // declared twice in one list (path item or operation) is an error the overlay would hide
  const perList = [found.pathItem.parameters, found.op.parameters].map(
    (list) =>
      (Array.isArray(list) ? list : [])
        .map((p) => doc.resolveNode(p))
        .filter((p) => p.in === "header" && String(p.name).toLowerCase() === VERSION_HEADER.toLowerCase()).length,
  );
  const headers = doc
    .effectiveParameters(found)
    .filter((p) => p.in === "header" && String(p.name).toLowerCase() === VERSION_HEADER.toLowerCase());
  const header = headers[0];
  if (header === undefined) return [`${where}: missing`];
  const problems: string[] = [];
  if (perList.some((n) => n > 1)) problems.push(`${where}: declared more than once`);
  if (header.name !== VERSION_HEADER) problems.push(`${where}: named ${show(header.name)}`);
  if (header.required !== true) problems.push(`${where}: not required: true (spec part 9)`);
  problems.push(...enumProblems(doc.variants(header.schema), [API_VERSION], where));
  return problems;
}

/** The 2xx `application/json` response schemas of an operation. */
function responseSchemas(doc: OpenApiDoc, operation: Operation): Array<{ status: string; schema: unknown }> {
  return doc.successResponses(operation).flatMap(({ status, response }) => {
    const content = isNode(response.content) ? response.content : {};
    const media = content["application/json"];
    return isNode(media) && media.schema !== undefined ? [{ status, schema: media.schema }] : [];
  });
}

/** Item 7: the paginated envelope `{next, previous, results: [item]}`. */
function envelopeProblems(doc: OpenApiDoc, operationId: string, item: string): string[] {
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return [found];
  const schemas = responseSchemas(doc, found);
  if (schemas.length === 0) return [`${label(operationId)}: no 2xx application/json response schema`];
  const problems: string[] = [];
  for (const { status, schema } of schemas) {
    const where = `${label(operationId)} ${status} response`;
    for (const name of ["next", "previous", "results"]) {
      if (doc.schemasAt(schema, [name]).length === 0) problems.push(`${where}: property ${name} missing`);
    }
    for (const results of doc.schemasAt(schema, ["results"])) {
      for (const leaf of doc.variants(results)) {
        if (!admitsType(leaf, "array") || leaf.items === undefined) {
          problems.push(`${where}: results is not an array of ${item}`);
        } else if (!doc.referencedComponents(leaf.items).has(item)) {
          problems.push(`${where}: results items are not #/components/schemas/${item}`);
        }
      }
    }
  }
  return unique(problems);
}

/** Item 8: no closed object anywhere in the 2xx response schemas (DESIGN: tolerant responses). */
function closedObjectProblems(doc: OpenApiDoc, operationId: string): string[] {
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return [found];
  const problems: string[] = [];
  const visited = new Set<Node>();
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      node.forEach((n, i) => walk(n, `${path}[${i}]`));
      return;
    }
    if (!isNode(node) || visited.has(node)) return;
    visited.add(node);
    if (typeof node.$ref === "string") {
      const name = node.$ref.replace(/^#\/components\/schemas\//, "");
      walk(doc.resolveRef(node.$ref), `${path} → ${name}`);
    }
    if (node.additionalProperties === false) problems.push(`${path}: additionalProperties: false in a response schema`);
    if (node.unevaluatedProperties === false) problems.push(`${path}: unevaluatedProperties: false in a response schema`);
    for (const key of ["properties", "patternProperties", "dependentSchemas"]) {
      const map = node[key];
      if (isNode(map)) for (const [name, sub] of Object.entries(map)) walk(sub, `${path}.${name}`);
    }
    for (const key of ["additionalProperties", "unevaluatedProperties"]) walk(node[key], `${path}{*}`);
    for (const key of ["items", "prefixItems", "contains", "unevaluatedItems"]) walk(node[key], `${path}[]`);
    for (const key of ["allOf", "oneOf", "anyOf", "if", "then", "else"]) walk(node[key], path);
  };
  for (const { status, schema } of responseSchemas(doc, found)) walk(schema, `${label(operationId)} ${status} response`);
  return problems;
}

function leavesHaveNoEnum(doc: OpenApiDoc, schemas: readonly unknown[], where: string): string[] {
  const problems: string[] = [];
  for (const leaf of schemas.flatMap((s) => doc.variants(s))) {
    if (Array.isArray(leaf.enum)) problems.push(`${where}: enum ${show(leaf.enum)}; spec 2.16 gives values seen only`);
    if ("const" in leaf) problems.push(`${where}: const ${show(leaf.const)}; spec 2.16 gives values seen only`);
    if (!admitsType(leaf, "string")) problems.push(`${where}: does not admit strings`);
  }
  return unique(problems);
}

/** Item 8: a 2.16 "values seen" field is present and is no enum or const, in the response and its component. */
function valuesSeenProblems(doc: OpenApiDoc, row: ValuesSeenRow): string[] {
  const found = findOperation(doc, row.operationId);
  if (typeof found === "string") return [found];
  const problems: string[] = [];
  const inResponse = responseSchemas(doc, found).flatMap(({ schema }) => doc.schemasAt(schema, row.responsePath));
  const responseWhere = `${row.label} in ${label(row.operationId)} response (${row.responsePath.join(".")})`;
  if (inResponse.length === 0) problems.push(`${responseWhere}: field missing`);
  problems.push(...leavesHaveNoEnum(doc, inResponse, responseWhere));
  const components = isNode(doc.raw.components) ? doc.raw.components : {};
  const schemas = isNode(components.schemas) ? components.schemas : {};
  const componentWhere = `${row.label} in #/components/schemas/${row.component} (${row.componentPath.join(".")})`;
  if (!(row.component in schemas)) {
    problems.push(`#/components/schemas/${row.component}: missing`);
  } else {
    const inComponent = doc.schemasAt(schemas[row.component], row.componentPath);
    if (inComponent.length === 0) problems.push(`${componentWhere}: field missing`);
    problems.push(...leavesHaveNoEnum(doc, inComponent, componentWhere));
  }
  return problems;
}

/** Item 8: every 2xx response has a JSON schema and an example on each media type. */
function exampleProblems(doc: OpenApiDoc, operationId: string): string[] {
  const found = findOperation(doc, operationId);
  if (typeof found === "string") return [found];
  const responses = doc.successResponses(found);
  if (responses.length === 0) return [`${label(operationId)}: no 2xx response`];
  const problems: string[] = [];
  for (const { status, response } of responses) {
    const where = `${label(operationId)} ${status} response`;
    const content = isNode(response.content) ? response.content : {};
    if (!isNode(content["application/json"])) problems.push(`${where}: no application/json content`);
    for (const [mediaType, media] of Object.entries(content)) {
      const m = isNode(media) ? media : {};
      if (m.schema === undefined) problems.push(`${where} ${mediaType}: no schema`);
      const examples = isNode(m.examples) ? Object.entries(m.examples) : [];
      if (m.example === undefined && examples.length === 0) problems.push(`${where} ${mediaType}: no example or examples`);
      for (const [name, example] of examples) {
        let resolved: unknown;
        try {
          resolved = doc.resolve(example);
        } catch (error) {
          problems.push(`${where} ${mediaType} examples.${name}: ${(error as Error).message}`);
          continue;
        }
        if (!isNode(resolved) || (!("value" in resolved) && !("externalValue" in resolved))) {
          problems.push(`${where} ${mediaType} examples.${name}: no value`);
        }
      }
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Tests on the real contract
// ---------------------------------------------------------------------------------------------

const doc = (): OpenApiDoc => loadOpenApiDoc();

describe("spec coverage of openapi/store-admin.yaml", () => {
  describe("1. operations (spec parts 4 and 5)", () => {
    it("has exactly the 20 method + path pairs of spec part 4", () => {
      expect(OPERATIONS).toHaveLength(20);
      expect(operationSetProblems(doc())).toEqual([]);
    });

    it("scope table of spec part 5 names each operation exactly once", () => {
      for (const row of OPERATIONS) expect(scopeOf(row), `${row.method} ${row.path}`).toHaveLength(1);
      expect(SCOPE_TABLE.flatMap(([, usedBy]) => usedBy)).toHaveLength(20);
    });

    it(`security scheme ${SECURITY_SCHEME} is http bearer`, () => {
      expect(securitySchemeProblems(doc())).toEqual([]);
    });

    it.each(OPERATIONS)("$method $path: operationId $operationId, summary, description, one tag, its scope", (row) => {
      expect(operationProblems(doc(), row.operationId)).toEqual([]);
    });
  });

  describe("2. path parameters (spec part 4)", () => {
    it.each(OPERATIONS)("$operationId ($method $path)", (row) => {
      expect(pathParamProblems(doc(), row.operationId)).toEqual([]);
    });
  });

  describe("3. list query parameters (spec 4.1, 4.2)", () => {
    it.each(LIST_OPERATIONS)("%s has exactly the spec's query parameters", (operationId) => {
      expect(queryParamSetProblems(doc(), operationId)).toEqual([]);
    });

    it.each(QUERY_PARAMS)("$operationId ?$name: $type $format", (row) => {
      expect(queryParamProblems(doc(), row)).toEqual([]);
    });
  });

  describe("4. limits of spec part 8 on request bodies", () => {
    it.each(LIMITS)("$operationId body .$field", (row) => {
      expect(limitProblems(doc(), row)).toEqual([]);
    });
  });

  describe("5. request bodies: fields and required (spec part 4)", () => {
    it.each(BODIES)("$operationId body requires exactly $required", (row) => {
      expect(requiredProblems(doc(), row)).toEqual([]);
    });

    it.each(BODIES)("$operationId body declares the spec's fields", (row) => {
      expect(bodyFieldProblems(doc(), row)).toEqual([]);
    });

    it("createTicketAttachment multipart files are format: binary", () => {
      expect(multipartFilesProblems(doc())).toEqual([]);
    });

    it("renewSubscription has no request body (spec 4.6)", () => {
      const found = findOperation(doc(), "renewSubscription");
      expect(typeof found === "string" ? found : found.op.requestBody, label("renewSubscription")).toBeUndefined();
    });
  });

  describe("6. enumerations (spec 2.1, 2.6, 2.10, 4.2)", () => {
    it.each(ENUMS)("$label", (row) => {
      expect(enumRowProblems(doc(), row)).toEqual([]);
    });
  });

  describe("7. version header and pagination (spec parts 4 and 9)", () => {
    it.each(OPERATIONS)(`$operationId requires ${VERSION_HEADER}: ${API_VERSION} only`, (row) => {
      expect(versionHeaderProblems(doc(), row.operationId)).toEqual([]);
    });

    it.each(ENVELOPES)("$operationId returns {next, previous, results: [$item]}", (row) => {
      expect(envelopeProblems(doc(), row.operationId, row.item)).toEqual([]);
    });
  });

  describe("8. tolerant responses (DESIGN principles, spec 2.16)", () => {
    it.each(OPERATIONS)("$operationId: no additionalProperties: false in its 2xx response schemas", (row) => {
      expect(closedObjectProblems(doc(), row.operationId)).toEqual([]);
    });

    it.each(VALUES_SEEN)("$label is a string, not an enum or const", (row) => {
      expect(valuesSeenProblems(doc(), row)).toEqual([]);
    });

    it.each(OPERATIONS)("$operationId: every 2xx response has an example", (row) => {
      expect(exampleProblems(doc(), row.operationId)).toEqual([]);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Self-checks: the same checks report a damaged copy of the contract
// ---------------------------------------------------------------------------------------------

function requireOperation(d: OpenApiDoc, operationId: string): Operation {
  const found = findOperation(d, operationId);
  if (typeof found === "string") throw new Error(found);
  return found;
}

function requireRow<T>(rows: readonly T[], match: (row: T) => boolean): T {
  const row = rows.find(match);
  if (row === undefined) throw new Error("no such fixture row");
  return row;
}

function propertyContainersOfBody(d: OpenApiDoc, operationId: string, field: string): Node[] {
  return d.propertyContainers(d.requestBodySchema(requireOperation(d, operationId)), field);
}

function setProperty(containers: readonly Node[], field: string, schema: Node): void {
  for (const container of containers) (container.properties as Node)[field] = schema;
}

interface Mutation {
  name: string;
  mutate: (d: OpenApiDoc) => void;
  check: (d: OpenApiDoc) => string[];
  /** A word the new problem must mention. */
  mentions: string;
}

const postcodeRow = requireRow(LIMITS, (r) => r.operationId === "updateUserAddress" && r.field === "postcode");

const MUTATIONS: readonly Mutation[] = [
  {
    name: "delete maxLength of the address postcode",
    mutate: (d) => {
      for (const container of propertyContainersOfBody(d, "updateUserAddress", "postcode")) {
        for (const node of d.subschemaNodes((container.properties as Node).postcode)) delete node.maxLength;
      }
    },
    check: (d) => limitProblems(d, postcodeRow),
    mentions: "postcode",
  },
  {
    name: "remove the version header from getGateway",
    mutate: (d) => {
      const { pathItem, op } = requireOperation(d, "getGateway");
      for (const owner of [pathItem, op]) {
        if (Array.isArray(owner.parameters)) owner.parameters = owner.parameters.filter((p) => d.resolveNode(p).in !== "header");
      }
    },
    check: (d) => versionHeaderProblems(d, "getGateway"),
    mentions: "getGateway",
  },
  {
    name: "drop PATCH /users/{id}/",
    mutate: (d) => {
      delete requireOperation(d, "updateUser").pathItem.patch;
    },
    check: operationSetProblems,
    mentions: "PATCH /users/{id}/",
  },
  {
    name: "give resolveDispute the read scope",
    mutate: (d) => {
      requireOperation(d, "resolveDispute").op.security = [{ [SECURITY_SCHEME]: ["disputes:read"] }];
    },
    check: (d) => operationProblems(d, "resolveDispute"),
    mentions: "resolveDispute",
  },
  {
    name: "turn the security scheme into an API key",
    mutate: (d) => {
      const components = d.raw.components as Node;
      (components.securitySchemes as Node)[SECURITY_SCHEME] = { type: "apiKey", in: "header", name: "X-Token" };
    },
    check: securitySchemeProblems,
    mentions: SECURITY_SCHEME,
  },
  {
    name: "add a page_size query parameter to listUsers",
    mutate: (d) => {
      const { op } = requireOperation(d, "listUsers");
      op.parameters = [...(Array.isArray(op.parameters) ? op.parameters : []), { name: "page_size", in: "query", schema: { type: "integer" } }];
    },
    check: (d) => queryParamSetProblems(d, "listUsers"),
    mentions: "page_size",
  },
  {
    name: "drop format: binary from the attachment files",
    mutate: (d) => {
      const body = d.requestBodySchema(requireOperation(d, "createTicketAttachment"), "multipart/form-data");
      for (const container of d.propertyContainers(body, "files")) {
        const files = (container.properties as Node).files;
        for (const node of d.subschemaNodes(files)) {
          delete node.format;
          if (isNode(node.items)) for (const item of d.subschemaNodes(node.items)) delete item.format;
        }
      }
    },
    check: multipartFilesProblems,
    mentions: "files",
  },
  {
    name: "type path parameter lineId as a string",
    mutate: (d) => {
      const operation = requireOperation(d, "updateOrderLine");
      for (const p of d.effectiveParameters(operation)) {
        if (p.name === "lineId") p.schema = { type: "string" };
      }
    },
    check: (d) => pathParamProblems(d, "updateOrderLine"),
    mentions: "lineId",
  },
  {
    name: "drop the format of date_joined_from",
    mutate: (d) => {
      const param = queryParam(d, requireOperation(d, "listUsers"), "date_joined_from");
      if (param !== undefined) param.schema = { type: "string" };
    },
    check: (d) => queryParamProblems(d, requireRow(QUERY_PARAMS, (r) => r.name === "date_joined_from")),
    mentions: "date_joined_from",
  },
  {
    name: "stop requiring the product title",
    mutate: (d) => {
      for (const node of d.subschemaNodes(d.requestBodySchema(requireOperation(d, "createProduct")))) {
        if (Array.isArray(node.required)) node.required = node.required.filter((f) => f !== "title");
      }
    },
    check: (d) => requiredProblems(d, requireRow(BODIES, (r) => r.operationId === "createProduct")),
    mentions: "title",
  },
  {
    name: "drop the address body field notes",
    mutate: (d) => {
      for (const container of propertyContainersOfBody(d, "updateUserAddress", "notes")) delete (container.properties as Node).notes;
    },
    check: (d) => bodyFieldProblems(d, requireRow(BODIES, (r) => r.operationId === "updateUserAddress")),
    mentions: "notes",
  },
  {
    name: 'drop "" and null from the dispute resolution',
    mutate: (d) => {
      setProperty(propertyContainersOfBody(d, "resolveDispute", "resolution"), "resolution", {
        type: "string",
        enum: [...DISPUTE_RESOLUTIONS],
      });
    },
    check: (d) => enumRowProblems(d, requireRow(ENUMS, (r) => r.field === "resolution")),
    mentions: "resolution",
  },
  {
    name: "point listUsers results at Note",
    mutate: (d) => {
      const [schema] = responseSchemas(d, requireOperation(d, "listUsers"));
      setProperty(d.propertyContainers(schema?.schema, "results"), "results", {
        type: "array",
        items: { $ref: "#/components/schemas/Note" },
      });
    },
    check: (d) => envelopeProblems(d, "listUsers", "User"),
    mentions: "User",
  },
  {
    name: "close the User response schema",
    mutate: (d) => {
      const [schema] = responseSchemas(d, requireOperation(d, "getUser"));
      d.resolveNode(schema?.schema).additionalProperties = false;
    },
    check: (d) => closedObjectProblems(d, "getUser"),
    mentions: "getUser",
  },
  {
    name: "make Dispute.status an enum",
    mutate: (d) => {
      const [schema] = responseSchemas(d, requireOperation(d, "getDispute"));
      setProperty(d.propertyContainers(schema?.schema, "status"), "status", { type: "string", enum: ["new"] });
    },
    check: (d) => valuesSeenProblems(d, requireRow(VALUES_SEEN, (r) => r.label === "Dispute.status")),
    mentions: "Dispute.status",
  },
  {
    name: "delete the examples of getGateway",
    mutate: (d) => {
      for (const { response } of d.successResponses(requireOperation(d, "getGateway"))) {
        for (const media of Object.values(isNode(response.content) ? response.content : {})) {
          if (isNode(media)) {
            delete media.example;
            delete media.examples;
          }
        }
      }
    },
    check: (d) => exampleProblems(d, "getGateway"),
    mentions: "getGateway",
  },
];

describe("self-check: each check reports a damaged copy", () => {
  it.each(MUTATIONS)("$name", ({ mutate, check, mentions }) => {
    const copy = doc().clone();
    const before = check(copy);
    mutate(copy);
    const introduced = check(copy).filter((p) => !before.includes(p));
    expect(introduced.length, "the damage went unreported").toBeGreaterThan(0);
    expect(introduced.join("\n")).toContain(mentions);
    // the real contract is untouched
    expect(check(doc())).toEqual(before);
  });
});
