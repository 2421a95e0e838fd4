/**
 * The method names derived where a contract has no `x-sdk-method` (scripts/method-names.ts):
 * they follow the URL, whatever the word order of the operationIds. Our own contract with its
 * annotations removed derives every name it annotates; a contract written resource-first
 * (test/methods/resource-first.yaml) derives the names a reader of its paths expects; and
 * what cannot be named is refused, on mutated copies, naming the JSON pointers.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { contractModel } from "../../scripts/contract-model.js";
import { generateMethods } from "../../scripts/generate.js";
import { mcpTools } from "../../scripts/generate-mcp.js";
import { loadContract } from "../../scripts/load-contract.js";
import { renamedMethods } from "../../scripts/method-names.js";
import { operations } from "../../generated/operation-facts.js";

type Node = Record<string, any>;

const read = (relative: string): Node => parse(readFileSync(fileURLToPath(new URL(relative, import.meta.url)), "utf8")) as Node;
const OPERATIONS = ["get", "put", "post", "patch", "delete"];

/** Our contract, each operation's `x-sdk-method` removed and returned by `"METHOD /path/"`. */
function stripped(): { doc: Node; annotated: Map<string, string> } {
  const doc = read("../../openapi/store-admin.yaml");
  const annotated = new Map<string, string>();
  for (const [path, item] of Object.entries<Node>(doc.paths)) {
    for (const method of OPERATIONS.filter((m) => item[m])) {
      annotated.set(`${method.toUpperCase()} ${path}`, item[method]["x-sdk-method"]);
      delete item[method]["x-sdk-method"];
    }
  }
  return { doc, annotated };
}

const namesOf = (doc: Node): Record<string, string> => Object.fromEntries(contractModel(doc).operations.map((op) => [op.key, op.methodName]));

describe("derived method names", () => {
  it("our contract without its x-sdk-method annotations derives each name it annotates", () => {
    const { doc, annotated } = stripped();
    expect(annotated.size).toBe(Object.keys(operations).length);
    expect([...annotated.values()].every((name) => typeof name === "string")).toBe(true);
    expect(namesOf(doc)).toEqual(Object.fromEntries(annotated));
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
    expect(table).toContain('["invoices.void", "POST /invoices/{number}/void/", ""],');
    expect(types).toContain("void(number: string, options?: MethodOptions): ResponsePromise<Invoice>;");
    // MCP tools are named after the methods.
    expect(mcpTools(doc).map((tool) => tool.name)).toEqual(expect.arrayContaining(["invoices_void", "shops_settings_replace", "returns_approval_accept", "invoices_sendAll"]));
  });

  it("x-sdk-method still overrides a derived name", () => {
    const doc = read("./resource-first.yaml");
    doc.paths["/invoices/{number}/void/"].post["x-sdk-method"] = "invoices.cancel";
    expect(namesOf(doc)["POST /invoices/{number}/void/"]).toBe("invoices.cancel");
  });

  it("an action is told from a creation by what it answers: the item above it (by reference, else by name), or no content", () => {
    const doc = read("./resource-first.yaml");
    // The item above has no operation of its own: its segment, singularised, names the schema.
    doc.paths["/returns/{id}/approval/accept/"].post.responses["200"].content["application/json"].schema.$ref = "#/components/schemas/Reminder";
    // The item above answers Invoice: a POST answering something else creates.
    doc.paths["/invoices/{number}/void/"].post.responses["200"] = { $ref: "#/components/responses/ShopSettings" };
    // Without an item above, a POST answering a schema creates.
    doc.paths["/invoices/send-all/"].post.responses = { "200": { $ref: "#/components/responses/Invoice" } };
    const names = namesOf(doc);
    expect(names["POST /returns/{id}/approval/accept/"]).toBe("returns.approval.accept.create");
    expect(names["POST /invoices/{number}/void/"]).toBe("invoices.void.create");
    expect(names["POST /invoices/send-all/"]).toBe("invoices.sendAll.create");
  });

  it("says which derived names the rule changed, old → new, for operations without x-sdk-method", () => {
    const kitchenSink = contractModel(read("../kitchen-sink/kitchen-sink.yaml"));
    expect(renamedMethods(kitchenSink.operations)).toEqual([
      "GET /widgets/{id}/: widget.get → widgets.retrieve",
      "PUT /preferences/: preferences.set → preferences.update",
      "GET /status/: status.get → status.retrieve",
    ]);
    expect(renamedMethods(contractModel(read("../../openapi/store-admin.yaml")).operations)).toEqual([]);
  });
});

describe("what cannot be named is refused, naming where", () => {
  const operation = (summary: string) => ({
    summary,
    parameters: [],
    responses: { "200": { description: "A gateway.", content: { "application/json": { schema: { $ref: "#/components/schemas/Gateway" } } } } },
  });
  const withPath = (path: string, params: string[]) => (doc: Node) => {
    doc.paths[path] = { get: { ...operation("Added"), parameters: params.map((name) => ({ name, in: "path", required: true, schema: { type: "integer" } })) } };
  };
  const refusals: Array<[string, (doc: Node) => void, string]> = [
    [
      "two operations deriving one name",
      withPath("/products/{id}/variants/{variantId}/", ["id", "variantId"]),
      '#/paths/~1products~1variants~1{id}~1/get and #/paths/~1products~1{id}~1variants~1{variantId}~1/get both have the method name products.variants.retrieve; set a different x-sdk-method on one.',
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
    ["a segment that is no name", withPath("/2fa/", []), "#/paths/~12fa~1/get: no method name can be derived from its path (got \"2fa.retrieve\"); set x-sdk-method."],
  ];
  for (const [what, mutate, message] of refusals) {
    it(`refuses ${what}`, () => {
      const { doc } = stripped();
      mutate(doc);
      expect(() => loadContract(stringify(doc, { aliasDuplicateObjects: false }), "mutated.yaml")).toThrow(`mutated.yaml is refused: ${message}`);
    });
  }

  it("refuses an x-sdk-method in the client's way, as a derived one", () => {
    const { doc } = stripped();
    doc.paths["/gateways/{id}/"].get["x-sdk-method"] = "use.gateway";
    expect(() => contractModel(doc)).toThrow("#/paths/~1gateways~1{id}~1/get: the method name use.gateway would shadow the client's own use; set another x-sdk-method.");
  });
});
