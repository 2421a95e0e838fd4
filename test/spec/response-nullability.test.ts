/**
 * The contract's rule for responses (info.description, "Nullability and required fields in
 * responses"): identifiers (`id` on every object that has one, `number` on Order) are
 * required; every other response property may be `null`, and so may every scalar item of a
 * response array; nothing else is required (a page's `results` aside). Requests stay strict.
 *
 * `responseProblems()` walks every response schema of every operation and lists each place
 * that breaks the rule, by schema and property; the self-checks at the end show that it
 * reports a damaged copy of the document, so the test on the real one can fail.
 */
import { describe, expect, it } from "vitest";
import { HTTP_METHODS, isNode, loadOpenApiDoc, type Node, type OpenApiDoc } from "./openapi-doc.js";

const SCALARS = new Set(["string", "integer", "number", "boolean"]);
/** Required properties that are not identifiers: the list of a page. */
const REQUIRED_ENVELOPE = new Set(["results"]);

/** The component name a `$ref` points at (`#/components/schemas/User` → `User`). */
function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf("/") + 1);
}

/** Whether a schema admits `null` (through `$ref`, a type list, an enum, or a branch of anyOf/oneOf). */
function allowsNull(doc: OpenApiDoc, schema: unknown, depth = 0): boolean {
  if (!isNode(schema) || depth > 20) return false;
  if (typeof schema.$ref === "string") return allowsNull(doc, doc.resolveRef(schema.$ref), depth + 1);
  const type = schema.type;
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.some((branch) => allowsNull(doc, branch, depth + 1))) return true;
  }
  // No type and no combinator: any JSON value, null included.
  return (
    type === undefined &&
    !("allOf" in schema) &&
    !("anyOf" in schema) &&
    !("oneOf" in schema) &&
    !("const" in schema) &&
    !("enum" in schema)
  );
}

/** Whether a schema is a scalar (string, integer, number, boolean; null aside). */
function isScalar(doc: OpenApiDoc, schema: unknown): boolean {
  if (!isNode(schema)) return false;
  if (typeof schema.$ref === "string") return isScalar(doc, doc.resolveRef(schema.$ref));
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(
    (t) => t !== "null" && t !== undefined,
  );
  if (types.length > 0) return types.every((t) => SCALARS.has(t as string));
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) return branches.every((branch) => isScalar(doc, branch) || allowsNull(doc, branch));
  }
  return false;
}

interface Walk {
  doc: OpenApiDoc;
  problems: string[];
  /** Named schemas already checked (each once: they are the same wherever they appear). */
  seen: Set<string>;
  /** How many properties and identifiers were checked, so a test can see the walk did something. */
  counts: { properties: number; identifiers: number };
}

/** Checks one schema found at `where`; `owner` is the component it belongs to (for `number` on Order). */
function walkSchema(walk: Walk, schema: unknown, where: string, owner: string): void {
  if (!isNode(schema)) return;
  if (typeof schema.$ref === "string") {
    const name = refName(schema.$ref);
    if (walk.seen.has(name)) return;
    walk.seen.add(name);
    walkSchema(walk, walk.doc.resolveRef(schema.$ref), name, name);
    return;
  }
  for (const key of ["allOf", "anyOf", "oneOf"] as const) {
    const parts = schema[key];
    if (Array.isArray(parts)) parts.forEach((part, i) => walkSchema(walk, part, `${where}/${key}[${i}]`, owner));
  }
  if (isNode(schema.items)) {
    if (isScalar(walk.doc, schema.items)) {
      if (!allowsNull(walk.doc, schema.items))
        walk.problems.push(`${where}[]: a scalar item of a response array must allow null`);
    } else walkSchema(walk, schema.items, `${where}[]`, owner);
  }
  if (!isNode(schema.properties)) return;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  for (const [name, property] of Object.entries(schema.properties)) {
    const at = `${where}.${name}`;
    const identifier = name === "id" || (owner === "Order" && name === "number");
    if (identifier) {
      walk.counts.identifiers += 1;
      if (!required.has(name)) walk.problems.push(`${at}: an identifier must be required in responses`);
      if (allowsNull(walk.doc, property)) walk.problems.push(`${at}: an identifier must not be null`);
    } else {
      walk.counts.properties += 1;
      if (required.has(name) && !REQUIRED_ENVELOPE.has(name))
        walk.problems.push(`${at}: only identifiers are required in responses`);
      if (!required.has(name) && !allowsNull(walk.doc, property))
        walk.problems.push(`${at}: a response property must allow null`);
    }
    walkSchema(walk, property, at, owner);
  }
}

/** Every breach of the response rule in `doc`, plus how much was checked. */
function responseProblems(doc: OpenApiDoc): { problems: string[]; counts: Walk["counts"] } {
  const walk: Walk = { doc, problems: [], seen: new Set(), counts: { properties: 0, identifiers: 0 } };
  const paths = doc.raw.paths as Record<string, Node>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isNode(operation) || !isNode(operation.responses)) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        const resolved = doc.resolve(response);
        if (!isNode(resolved) || !isNode(resolved.content)) continue;
        for (const media of Object.values(resolved.content)) {
          if (isNode(media)) walkSchema(walk, media.schema, `${method.toUpperCase()} ${path} ${status}`, "");
        }
      }
    }
  }
  return { problems: walk.problems, counts: walk.counts };
}

/** The schema node of a component, for the mutations below. */
function schemaOf(doc: OpenApiDoc, name: string): Node {
  const schema = (doc.raw.components as { schemas: Record<string, Node> }).schemas[name];
  if (!schema) throw new Error(`no schema ${name}`);
  return schema;
}
function propertyOf(doc: OpenApiDoc, schema: string, property: string): Node {
  return (schemaOf(doc, schema).properties as Record<string, Node>)[property]!;
}

describe("response schemas: identifiers required, everything else nullable", () => {
  const doc = loadOpenApiDoc();

  it("no response property, array item or identifier breaks the rule", () => {
    const { problems, counts } = responseProblems(doc);
    expect(problems).toEqual([]);
    // The walk reached the resources: hundreds of properties, every resource's id.
    expect(counts.properties).toBeGreaterThan(300);
    expect(counts.identifiers).toBeGreaterThan(25);
  });

  it("the sample of the issue is nullable: guest emails, tags, stock counters, comments, disputes, variants, attribution", () => {
    const nullable: Array<[string, string]> = [
      ["UserSummary", "email"],
      ["StockRecord", "num_allocated"],
      ["StockRecord", "num_in_stock"],
      ["Comment", "body"],
      ["Comment", "author"],
      ["Dispute", "order"],
      ["Dispute", "report_currency"],
      ["Variant", "sku"],
      ["Variant", "upc"],
      ["Attribution", "utm_source"],
    ];
    for (const [schema, property] of nullable)
      expect(allowsNull(doc, propertyOf(doc, schema, property)), `${schema}.${property}`).toBe(true);
    expect(allowsNull(doc, propertyOf(doc, "Ticket", "tags").items as Node), "Ticket.tags[]").toBe(true);
    expect(
      allowsNull(doc, propertyOf(doc, "Product", "interval_counts").items as Node),
      "Product.interval_counts[]",
    ).toBe(true);
    expect(schemaOf(doc, "Order").required).toEqual(["number"]);
  });

  it("request bodies stay strict: no null where the specification names none", () => {
    for (const [schema, property] of [
      ["UserUpdate", "email"],
      ["UserUpdate", "first_name"],
      ["AddressUpdate", "line1"],
      ["ProductCreate", "title"],
      ["ProductCreateVariant", "sku"],
      ["DisputeNoteCreate", "message"],
      ["OrderLineUpdate", "quantity"],
    ] as const) {
      expect(allowsNull(doc, propertyOf(doc, schema, property)), `${schema}.${property}`).toBe(false);
    }
    // The product create request has request forms of its own, not the nullable response schemas.
    const items = (name: string) => (propertyOf(doc, "ProductCreate", name).items as Node).$ref;
    expect([items("variants"), items("variant_attributes"), items("categories")]).toEqual([
      "#/components/schemas/ProductCreateVariant",
      "#/components/schemas/ProductCreateVariantAttribute",
      "#/components/schemas/ProductCreateCategory",
    ]);
  });
});

describe("self-check: responseProblems() reports a damaged copy", () => {
  const doc = loadOpenApiDoc();

  it("a response property that loses its null", () => {
    const damaged = doc.clone();
    propertyOf(damaged, "User", "email").type = "string";
    expect(responseProblems(damaged).problems).toEqual(["User.email: a response property must allow null"]);
  });

  it("a property reached through $ref that loses its null", () => {
    const damaged = doc.clone();
    propertyOf(damaged, "GiftCard", "balance").anyOf = [{ $ref: "#/components/schemas/Decimal" }];
    expect(responseProblems(damaged).problems).toEqual(["GiftCard.balance: a response property must allow null"]);
  });

  it("a scalar array item that loses its null", () => {
    const damaged = doc.clone();
    (propertyOf(damaged, "Ticket", "tags").items as Node).type = "string";
    expect(responseProblems(damaged).problems).toEqual([
      "Ticket.tags[]: a scalar item of a response array must allow null",
    ]);
  });

  it("an identifier that loses required, on a resource and on an embedded object", () => {
    const damaged = doc.clone();
    delete schemaOf(damaged, "Dispute").required;
    schemaOf(damaged, "Order").required = [];
    const stock = propertyOf(damaged, "Variant", "stockrecords").items as Node;
    stock.required = [];
    expect(responseProblems(damaged).problems.sort()).toEqual([
      "Dispute.id: an identifier must be required in responses",
      "Order.number: an identifier must be required in responses",
      "Variant.stockrecords[].id: an identifier must be required in responses",
    ]);
  });

  it("a property other than an identifier made required", () => {
    const damaged = doc.clone();
    schemaOf(damaged, "User").required = ["id", "email"];
    expect(responseProblems(damaged).problems).toEqual(["User.email: only identifiers are required in responses"]);
  });
});
