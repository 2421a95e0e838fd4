/**
 * The generator of the operation methods (scripts/generate.ts), on mutations of the contract:
 * a new operation is a new method, a renamed `x-sdk-method` a renamed one, and a name that is
 * missing, malformed, taken twice or in the client's way is refused, naming the operation.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { generateMethods, generateOperations } from "../../scripts/generate.js";

/** generated/operations.ts and generated/operation-facts.ts, as one text. */
const operationsSource = async (doc: Parameters<typeof generateOperations>[0]) =>
  Object.values(await generateOperations(doc)).join("\n");
import { operations } from "../../generated/operation-facts.js";
import { methodTable } from "../../generated/method-table.js";
import { CONTRACT_PATH } from "../../scripts/facts.js";

type Node = Record<string, any>;

const contract = (): Node => parse(readFileSync(CONTRACT_PATH, "utf8")) as Node;
const sample = async (operationId: string) =>
  `import x from "y";\n\nconst store = make({\n});\n\n// the sample of ${operationId}\nawait store.call();\n`;

describe("the method generator", () => {
  it("makes one table row and one documented method per operation of the working contract", async () => {
    const { table, types } = await generateMethods(contract(), sample);
    expect(table.match(/^ {2}\["/gm)).toHaveLength(Object.keys(operations).length);
    expect(table).toContain('["users.addresses.update", "body"], // PUT /users/{id}/addresses/{addressId}/');
    expect(types).toContain("retrieve(id: number, options?: MethodOptions): ResponsePromise<User>;");
    expect(types).toContain("// the sample of getUser");
  });

  it("gives each row of the table the operation of the facts at its place, the one written after the row", () => {
    const written = [
      ...readFileSync("generated/method-table.ts", "utf8").matchAll(/^ {2}\["([^"]+)", "[^"]*"\], \/\/ (.+)$/gm),
    ];
    expect(written).toHaveLength(Object.keys(operations).length);
    expect(methodTable.map(([name, key]) => [name, key])).toEqual(written.map((row) => [row[1], row[2]]));
    expect(methodTable.find(([name]) => name === "users.addresses.update")).toEqual([
      "users.addresses.update",
      "PUT /users/{id}/addresses/{addressId}/",
      "body",
    ]);
  });

  it("a new operation in the contract is a new method, with its resource", async () => {
    const doc = contract();
    doc.paths["/coupons/{code}/"] = {
      get: {
        operationId: "getCoupon",
        "x-sdk-method": "coupons.retrieve",
        summary: "Retrieve a coupon",
        description: "Returns one coupon.\n\nA second paragraph the hover leaves out.",
        tags: ["Gift cards"],
        security: [{ storeAdminToken: ["coupons:read"] }],
        parameters: [
          { name: "code", in: "path", required: true, description: "The coupon code.", schema: { type: "string" } },
        ],
        responses: {
          "200": {
            description: "The coupon.",
            content: { "application/json": { schema: { $ref: "#/components/schemas/GiftCard" } } },
          },
        },
      },
    };
    const { table, types } = await generateMethods(doc, sample);
    expect(table).toContain('["coupons.retrieve", ""], // GET /coupons/{code}/');
    expect(types).toContain("readonly coupons: CouponsMethods;");
    expect(types).toContain("retrieve(code: string, options?: MethodOptions): ResponsePromise<GiftCard>;");
    expect(types).toContain("Requires the scope `coupons:read`.");
    expect(types).toContain("Returns one coupon.");
    expect(types).not.toContain("A second paragraph");
  });

  it("a renamed x-sdk-method renames the method", async () => {
    const doc = contract();
    doc.paths["/disputes/{id}/"].get["x-sdk-method"] = "disputes.get";
    const { table, types } = await generateMethods(doc, sample);
    expect(table).toContain('["disputes.get", ""], // GET /disputes/{id}/');
    expect(table).not.toContain('"disputes.retrieve"');
    expect(types).toContain("get(id: number, options?: MethodOptions): ResponsePromise<Dispute>;");
  });

  const refusals: Array<[string, (doc: Node) => void, RegExp]> = [
    [
      "a name without a resource",
      (d) => (d.paths["/gateways/{id}/"].get["x-sdk-method"] = "retrieve"),
      /#\/paths\/~1gateways~1\{id\}~1\/get\/x-sdk-method: must name the method as resource\.verb/,
    ],
    [
      "a name taken twice",
      (d) => (d.paths["/gateways/{id}/"].get["x-sdk-method"] = "disputes.retrieve"),
      /#\/paths\/~1disputes~1\{id\}~1\/get and #\/paths\/~1gateways~1\{id\}~1\/get both have the method name disputes\.retrieve/,
    ],
    [
      "a name in the client's way",
      (d) => (d.paths["/gateways/{id}/"].get["x-sdk-method"] = "paginate.gateway"),
      /would shadow the client's own paginate/,
    ],
    [
      "a name both a method and a resource",
      (d) => (d.paths["/gateways/{id}/"].get["x-sdk-method"] = "users.retrieve.gateway"),
      /#\/paths\/~1users~1\{id\}~1\/get and #\/paths\/~1gateways~1\{id\}~1\/get: "retrieve" is both a method \(users\.retrieve\) and a resource \(users\.retrieve\.gateway\)/,
    ],
  ];
  for (const [what, mutate, message] of refusals) {
    it(`refuses ${what}, naming the operation`, async () => {
      const doc = contract();
      mutate(doc);
      await expect(generateMethods(doc, sample)).rejects.toThrow(message);
    });
  }

  it("an operation without a hand-written sample gets a generated one; a written one wins", async () => {
    const doc = contract();
    doc.paths["/gateways/{id}/"].get.operationId = "readGateway";
    const samples = async (operationId: string) => (operationId === "readGateway" ? undefined : sample(operationId));
    const { types } = await generateMethods(doc, samples);
    expect(types).toContain("// the sample of getUser");
    // The call right after @example: a // comment carries no contract text (a summary's line break would end it).
    expect(types).toMatch(/@example\n {3}\* const result = await store\.gateways\.retrieve\(\d+\);/);
  });
});

describe("any contract: what the generators derive where the contract says nothing", () => {
  /** A contract of one resource, `widgets`, with every construct under test; `mutate` changes it first. */
  const widgets = (mutate: (doc: Node) => void = () => {}): Node => {
    const doc: Node = {
      openapi: "3.1.0",
      info: { title: "Widgets", version: "1" },
      security: [{ token: ["widgets:read"] }],
      components: {
        securitySchemes: { token: { type: "http", scheme: "bearer" } },
        schemas: {
          "line-item": {
            type: "object",
            required: ["id", "name", "secret"],
            properties: {
              id: { type: "integer", readOnly: true },
              name: { type: "string" },
              secret: { type: "string", writeOnly: true },
            },
          },
        },
      },
      paths: {
        "/widgets/": {
          post: {
            operationId: "createWidget",
            description: "Makes a widget. It is made at once.",
            security: [{ token: ["widgets:write", "audit:write"] }, { token: ["admin"] }],
            parameters: [
              { name: "X-Api-Version", in: "header", required: true, schema: { type: "string", const: "2030-01-01" } },
              { name: "dry_run", in: "query", schema: { type: "boolean" } },
            ],
            requestBody: {
              required: true,
              content: { "application/json": { schema: { $ref: "#/components/schemas/line-item" } } },
            },
            responses: {
              "201": {
                description: "Made.",
                content: { "application/json": { schema: { $ref: "#/components/schemas/line-item" } } },
              },
            },
          },
        },
        "/widgets/{id}/": {
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
          delete: {
            security: [],
            parameters: [
              { name: "X-Api-Version", in: "header", required: true, schema: { type: "string", const: "2030-01-01" } },
            ],
            responses: { "204": { description: "Gone." } },
          },
        },
      },
    };
    mutate(doc);
    return doc;
  };
  const none = async () => undefined;

  it("derives method names from the path, whatever the operationId's word order; x-sdk-method overrides", async () => {
    const { table } = await generateMethods(widgets(), none);
    expect(table).toContain('["widgets.create", "body+query"], // POST /widgets/');
    expect(table).toContain('["widgets.delete", ""], // DELETE /widgets/{id}/');
    const renamed = await generateMethods(
      widgets((d) => (d.paths["/widgets/"].post["x-sdk-method"] = "widgets.make")),
      none,
    );
    expect(renamed.table).toContain('["widgets.make", "body+query"], // POST /widgets/');
  });

  it("types a no-content response as Promise<void>, a shared schema's body without read-only fields, query after the body", async () => {
    const { types } = await generateMethods(widgets(), none);
    expect(types).toContain("delete(id: number, options?: MethodOptions): ResponsePromise<void>;");
    expect(types).toContain(
      "create(body: CreateWidgetBody, query?: CreateWidgetQuery, options?: MethodOptions): ResponsePromise<LineItem>;",
    );
    expect(types).toContain(
      'export type CreateWidgetBody = Writable<NonNullable<operations["createWidget"]["requestBody"]>["content"]["application/json"]>;',
    );
    expect(types).not.toContain("undefined.");
    expect(types).not.toMatch(/\bany\b/);
  });

  it("falls back to the description's first sentence for a summary, and says the security in OpenAPI's terms", async () => {
    const { types } = await generateMethods(widgets(), none);
    expect(types).toContain("   * Makes a widget.\n");
    expect(types).toContain(
      "Requires the scopes `widgets:write` and `audit:write`, or `admin`. `POST /widgets/` (`createWidget`).",
    );
    expect(types).toContain("Requires no authentication. `DELETE /widgets/{id}/`.");
    const operations = await operationsSource(widgets());
    expect(operations).toContain('"POST /widgets/": { scopes: [["widgets:write","audit:write"],["admin"]] }');
    expect(operations).toContain('"DELETE /widgets/{id}/": { scopes: [], noContent: true }');
  });

  it("takes the version header from the contract, declared inline", async () => {
    const operations = await operationsSource(widgets());
    expect(operations).toContain('export const API_VERSION = "2030-01-01";');
    expect(operations).toContain('export const API_VERSION_HEADER = "X-Api-Version";');
  });

  it("maps a schema name that is no identifier to one, and refuses two names that map to one, naming both", async () => {
    const { types } = await generateMethods(widgets(), none);
    expect(types).toContain('import type { LineItem } from "./names.js";');
    const clash = widgets((d) => (d.components.schemas["Line Item"] = { type: "string" }));
    await expect(generateOperations(clash)).rejects.toThrow(
      '"#/components/schemas/line-item" and "#/components/schemas/Line Item" both map to the type name LineItem',
    );
  });

  it("refuses a reference to nothing, naming where it is written, rather than crashing", async () => {
    const dangling = widgets(
      (d) => (d.paths["/widgets/"].post.requestBody = { $ref: "#/components/requestBodies/Missing" }),
    );
    await expect(generateMethods(dangling, none)).rejects.toThrow(
      '#/paths/~1widgets~1/post/requestBody/$ref: "#/components/requestBodies/Missing" refers to nothing in the document.',
    );
  });

  it("refuses a request media type the client cannot send, naming it", async () => {
    const xml = widgets(
      (d) => (d.paths["/widgets/"].post.requestBody.content = { "application/xml": { schema: { type: "string" } } }),
    );
    await expect(generateOperations(xml)).rejects.toThrow(
      '#/paths/~1widgets~1/post/requestBody/content: the request body is offered as "application/xml"',
    );
  });
});

describe("the operations table", () => {
  const paginatedPath = (source: string) => /^export type PaginatedPath = (.*);$/m.exec(source)?.[1];

  it("types the list paths of the working contract as PaginatedPath, the operations marked paginated", async () => {
    const source = await operationsSource(contract());
    expect(paginatedPath(source)).toBe('"/users/" | "/users/{id}/notes/" | "/gift-cards/"');
    expect(source).toContain('"GET /gift-cards/": { scope: "gift_cards:read", paginated: true },');
  });

  it("a new list operation (a cursor, a page of results) is a paginated path; one without a cursor is not", async () => {
    const doc = contract();
    doc.paths["/coupons/"] = {
      get: {
        operationId: "listCoupons",
        security: [{ storeAdminToken: ["coupons:read"] }],
        parameters: [{ $ref: "#/components/parameters/Cursor" }],
        responses: {
          "200": {
            description: "One page of gift cards.",
            content: { "application/json": { schema: { $ref: "#/components/schemas/GiftCardPage" } } },
          },
        },
      },
    };
    doc.paths["/gift-cards/"].get.parameters = doc.paths["/gift-cards/"].get.parameters.filter(
      (p: Node) => p.$ref !== "#/components/parameters/Cursor",
    );
    const source = await operationsSource(doc);
    expect(paginatedPath(source)).toBe('"/users/" | "/users/{id}/notes/" | "/coupons/"');
    expect(source).toContain('"GET /gift-cards/": { scope: "gift_cards:read" },');
  });
});
