/**
 * The generator of the operation methods (scripts/generate.ts), on mutations of the contract:
 * a new operation is a new method, a renamed `x-sdk-method` a renamed one, and a name that is
 * missing, malformed, taken twice or in the client's way is refused, naming the operation.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { generateMethods, generateOperations } from "../../scripts/generate.js";

type Node = Record<string, any>;

const CONTRACT = fileURLToPath(new URL("../../openapi/store-admin.yaml", import.meta.url));
const contract = (): Node => parse(readFileSync(CONTRACT, "utf8")) as Node;
const sample = async (operationId: string) => `import x from "y";\n\nconst store = make({\n});\n\n// the sample of ${operationId}\nawait store.call();\n`;

describe("the method generator", () => {
  it("makes one table row and one documented method per operation of the working contract", async () => {
    const { table, types } = await generateMethods(contract(), sample);
    expect(table.match(/^ {2}\["/gm)).toHaveLength(20);
    expect(table).toContain('["users.addresses.update", "PUT /users/{id}/addresses/{addressId}/", "body"],');
    expect(types).toContain("retrieve(id: number, options?: MethodOptions): ResponsePromise<User>;");
    expect(types).toContain("// the sample of getUser");
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
        parameters: [{ name: "code", in: "path", required: true, description: "The coupon code.", schema: { type: "string" } }],
        responses: { "200": { description: "The coupon.", content: { "application/json": { schema: { $ref: "#/components/schemas/GiftCard" } } } } },
      },
    };
    const { table, types } = await generateMethods(doc, sample);
    expect(table).toContain('["coupons.retrieve", "GET /coupons/{code}/", ""],');
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
    expect(table).toContain('["disputes.get", "GET /disputes/{id}/", ""],');
    expect(table).not.toContain('"disputes.retrieve"');
    expect(types).toContain("get(id: number, options?: MethodOptions): ResponsePromise<Dispute>;");
  });

  const refusals: Array<[string, (doc: Node) => void, RegExp]> = [
    ["a missing name", (d) => delete d.paths["/gateways/{id}/"].get["x-sdk-method"], /GET \/gateways\/\{id\}\/: x-sdk-method must name the method as resource\.verb/],
    ["a name without a resource", (d) => (d.paths["/gateways/{id}/"].get["x-sdk-method"] = "retrieve"), /GET \/gateways\/\{id\}\/: x-sdk-method must name/],
    ["a name taken twice", (d) => (d.paths["/gateways/{id}/"].get["x-sdk-method"] = "disputes.retrieve"), /x-sdk-method disputes\.retrieve names both getDispute and getGateway/],
    ["a name in the client's way", (d) => (d.paths["/gateways/{id}/"].get["x-sdk-method"] = "paginate.gateway"), /would shadow the client's own paginate/],
    ["a name both a method and a resource", (d) => (d.paths["/gateways/{id}/"].get["x-sdk-method"] = "users.retrieve.gateway"), /"retrieve" is both a method and a resource/],
    ["an operation without a sample", (d) => (d.paths["/gateways/{id}/"].get.operationId = "readGateway"), /docs\/samples\/readGateway\.ts is missing/],
  ];
  for (const [what, mutate, message] of refusals) {
    it(`refuses ${what}, naming the operation`, async () => {
      const doc = contract();
      mutate(doc);
      const samples = async (operationId: string) => {
        if (operationId === "readGateway") throw new Error("ENOENT");
        return sample(operationId);
      };
      await expect(generateMethods(doc, samples)).rejects.toThrow(message);
    });
  }
});

describe("the operations table", () => {
  const paginatedPath = (source: string) => /^export type PaginatedPath = (.*);$/m.exec(source)?.[1];

  it("types the list paths of the working contract as PaginatedPath, the operations marked paginated", async () => {
    const source = await generateOperations(contract());
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
        responses: { "200": { description: "One page of gift cards.", content: { "application/json": { schema: { $ref: "#/components/schemas/GiftCardPage" } } } } },
      },
    };
    doc.paths["/gift-cards/"].get.parameters = doc.paths["/gift-cards/"].get.parameters.filter((p: Node) => p.$ref !== "#/components/parameters/Cursor");
    const source = await generateOperations(doc);
    expect(paginatedPath(source)).toBe('"/users/" | "/users/{id}/notes/" | "/coupons/"');
    expect(source).toContain('"GET /gift-cards/": { scope: "gift_cards:read" },');
  });
});
