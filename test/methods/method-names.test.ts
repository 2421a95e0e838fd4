/**
 * The method names derived where a contract has no `x-sdk-method` (scripts/method-names.ts):
 * they follow the URL, whatever the word order of the operationIds. Our own contract with its
 * annotations removed derives the names of the table below (an operation added later may
 * choose any name with `x-sdk-method`); a contract written resource-first
 * (test/methods/resource-first.yaml) and one written as a vendor's real descriptions are
 * (test/methods/vendor.yaml) derive the names a reader of their paths expects; and what
 * cannot be named is refused, on mutated copies, naming the JSON pointers.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { contractModel } from "../../scripts/contract-model.js";
import { generateMethods } from "../../scripts/generate.js";
import { mcpTools } from "../../scripts/generate-mcp.js";
import { loadContract } from "../../scripts/load-contract.js";
import { CONTRACT_PATH } from "../../scripts/facts.js";

type Node = Record<string, any>;

const read = (relative: string): Node =>
  parse(readFileSync(fileURLToPath(new URL(relative, import.meta.url)), "utf8")) as Node;
const OPERATIONS = ["get", "put", "post", "patch", "delete"];

/** Our contract, each operation's `x-sdk-method` removed and returned by `"METHOD /path/"`. */
function stripped(): { doc: Node; annotated: Map<string, string> } {
  const doc = parse(readFileSync(CONTRACT_PATH, "utf8")) as Node;
  const annotated = new Map<string, string>();
  for (const [path, item] of Object.entries<Node>(doc.paths)) {
    for (const method of OPERATIONS.filter((m) => item[m])) {
      annotated.set(`${method.toUpperCase()} ${path}`, item[method]["x-sdk-method"]);
      delete item[method]["x-sdk-method"];
    }
  }
  return { doc, annotated };
}

const namesOf = (doc: Node): Record<string, string> =>
  Object.fromEntries(contractModel(doc).operations.map((op) => [op.key, op.methodName]));

/** The names our contract's operations derive without their `x-sdk-method`: each the name it annotates. */
const OURS: Record<string, string> = {
  "GET /users/": "users.list",
  "GET /users/{id}/": "users.retrieve",
  "PUT /users/{id}/": "users.replace",
  "PATCH /users/{id}/": "users.update",
  "PUT /users/{id}/addresses/{addressId}/": "users.addresses.update",
  "GET /users/{id}/notes/": "users.notes.list",
  "GET /gift-cards/": "giftCards.list",
  "PATCH /gift-cards/{id}/": "giftCards.update",
  "POST /products/": "products.create",
  "GET /products/variants/{id}/": "products.variants.retrieve",
  "POST /products/{id}/images/": "products.images.create",
  "GET /stockrecords/{id}/": "stockRecords.retrieve",
  "GET /disputes/{id}/": "disputes.retrieve",
  "POST /disputes/{id}/notes/": "disputes.notes.create",
  "POST /disputes/{id}/resolve/": "disputes.resolve",
  "GET /gateways/{id}/": "gateways.retrieve",
  "PATCH /orders/{number}/lines/{lineId}/": "orders.lines.update",
  "GET /orders/{number}/fulfillment-orders/": "orders.fulfillmentOrders.list",
  "POST /subscriptions/{id}/renew/": "subscriptions.renew",
  "POST /tickets/attachments/": "tickets.attachments.create",
};

/** The table's operations that `doc` (annotations removed) still has, with the names they derive. */
function derivedOfOurs(doc: Node): Record<string, string> {
  const names = namesOf(doc);
  return Object.fromEntries(
    Object.keys(OURS)
      .filter((key) => key in names)
      .map((key) => [key, names[key]!]),
  );
}

describe("derived method names", () => {
  it("our contract without its x-sdk-method annotations derives the names of its operations' table", () => {
    const { doc, annotated } = stripped();
    const kept = Object.fromEntries(Object.entries(OURS).filter(([key]) => annotated.has(key)));
    expect(Object.keys(kept).length).toBeGreaterThan(0);
    expect(derivedOfOurs(doc)).toEqual(kept);
    // Where the contract still annotates them, it annotates these names.
    expect(Object.fromEntries(Object.keys(kept).map((key) => [key, annotated.get(key)]))).toEqual(kept);
  });

  it("an operation added with an x-sdk-method other than the one it derives keeps its chosen name, and the table still holds", () => {
    const { doc } = stripped();
    const number = { name: "number", in: "path", required: true, schema: { type: "string" } };
    doc.paths["/orders/{number}/fulfill/"] = {
      post: {
        operationId: "fulfillOrder",
        "x-sdk-method": "orders.markFulfilled",
        parameters: [number],
        responses: {
          "200": {
            description: "Done.",
            content: { "application/json": { schema: { $ref: "#/components/schemas/FulfillmentOrder" } } },
          },
        },
      },
    };
    expect(derivedOfOurs(doc)).toEqual(Object.fromEntries(Object.entries(OURS).filter(([key]) => key in namesOf(doc))));
    expect(namesOf(doc)["POST /orders/{number}/fulfill/"]).toBe("orders.markFulfilled");
    const derived = structuredClone(doc);
    delete derived.paths["/orders/{number}/fulfill/"].post["x-sdk-method"];
    expect(namesOf(derived)["POST /orders/{number}/fulfill/"]).toBe("orders.fulfill");
  });

  it("a vendor's description (a collection GET declared as one object, actions beside creations) derives the names a reader expects", () => {
    expect(namesOf(read("./vendor.yaml"))).toEqual({
      "GET /products/{id}/variants/": "products.variants.list",
      "GET /products/variants/{id}/": "products.variants.retrieve",
      "GET /products/{id}/children/": "products.children.list",
      "GET /products/children/{id}/": "products.children.retrieve",
      "GET /orders/{number}/": "orders.retrieve",
      "POST /orders/{number}/fulfill/": "orders.fulfill",
      "POST /users/{id}/avatar/": "users.avatar.create",
      "POST /disputes/{id}/notes/": "disputes.notes.create",
      "GET /shops/{shopId}/settings/": "shops.settings.retrieve",
    });
  });

  it("the operationId's verb words decide before the response, the path's shape before them", () => {
    const doc = read("./vendor.yaml");
    // Neither List nor Retrieve: the response (one object) decides, and two operations are left with one name.
    doc.paths["/products/{id}/variants/"].get.operationId = "productsVariants";
    expect(() => contractModel(doc)).toThrow(
      "#/paths/~1products~1{id}~1variants~1/get and #/paths/~1products~1variants~1{id}~1/get both have the method name products.variants.retrieve; set a different x-sdk-method on one.",
    );
    // An answer that is a list decides then.
    doc.paths["/products/{id}/variants/"].get.responses["200"].content["application/json"].schema = {
      type: "array",
      items: { $ref: "#/components/schemas/ProductVariant" },
    };
    expect(namesOf(doc)["GET /products/{id}/variants/"]).toBe("products.variants.list");
    // On an item, the path decides whatever the operationId says.
    doc.paths["/products/variants/{id}/"].get.operationId = "productsVariantsList";
    expect(namesOf(doc)["GET /products/variants/{id}/"]).toBe("products.variants.retrieve");
  });

  it("refuses the vendor's description without operationIds, naming both operations", () => {
    const doc = read("./vendor.yaml");
    for (const item of Object.values<Node>(doc.paths))
      for (const method of OPERATIONS) delete item[method]?.operationId;
    expect(() => contractModel(doc)).toThrow(
      "#/paths/~1products~1{id}~1variants~1/get and #/paths/~1products~1variants~1{id}~1/get both have the method name products.variants.retrieve; set a different x-sdk-method on one.",
    );
  });

  it("a resource-first contract derives the names its paths read as", async () => {
    const doc = read("./resource-first.yaml");
    expect(namesOf(doc)).toEqual({
      "GET /invoices/": "invoices.list",
      "POST /invoices/": "invoices.create",
      "GET /invoices/{number}/": "invoices.retrieve",
      "PUT /invoices/{number}/": "invoices.replace",
      "PATCH /invoices/{number}/": "invoices.update",
      "DELETE /invoices/{number}/": "invoices.delete",
      "POST /invoices/{number}/void/": "invoices.void",
      "GET /invoices/{number}/line-items/": "invoices.lineItems.list",
      "POST /invoices/{number}/reminders/": "invoices.reminders.create",
      "GET /invoices/{number}/line-items/{lineId}/": "invoices.lineItems.retrieve",
      "GET /shops/{shopId}/settings/": "shops.settings.retrieve",
      "PATCH /shops/{shopId}/settings/": "shops.settings.update",
      "PUT /shops/{shopId}/settings/": "shops.settings.replace",
      "POST /returns/{id}/approval/accept/": "returns.approval.accept",
      "GET /taxrates/{id}/": "taxRates.retrieve",
      "POST /invoices/send-all/": "invoices.sendAll",
    });
    // The generator serves them, `void` included.
    const { table, types } = await generateMethods(doc, async () => undefined);
    expect(table).toContain('["invoices.void", ""], // POST /invoices/{number}/void/');
    expect(types).toContain("void(number: string, options?: MethodOptions): ResponsePromise<Invoice>;");
    // MCP tools are named after the methods.
    expect(mcpTools(doc).map((tool) => tool.name)).toEqual(
      expect.arrayContaining([
        "invoices_void",
        "shops_settings_replace",
        "returns_approval_accept",
        "invoices_sendAll",
      ]),
    );
  });

  it("x-sdk-method still overrides a derived name", () => {
    const doc = read("./resource-first.yaml");
    doc.paths["/invoices/{number}/void/"].post["x-sdk-method"] = "invoices.cancel";
    expect(namesOf(doc)["POST /invoices/{number}/void/"]).toBe("invoices.cancel");
  });

  it("an action is told from a creation by its segment (a verb after an item), else by what it answers: the item above it (by reference, else by name), or no content", () => {
    const doc = read("./resource-first.yaml");
    // Not directly after an item: the item above has no operation of its own, so its segment, singularised, names the schema.
    doc.paths["/returns/{id}/approval/accept/"].post.responses["200"].content["application/json"].schema.$ref =
      "#/components/schemas/Reminder";
    // A verb segment after an item is an action whatever it answers.
    doc.paths["/invoices/{number}/void/"].post.responses["200"] = { $ref: "#/components/responses/ShopSettings" };
    // Without an item above, a POST answering a schema creates.
    doc.paths["/invoices/send-all/"].post.responses = { "200": { $ref: "#/components/responses/Invoice" } };
    // A segment its answer is named after is a thing created, not a verb.
    doc.paths["/invoices/{number}/reminder/"] = structuredClone(doc.paths["/invoices/{number}/reminders/"]);
    doc.paths["/invoices/{number}/reminder/"].post.operationId = "invoicesReminderCreate";
    const names = namesOf(doc);
    expect(names["POST /returns/{id}/approval/accept/"]).toBe("returns.approval.accept.create");
    expect(names["POST /invoices/{number}/void/"]).toBe("invoices.void");
    expect(names["POST /invoices/send-all/"]).toBe("invoices.sendAll.create");
    expect(names["POST /invoices/{number}/reminder/"]).toBe("invoices.reminder.create");
  });

  it("generate prints no note about an earlier naming rule", () => {
    expect(readFileSync(fileURLToPath(new URL("../../scripts/generate.ts", import.meta.url)), "utf8")).not.toMatch(
      /former rule/,
    );
  });
});

describe("what cannot be named is refused, naming where", () => {
  const operation = (summary: string) => ({
    summary,
    parameters: [],
    responses: {
      "200": {
        description: "A gateway.",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Gateway" } } },
      },
    },
  });
  const withPath = (path: string, params: string[]) => (doc: Node) => {
    doc.paths[path] = {
      get: {
        ...operation("Added"),
        parameters: params.map((name) => ({ name, in: "path", required: true, schema: { type: "integer" } })),
      },
    };
  };
  const refusals: Array<[string, (doc: Node) => void, string]> = [
    [
      "two operations deriving one name",
      withPath("/products/{id}/variants/{variantId}/", ["id", "variantId"]),
      "#/paths/~1products~1variants~1{id}~1/get and #/paths/~1products~1{id}~1variants~1{variantId}~1/get both have the method name products.variants.retrieve; set a different x-sdk-method on one.",
    ],
    [
      "a name that is also a resource",
      withPath("/users/{id}/notes/list/", ["id"]),
      '#/paths/~1users~1{id}~1notes~1/get and #/paths/~1users~1{id}~1notes~1list~1/get: "list" is both a method (users.notes.list) and a resource (users.notes.list.retrieve); set a different x-sdk-method on one.',
    ],
    [
      "a segment in the client's way",
      withPath("/paginate/{id}/", ["id"]),
      "#/paths/~1paginate~1{id}~1/get: the method name paginate.retrieve (derived from its path) would shadow the client's own paginate; set another x-sdk-method.",
    ],
    [
      "a segment every object has",
      withPath("/users/{id}/constructor/", ["id"]),
      '#/paths/~1users~1{id}~1constructor~1/get: the method name users.constructor.retrieve (derived from its path) holds "constructor", which every JavaScript object has; set another x-sdk-method.',
    ],
    [
      "a segment that is no name",
      withPath("/2fa/", []),
      '#/paths/~12fa~1/get: no method name can be derived from its path (got "2fa.retrieve"); set x-sdk-method.',
    ],
  ];
  for (const [what, mutate, message] of refusals) {
    it(`refuses ${what}`, () => {
      const { doc } = stripped();
      mutate(doc);
      expect(() => loadContract(stringify(doc, { aliasDuplicateObjects: false }), "mutated.yaml")).toThrow(
        `mutated.yaml is refused: ${message}`,
      );
    });
  }

  it("refuses an x-sdk-method in the client's way, as a derived one", () => {
    const { doc } = stripped();
    doc.paths["/gateways/{id}/"].get["x-sdk-method"] = "use.gateway";
    expect(() => contractModel(doc)).toThrow(
      "#/paths/~1gateways~1{id}~1/get: the method name use.gateway would shadow the client's own use; set another x-sdk-method.",
    );
  });
});
