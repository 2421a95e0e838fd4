/**
 * The tables of `spec/store-admin-api.md` that the spec-coverage checks compare the contract
 * with, transcribed by hand: each names the spec section it comes from. Data only.
 */

export type ParamType = "integer" | "string" | "number" | "boolean";

export interface OperationRow {
  operationId: string;
  method: "GET" | "PUT" | "PATCH" | "POST";
  path: string;
  /** Path parameters and their types (spec part 4). */
  pathParams: Record<string, ParamType>;
}

/** Spec part 4: the 20 endpoints (operationIds from the contract's naming convention). */
export const OPERATIONS: readonly OperationRow[] = [
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
  {
    operationId: "renewSubscription",
    method: "POST",
    path: "/subscriptions/{id}/renew/",
    pathParams: { id: "integer" },
  },
  // 4.7 Support
  { operationId: "createTicketAttachment", method: "POST", path: "/tickets/attachments/", pathParams: {} },
];

/** Spec part 5: the scope table, as written there. */
export const SCOPE_TABLE: ReadonlyArray<readonly [scope: string, usedBy: readonly string[]]> = [
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
export const DISPUTE_RESOLUTIONS = [
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

export interface QueryParamRow {
  operationId: string;
  name: string;
  type: ParamType;
  format?: string;
  enum?: readonly unknown[];
}

/** Spec 4.1 / 4.2: the query parameters of the three list operations (all optional). */
export const QUERY_PARAMS: readonly QueryParamRow[] = [
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

export const LIST_OPERATIONS = ["listUsers", "listUserNotes", "listGiftCards"] as const;

type Limit = { maxLength: number } | { integer: true; minimum: number; maximum?: number };

export interface LimitRow {
  operationId: string;
  field: string;
  limit: Limit;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** Spec part 8 (and 2.1, 2.2, 2.6, 2.8, 4.5): the limits, on the request bodies that carry them. */
export const LIMITS: readonly LimitRow[] = [
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
  {
    operationId: "createProductImage",
    field: "display_order",
    limit: { integer: true, minimum: 0, maximum: INT32_MAX },
  },
  // Product.ranking (POST /products/)
  { operationId: "createProduct", field: "ranking", limit: { integer: true, minimum: INT32_MIN, maximum: INT32_MAX } },
  // Order line quantity (PATCH /orders/{number}/lines/{lineId}/)
  { operationId: "updateOrderLine", field: "quantity", limit: { integer: true, minimum: 0 } },
];

export interface BodyRow {
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
export const BODIES: readonly BodyRow[] = [
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
  {
    operationId: "updateOrderLine",
    mediaType: "application/json",
    fields: ["metadata", "quantity", "reason"],
    required: [],
  },
  // 4.7: "multipart/form-data with optional field files"
  { operationId: "createTicketAttachment", mediaType: "multipart/form-data", fields: ["files"], required: [] },
];

export interface EnumRow {
  label: string;
  operationId: string;
  where: "body" | "query";
  field: string;
  values: readonly unknown[];
}

/** Spec 2.1, 2.6, 2.10, 4.1, 4.2: the enumerated values the request side must admit, exactly. */
export const ENUMS: readonly EnumRow[] = [
  {
    label: "PUT /users/{id}/ body language",
    operationId: "replaceUser",
    where: "body",
    field: "language",
    values: [...LANGUAGE_CODES, "", null],
  },
  {
    label: "PATCH /users/{id}/ body language",
    operationId: "updateUser",
    where: "body",
    field: "language",
    values: [...LANGUAGE_CODES, "", null],
  },
  {
    label: "POST /disputes/{id}/resolve/ body resolution",
    operationId: "resolveDispute",
    where: "body",
    field: "resolution",
    values: [...DISPUTE_RESOLUTIONS, "", null],
  },
  {
    label: "POST /products/ body interval",
    operationId: "createProduct",
    where: "body",
    field: "interval",
    values: [...PRODUCT_INTERVALS, "", null],
  },
  {
    label: "GET /gift-cards/ query status",
    operationId: "listGiftCards",
    where: "query",
    field: "status",
    values: GIFT_CARD_STATUSES,
  },
  {
    label: "GET /users/ query language",
    operationId: "listUsers",
    where: "query",
    field: "language",
    values: LANGUAGE_CODES,
  },
];

/** Spec 4.1, 4.2: list operations and the item their `results` hold. */
export const ENVELOPES: ReadonlyArray<{ operationId: (typeof LIST_OPERATIONS)[number]; item: string }> = [
  { operationId: "listUsers", item: "User" },
  { operationId: "listUserNotes", item: "Note" },
  { operationId: "listGiftCards", item: "GiftCard" },
];

export interface ValuesSeenRow {
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
export const VALUES_SEEN: readonly ValuesSeenRow[] = [
  {
    label: "Product.structure",
    operationId: "createProduct",
    responsePath: ["structure"],
    component: "Product",
    componentPath: ["structure"],
  },
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
  {
    label: "Dispute.status",
    operationId: "getDispute",
    responsePath: ["status"],
    component: "Dispute",
    componentPath: ["status"],
  },
  {
    label: "Dispute.type",
    operationId: "getDispute",
    responsePath: ["type"],
    component: "Dispute",
    componentPath: ["type"],
  },
  {
    label: "User.user_type",
    operationId: "getUser",
    responsePath: ["user_type"],
    component: "User",
    componentPath: ["user_type"],
  },
  {
    label: "Ticket.channel",
    operationId: "createTicketAttachment",
    responsePath: ["channel"],
    component: "Ticket",
    componentPath: ["channel"],
  },
  {
    label: "Ticket.priority",
    operationId: "createTicketAttachment",
    responsePath: ["priority"],
    component: "Ticket",
    componentPath: ["priority"],
  },
  {
    label: "Ticket.status",
    operationId: "createTicketAttachment",
    responsePath: ["status"],
    component: "Ticket",
    componentPath: ["status"],
  },
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
  {
    label: "Subscription.status",
    operationId: "renewSubscription",
    responsePath: ["status"],
    component: "Subscription",
    componentPath: ["status"],
  },
  {
    label: "Gateway.payment_flow",
    operationId: "getGateway",
    responsePath: ["payment_flow"],
    component: "Gateway",
    componentPath: ["payment_flow"],
  },
];

/** Spec 4 (common rules) and 9: the version header. */
export const VERSION_HEADER = "X-Store-API-Version";
export const API_VERSION = "2024-04-01";

/** Contract convention: the bearer security scheme's name. */
export const SECURITY_SCHEME = "storeAdminToken";
