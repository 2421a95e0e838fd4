/**
 * A contract of this API's style with any number of operations, for measuring what each
 * operation costs (scripts/bench/synthetic-build.ts, test/size-per-operation.test.ts).
 *
 * Our own contract's components (the version header, the cursor, the error responses, every
 * schema) are kept; its paths are replaced by resources named from the word lists below, each
 * shaped like ours: a list with filters and a cursor, create, retrieve, update, actions
 * (`POST /invoices/{id}/archive/`) and nested resources (`/invoices/{id}/notes/`,
 * `/invoices/{id}/lines/{lineId}/`), every operation with its `x-sdk-method`, one scope, a
 * response example and a sample. Deterministic: the same count and seed give the same
 * contract, byte for byte.
 *
 *   npx tsx scripts/bench/synthetic-contract.ts --operations 200 [--seed 1] --out DIR
 *     writes DIR/store-admin.yaml and DIR/samples/<operationId>.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";
import type { Json } from "../contract-json.js";

const NOUNS = [
  "invoice",
  "shipment",
  "warehouse",
  "coupon",
  "carrier",
  "supplier",
  "campaign",
  "voucher",
  "bundle",
  "catalog",
  "collection",
  "channel",
  "brand",
  "review",
  "wishlist",
  "cart",
  "checkout",
  "payout",
  "refund",
  "receipt",
  "parcel",
  "pallet",
  "manifest",
  "region",
  "zone",
  "currency",
  "locale",
  "translation",
  "redirect",
  "page",
  "menu",
  "banner",
  "theme",
  "template",
  "webhook",
  "integration",
  "partner",
  "affiliate",
  "reseller",
  "vendor",
  "employee",
  "team",
  "role",
  "permission",
  "session",
  "device",
  "report",
  "export",
  "import",
  "schedule",
  "reminder",
  "quote",
  "estimate",
  "contract",
  "agreement",
  "license",
  "warranty",
  "claim",
  "ticket",
  "survey",
  "badge",
  "reward",
  "point",
  "tier",
  "segment",
  "audience",
  "list",
  "feed",
  "listing",
  "offer",
  "auction",
  "bid",
  "rental",
  "booking",
  "reservation",
  "slot",
  "venue",
  "event",
  "course",
  "lesson",
];
const QUALIFIERS = [
  "tax",
  "shipping",
  "loyalty",
  "price",
  "stock",
  "return",
  "gift",
  "sales",
  "store",
  "customer",
  "product",
  "payment",
];
const CHILDREN = [
  "notes",
  "lines",
  "events",
  "attachments",
  "comments",
  "items",
  "contacts",
  "rules",
  "prices",
  "labels",
  "steps",
  "logs",
];
const ACTIONS = [
  "archive",
  "cancel",
  "approve",
  "refund",
  "resend",
  "close",
  "reopen",
  "publish",
  "verify",
  "duplicate",
];
const FIELDS: Array<[name: string, schema: Json, example: unknown]> = [
  ["status", { type: "string", maxLength: 32 }, "open"],
  ["reference", { type: "string", maxLength: 64 }, "REF-1042"],
  ["amount", { $ref: "#/components/schemas/Decimal" }, "129.90"],
  ["currency", { type: "string", minLength: 3, maxLength: 3 }, "EUR"],
  ["note", { type: "string", maxLength: 2000 }, "Handle with care"],
  ["email", { type: "string", format: "email" }, "ada@example.org"],
  ["quantity", { type: "integer", minimum: 0 }, 3],
  ["is_active", { type: "boolean" }, true],
  ["priority", { type: "integer", minimum: 1, maximum: 5 }, 2],
  ["label", { type: "string", maxLength: 120 }, "Spring"],
  ["code", { type: "string", pattern: "^[A-Z0-9-]+$" }, "SPRING-24"],
  ["external_id", { type: "string" }, "ext_83f1"],
  ["due_date", { type: "string", format: "date" }, "2024-05-01"],
  ["metadata", { $ref: "#/components/schemas/Metadata" }, { source: "pos" }],
  ["tags", { type: "array", items: { type: "string" } }, ["vip"]],
  ["position", { type: "integer" }, 1],
];

/** A small seeded generator (mulberry32): the same seed, the same contract. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const camel = (words: string[]) => words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join("");
const pascal = (words: string[]) => words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
const plural = (word: string) =>
  word.endsWith("y") && !/[aeiou]y$/.test(word)
    ? `${word.slice(0, -1)}ies`
    : word.endsWith("s") || word.endsWith("x")
      ? `${word}es`
      : `${word}s`;

interface SyntheticContract {
  /** The contract as YAML. */
  yaml: string;
  /** One sample per operation, by operationId (`docs/samples/<operationId>.ts`). */
  samples: Record<string, string>;
  /** The number of operations (as asked). */
  operations: number;
}

const SETUP = `import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});
`;

const ERRORS = {
  "401": { $ref: "#/components/responses/Unauthorized" },
  "403": { $ref: "#/components/responses/Forbidden" },
  "429": { $ref: "#/components/responses/TooManyRequests" },
  "5XX": { $ref: "#/components/responses/ServerError" },
};
const NOT_FOUND = { "404": { $ref: "#/components/responses/NotFound" } };
const VERSION = { $ref: "#/components/parameters/ApiVersion" };

/** What a synthetic contract is made in: the random source, the document's maps as they fill, and how many operations are made of how many asked. */
interface Making {
  next: () => number;
  pick: <T>(list: readonly T[]) => T;
  schemas: Json;
  paths: Json;
  tags: Json[];
  samples: Record<string, string>;
  used: Set<string>;
  made: number;
  count: number;
}

/** One resource as its operations name it. */
interface Resource {
  words: string[];
  /** The URL segment (`tax-rates`). */
  segment: string;
  /** The method group (`taxRates`). */
  resource: string;
  /** The schema name (`TaxRate`). */
  Name: string;
  title: string;
  tag: string;
  example: Json;
  body: Json;
}

/** The operation object of a method of `resource` (`x-sdk-method` `<resource>.<method>`). */
type OperationOf = (operationId: string, method: string, summary: string, scope: Json[], extra: Json) => Json;

/** `count` operations of this API's style, from our own contract's components (`base`: its YAML). */
export function syntheticContract(count: number, base: string, seed = 1): SyntheticContract {
  if (!Number.isInteger(count) || count < 1) throw new Error(`--operations must be a whole number ≥ 1, got ${count}`);
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const doc = parse(base) as Json;
  const making: Making = {
    next,
    pick,
    schemas: (doc.components as Json).schemas as Json,
    paths: {},
    tags: [],
    samples: {},
    used: new Set(),
    made: 0,
    count,
  };
  while (making.made < count) addResource(making);
  doc.paths = making.paths;
  doc.tags = making.tags;
  delete doc["x-tagGroups"];
  (doc.info as Json).description =
    `A synthetic contract of ${count} operations in the style of the Store Administration API (scripts/bench/synthetic-contract.ts, seed ${seed}).`;
  return {
    yaml: stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false }),
    samples: making.samples,
    operations: count,
  };
}

/** A resource's schemas (`Invoice`, `InvoiceUpdate`, `InvoicePage`) and an example of it. */
function resourceSchemas(making: Making, name: string, description: string): { example: Json; body: Json } {
  const { next, schemas } = making;
  const fields = [...FIELDS].sort(() => next() - 0.5).slice(0, 4 + Math.floor(next() * 4));
  const properties: Json = {
    id: { type: "integer", readOnly: true, description: `A unique integer identifying the ${description}.` },
  };
  const example: Json = { id: 42 };
  for (const [field, schema, value] of fields) {
    properties[field] = { ...schema, description: `The ${field.replace(/_/g, " ")} of the ${description}.` };
    example[field] = value;
  }
  properties.created_at = { $ref: "#/components/schemas/Timestamp", readOnly: true };
  example.created_at = "2024-03-14T09:26:53Z";
  schemas[name] = { type: "object", description: `A ${description}.`, required: ["id"], properties };
  const writable = Object.fromEntries(
    Object.entries(properties).filter(([field]) => field !== "id" && field !== "created_at"),
  );
  schemas[`${name}Update`] = {
    type: "object",
    description: `The fields of a ${description} that a request sets.`,
    properties: writable,
  };
  schemas[`${name}Page`] = {
    description: `One page of ${description}s.`,
    allOf: [
      { $ref: "#/components/schemas/PageLinks" },
      {
        type: "object",
        required: ["results"],
        properties: { results: { type: "array", items: { $ref: `#/components/schemas/${name}` } } },
      },
    ],
  };
  const { id: _id, created_at: _created, ...body } = example;
  return { example, body };
}

/** Adds an operation and its sample, until `count` are made. */
function addOperation(
  making: Making,
  path: string,
  method: string,
  operation: Json,
  call: string,
  pathParams: Json[],
): void {
  if (making.made >= making.count) return;
  making.made++;
  const item = (making.paths[path] ??= pathParams.length > 0 ? { parameters: pathParams } : {}) as Json;
  item[method] = operation;
  making.samples[operation.operationId as string] = `${SETUP}\n${call}\n`;
}

/** A success response of `schema` with `value` as its example. */
const ok = (status: string, schema: string, value: unknown, description: string) => ({
  [status]: {
    description,
    content: {
      "application/json": { schema: { $ref: `#/components/schemas/${schema}` }, examples: { example: { value } } },
    },
  },
});
/** A required JSON request body of `schema` with `value` as its example. */
const json = (schema: string, value: unknown) => ({
  required: true,
  content: {
    "application/json": { schema: { $ref: `#/components/schemas/${schema}` }, examples: { example: { value } } },
  },
});
const READ = (segment: string) => [{ storeAdminToken: [`${segment}:read`] }];
const WRITE = (segment: string) => [{ storeAdminToken: [`${segment}:write`] }];
/** The `{id}` path parameter of a resource. */
const idParameter = (title: string) => ({
  name: "id",
  in: "path",
  required: true,
  description: `A unique integer identifying the ${title}.`,
  schema: { type: "integer" },
});

/** A new resource (a noun, or a qualified one, `tax-rates` style, never the same twice): its list, create, retrieve, update, actions and nested resources. */
function addResource(making: Making): void {
  const { next, pick, used } = making;
  let words: string[];
  do words = next() < 0.6 ? [pick(NOUNS)] : [pick(QUALIFIERS), pick(NOUNS)];
  while (used.has(words.join("-")));
  used.add(words.join("-"));
  const segment = [...words.slice(0, -1), plural(words.at(-1)!)].join("-");
  const resource = camel([...words.slice(0, -1), plural(words.at(-1)!)]);
  const Name = pascal(words);
  const title = words.join(" ");
  const tag = pascal([...words.slice(0, -1), plural(words.at(-1)!)]);
  making.tags.push({ name: tag, description: `${pascal([title])}s of the store.` });
  const { example, body } = resourceSchemas(making, Name, title);
  const it: Resource = { words, segment, resource, Name, title, tag, example, body };
  const op: OperationOf = (operationId, method, summary, scope, extra) => ({
    operationId,
    "x-sdk-method": `${resource}.${method}`,
    summary,
    description: `${summary}.`,
    tags: [tag],
    security: scope,
    ...extra,
  });
  addOwnOperations(making, it, op);
  // Nested resources: a list and a create under the parent, a retrieve and an update of one.
  for (const child of [...new Set([pick(CHILDREN), pick(CHILDREN)])].slice(0, Math.floor(next() * 3)))
    addChildResource(making, it, op, child);
}

/** A resource's list, create, retrieve, update and one or two actions. */
function addOwnOperations(making: Making, it: Resource, op: OperationOf): void {
  const { next, pick } = making;
  const { words, segment, resource, Name, title, example, body } = it;
  const [read, write, idParam] = [READ(segment), WRITE(segment), idParameter(title)];
  const page = { next: null, previous: null, results: [example] };
  const filter = pick(FIELDS);

  addOperation(
    making,
    `/${segment}/`,
    "get",
    op(`list${pascal([...words.slice(0, -1), plural(words.at(-1)!)])}`, "list", `List ${title}s`, read, {
      parameters: [
        VERSION,
        {
          name: filter[0],
          in: "query",
          description: `Filter by ${filter[0].replace(/_/g, " ")}.`,
          schema: { type: "string" },
        },
        { $ref: "#/components/parameters/Cursor" },
      ],
      responses: { ...ok("200", `${Name}Page`, page, `One page of ${title}s.`), ...ERRORS },
    }),
    `for await (const item of store.${resource}.list()) console.log(item.id);`,
    [],
  );
  addOperation(
    making,
    `/${segment}/`,
    "post",
    op(`create${Name}`, "create", `Create a ${title}`, write, {
      parameters: [VERSION],
      requestBody: json(`${Name}Update`, body),
      responses: { ...ok("201", Name, example, `The ${title} created.`), ...ERRORS },
    }),
    `const created = await store.${resource}.create(${JSON.stringify(body)});\nconsole.log(created.id);`,
    [],
  );
  addOperation(
    making,
    `/${segment}/{id}/`,
    "get",
    op(`get${Name}`, "retrieve", `Retrieve a ${title}`, read, {
      parameters: [VERSION],
      responses: { ...ok("200", Name, example, `The ${title}.`), ...ERRORS, ...NOT_FOUND },
    }),
    `const found = await store.${resource}.retrieve(42);\nconsole.log(found.id);`,
    [idParam],
  );
  addOperation(
    making,
    `/${segment}/{id}/`,
    "patch",
    op(`update${Name}`, "update", `Update a ${title}`, write, {
      parameters: [VERSION],
      requestBody: json(`${Name}Update`, body),
      responses: { ...ok("200", Name, example, `The updated ${title}.`), ...ERRORS, ...NOT_FOUND },
    }),
    `await store.${resource}.update(42, ${JSON.stringify(body)});`,
    [idParam],
  );
  for (const action of [...new Set([pick(ACTIONS), pick(ACTIONS)])].slice(0, 1 + Math.floor(next() * 2))) {
    addOperation(
      making,
      `/${segment}/{id}/${action}/`,
      "post",
      op(`${action}${Name}`, action, `${pascal([action])} a ${title}`, write, {
        parameters: [VERSION],
        requestBody: json(`${Name}Update`, body),
        responses: { ...ok("200", Name, example, `The ${title}, ${action} done.`), ...ERRORS, ...NOT_FOUND },
      }),
      `await store.${resource}.${action}(42, ${JSON.stringify(body)});`,
      [idParam],
    );
  }
}

/** A resource nested under `it` (`/invoices/{id}/lines/`): its list, create, retrieve and update. */
function addChildResource(making: Making, it: Resource, op: OperationOf, child: string): void {
  const { segment, resource, Name, title } = it;
  const [read, write, idParam] = [READ(segment), WRITE(segment), idParameter(title)];
  const single = child.replace(/s$/, "");
  const Child = `${Name}${pascal([single])}`;
  const childTitle = `${title} ${single}`;
  const { example: childExample, body: childBody } = resourceSchemas(making, Child, childTitle);
  const childParam = {
    name: `${single}Id`,
    in: "path",
    required: true,
    description: `A unique integer identifying the ${childTitle}.`,
    schema: { type: "integer" },
  };
  const sub = `${resource}.${child}`;
  const childOp: OperationOf = (operationId, method, summary, scope, extra) => ({
    ...op(operationId, method, summary, scope, extra),
    "x-sdk-method": `${sub}.${method}`,
  });
  addOperation(
    making,
    `/${segment}/{id}/${child}/`,
    "get",
    childOp(`list${Name}${pascal([child])}`, "list", `List a ${title}'s ${child}`, read, {
      parameters: [VERSION, { $ref: "#/components/parameters/Cursor" }],
      responses: {
        ...ok("200", `${Child}Page`, { next: null, previous: null, results: [childExample] }, `One page of ${child}.`),
        ...ERRORS,
        ...NOT_FOUND,
      },
    }),
    `for await (const item of store.${sub}.list(42)) console.log(item.id);`,
    [idParam],
  );
  addOperation(
    making,
    `/${segment}/{id}/${child}/`,
    "post",
    childOp(`create${Child}`, "create", `Add a ${childTitle}`, write, {
      parameters: [VERSION],
      requestBody: json(`${Child}Update`, childBody),
      responses: { ...ok("201", Child, childExample, `The ${childTitle} added.`), ...ERRORS, ...NOT_FOUND },
    }),
    `await store.${sub}.create(42, ${JSON.stringify(childBody)});`,
    [idParam],
  );
  addOperation(
    making,
    `/${segment}/{id}/${child}/{${single}Id}/`,
    "get",
    childOp(`get${Child}`, "retrieve", `Retrieve a ${childTitle}`, read, {
      parameters: [VERSION],
      responses: { ...ok("200", Child, childExample, `The ${childTitle}.`), ...ERRORS, ...NOT_FOUND },
    }),
    `const found = await store.${sub}.retrieve(42, 7);\nconsole.log(found.id);`,
    [idParam, childParam],
  );
  addOperation(
    making,
    `/${segment}/{id}/${child}/{${single}Id}/`,
    "patch",
    childOp(`update${Child}`, "update", `Update a ${childTitle}`, write, {
      parameters: [VERSION],
      requestBody: json(`${Child}Update`, childBody),
      responses: { ...ok("200", Child, childExample, `The updated ${childTitle}.`), ...ERRORS, ...NOT_FOUND },
    }),
    `await store.${sub}.update(42, 7, ${JSON.stringify(childBody)});`,
    [idParam, childParam],
  );
}

/** Writes `dir`/store-admin.yaml and `dir`/samples/<operationId>.ts. */
export function writeSyntheticContract(dir: string, count: number, seed = 1): SyntheticContract {
  const base = readFileSync(fileURLToPath(new URL("../../openapi/store-admin.yaml", import.meta.url)), "utf8");
  const contract = syntheticContract(count, base, seed);
  mkdirSync(join(dir, "samples"), { recursive: true });
  writeFileSync(join(dir, "store-admin.yaml"), contract.yaml);
  for (const [operationId, source] of Object.entries(contract.samples))
    writeFileSync(join(dir, "samples", `${operationId}.ts`), source);
  return contract;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const option = (name: string) => {
    const at = process.argv.indexOf(name);
    return at < 0 ? undefined : process.argv[at + 1];
  };
  const out = option("--out");
  if (!out) throw new Error("usage: synthetic-contract.ts --operations N [--seed S] --out DIR");
  const { operations } = writeSyntheticContract(
    resolve(out),
    Number(option("--operations") ?? 20),
    Number(option("--seed") ?? 1),
  );
  console.log(`${out}/store-admin.yaml: ${operations} operations`);
}
