/**
 * The operation methods' names (`store.invoices.lineItems.list`): an operation's
 * `x-sdk-method` when it has one, else a name derived from its URL, as a reader of the path
 * names things (docs/architecture.md, "Mapped"), whatever the word order of its operationId.
 *
 * Resources are the path's static segments (`/disputes/{id}/notes/` → `disputes.notes`),
 * camelCased; the operationId only breaks a segment into words (`/stockrecords/` with
 * `getStockRecord` or `stockRecordsRetrieve` → `stockRecords`).
 *
 * The verb, in this order of precedence (the first that decides wins):
 *
 * 1. `x-sdk-method`, which may name anything.
 * 2. The path's own shape. On an item (`/users/{id}/`): `GET` `retrieve`, `PATCH` `update`,
 *    `PUT` `update` (`replace` where the path also takes `PATCH`), `DELETE` `delete`. A static
 *    segment with an item below it is a collection: `GET` `list`, `POST` `create`. A verb
 *    segment is an action, whatever it answers: a `POST` on the last segment, directly after
 *    an item, singular, with no `GET` of its own and nothing below it, answering no schema
 *    named after it (`POST /orders/{number}/fulfill/` answering a `FulfillmentOrder` →
 *    `orders.fulfill`; `POST /users/{id}/avatar/` answering an `Avatar` is a creation).
 * 3. The operationId's usual verb words, for a `GET` the path leaves open (a static segment
 *    with no item below): `List` → `list`; `Retrieve` or `Get` → `retrieve`; both or neither
 *    decide nothing (`GET /products/{id}/variants/` answering one object, `productsVariantList`
 *    → `products.variants.list`). A `POST`'s `Create` is not read: some generators append it to
 *    every `POST`, actions included (`invoicesSendAllCreate`).
 * 4. The response, the last word, since real descriptions get shapes wrong: a `GET` answering
 *    an array or a page (an object with `results`) is `list`, else `retrieve`; a `POST` on a
 *    static segment with no `GET` of its own and nothing below it, answering no content or the
 *    schema of the nearest item above it (by reference where that item has operations, else by
 *    name: its segment singularised, `subscriptions` → `Subscription`), is an action
 *    (`POST /returns/{id}/approval/accept/` → `returns.approval.accept`; with no item above,
 *    only no content makes one); any other `POST` is `create`.
 *
 * Every name, given or derived, is then checked: well formed, not taken twice (the refusal
 * names both operations: set `x-sdk-method` on one), not both a method and a resource, not in
 * the client's way; each refusal names the JSON pointers.
 */
import pluralize from "pluralize";
import type { OperationModel } from "./operation-model.js";

type Json = Record<string, unknown>;

/** What the rule reads of the schemas, from scripts/contract-model.ts (which imports this module). */
interface SchemaReader {
  /** `node`, its `$ref` chain followed; `at` names where it is written. */
  resolve(node: unknown, at: string): Json;
  /** The component schema a `$ref` names (`#/components/schemas/Invoice` → `Invoice`), if it names one. */
  refName(node: unknown): string | undefined;
}

/** Thrown for a name that cannot be served; scripts/contract-model.ts wraps it as its ContractError. */
export class MethodNameError extends Error {}

/** A method name: resource path and verb, camelCase words joined by dots (`users.addresses.update`). */
export const METHOD_NAME = /^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)+$/;

/** Words of an identifier: `listWidgets`, `list_widgets`, `list-widgets` → list, widgets. */
export const words = (text: string): string[] =>
  text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
export const camel = (parts: string[]): string =>
  parts.map((w, i) => (i === 0 ? w[0]!.toLowerCase() + w.slice(1) : w[0]!.toUpperCase() + w.slice(1))).join("");

/** Keys of the client itself, which a top-level resource must not shadow (`then` would make the client a thenable). */
const CLIENT_KEYS = new Set([
  "GET",
  "PUT",
  "POST",
  "DELETE",
  "OPTIONS",
  "HEAD",
  "PATCH",
  "TRACE",
  "request",
  "use",
  "eject",
  "paginate",
  "then",
]);
/** Names every JavaScript object has (`constructor`, `toString`, `__proto__`, …), and `prototype`: no resource or verb may take one. */
const OBJECT_KEYS = new Set([...Object.getOwnPropertyNames(Object.prototype), "prototype"]);

const isParam = (segment: string): boolean => segment.includes("{");
const segmentsOf = (path: string): string[] => path.split("/").filter(Boolean);
/** A path's shape: its segments, every parameter as `{}` (`/users/{id}/` and `/users/{userId}/` are one place). */
const shapeOf = (segments: string[]): string => segments.map((s) => (isParam(s) ? "{}" : s)).join("/");

/**
 * One word of a segment, broken where a run of the operationId's words spells it, plural or
 * not (`stockrecords` with stock, record → stock, records); the longest run wins.
 */
function brokenLike(word: string, idWords: string[]): string[] {
  const lower = word.toLowerCase();
  let best: string[] = [word];
  for (let start = 0; start < idWords.length; start++) {
    for (let end = start + 2; end <= idWords.length; end++) {
      const run = idWords.slice(start, end);
      const joined = run.join("").toLowerCase();
      if (end - start <= best.length || pluralize.singular(joined) !== pluralize.singular(lower)) continue;
      const cuts = run.slice(0, -1).map((_, i) => run.slice(0, i + 1).join("").length);
      // The breaks fall where both spell the same letters (they differ at most in the plural ending).
      if (cuts.at(-1)! >= lower.length || lower.slice(0, cuts.at(-1)) !== joined.slice(0, cuts.at(-1))) continue;
      best = [0, ...cuts].map((cut, i) => word.slice(cut, cuts[i] ?? word.length));
    }
  }
  return best;
}

/** A static segment as a name: kebab-case to camelCase, its words broken as the operationId breaks them. */
const segmentName = (segment: string, idWords: string[]): string => {
  const parts = words(segment).flatMap((word) => brokenLike(word, idWords));
  return parts.length > 0 ? camel(parts) : "";
};

/** What the rule knows of every path: its operations by shape, and what lies below each shape. */
class PathIndex {
  private readonly byShape = new Map<string, OperationModel[]>();
  /** Shapes with a path below them; `true` when an item (`{param}`) comes next. */
  private readonly below = new Map<string, boolean>();

  constructor(
    operations: readonly OperationModel[],
    readonly schemas: SchemaReader,
  ) {
    for (const op of operations) {
      const segments = segmentsOf(op.path);
      const shape = shapeOf(segments);
      this.byShape.set(shape, [...(this.byShape.get(shape) ?? []), op]);
      for (let i = 0; i < segments.length; i++) {
        const above = shapeOf(segments.slice(0, i));
        this.below.set(above, (this.below.get(above) ?? false) || isParam(segments[i]!));
      }
    }
  }

  /** The operations on a path of this shape. */
  at(segments: string[]): OperationModel[] {
    return this.byShape.get(shapeOf(segments)) ?? [];
  }

  /** An item comes directly below this path (`/users/` of `/users/{id}/`). */
  hasItemBelow(segments: string[]): boolean {
    return this.below.get(shapeOf(segments)) === true;
  }

  /** A static last segment with no `GET` of its own and nothing below it: where an action may be. */
  isLeafWithoutGet(segments: string[]): boolean {
    return (
      !isParam(segments.at(-1) ?? "{}") &&
      !this.below.has(shapeOf(segments)) &&
      !this.at(segments).some((other) => other.method === "get")
    );
  }

  /** An array (or a `oneOf`/`anyOf`/`allOf` branch that is one), or a page (an object with `results`, as the API's pages have). */
  answersMany(node: unknown, at: string, seen = new Set<object>()): boolean {
    if (node === undefined) return false;
    const schema = this.schemas.resolve(node, at);
    if (seen.has(schema)) return false;
    seen.add(schema);
    const type = schema.type;
    if (type === "array" || (Array.isArray(type) && type.includes("array"))) return true;
    if (typeof schema.properties === "object" && schema.properties !== null && "results" in schema.properties)
      return true;
    return (["allOf", "oneOf", "anyOf"] as const).some((keyword) =>
      (Array.isArray(schema[keyword]) ? (schema[keyword] as unknown[]) : []).some((part, i) =>
        this.answersMany(part, `${at}/${keyword}/${i}`, seen),
      ),
    );
  }

  /** The operation answers the schema of the nearest item above its path: by reference when that item has operations, else by its segment singularised. */
  answersOwner(op: OperationModel, segments: string[], idWords: string[]): boolean {
    const answered = this.schemas.refName(op.success.schema);
    const item = segments.reduce((found, segment, i) => (isParam(segment) ? i : found), -1);
    if (answered === undefined || item === -1) return false;
    const itemOperations = this.at(segments.slice(0, item + 1));
    if (itemOperations.length > 0)
      return itemOperations.some((other) => this.schemas.refName(other.success.schema) === answered);
    const owner = segments[item - 1];
    return (
      owner !== undefined &&
      !isParam(owner) &&
      simple(pluralize.singular(segmentName(owner, idWords))) === simple(answered)
    );
  }
}

const simple = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, "");

/** The schema a `POST` answers is named after its segment (`avatar` answering `Avatar` or `UserAvatar`). */
function namedAfter(answered: string | undefined, segment: string): boolean {
  const own = simple(pluralize.singular(segment));
  return answered !== undefined && own !== "" && simple(answered).endsWith(own);
}

/**
 * A verb segment (rule 2): the last segment of a `POST`, directly after an item, singular,
 * with no `GET` of its own and nothing below it, whose answer is no schema named after it.
 */
function isVerbSegment(op: OperationModel, segments: string[], index: PathIndex): boolean {
  const last = segments.at(-1) ?? "{}";
  if (op.method !== "post" || segments.length < 2 || !isParam(segments.at(-2)!) || !index.isLeafWithoutGet(segments))
    return false;
  const lastWord = words(last).at(-1);
  return (
    lastWord !== undefined &&
    pluralize.isSingular(lastWord) &&
    !namedAfter(index.schemas.refName(op.success.schema), last)
  );
}

/** The verbs the operationId's usual words name for a `GET` (rule 3): one, or none when they say neither or both. */
function idVerb(idWords: string[]): "list" | "retrieve" | undefined {
  const said = new Set(
    idWords
      .map((word) => word.toLowerCase())
      .flatMap((word) => (word === "list" ? ["list"] : word === "retrieve" || word === "get" ? ["retrieve"] : [])),
  );
  return said.size === 1 ? ([...said][0] as "list" | "retrieve") : undefined;
}

/** The verb of an operation, by rules 2 to 4; `action` for a `POST` whose last segment is its verb. */
function verbOf(op: OperationModel, segments: string[], idWords: string[], index: PathIndex): string {
  const onItem = isParam(segments.at(-1) ?? "{}");
  switch (op.method) {
    case "get":
      if (onItem) return "retrieve";
      if (index.hasItemBelow(segments)) return "list";
      return (
        idVerb(idWords) ??
        (index.answersMany(op.success.schema, `${op.at}/responses/${op.success.status}`) ? "list" : "retrieve")
      );
    case "put":
      return index.at(segments).some((other) => other.method === "patch") ? "replace" : "update";
    case "patch":
      return "update";
    case "post":
      if (onItem || index.hasItemBelow(segments)) return "create";
      if (isVerbSegment(op, segments, index)) return "action";
      return index.isLeafWithoutGet(segments) && (!op.success.content || index.answersOwner(op, segments, idWords))
        ? "action"
        : "create";
    default:
      return op.method;
  }
}

/** The name the URL gives an operation (the rule above). */
function derivedName(op: OperationModel, index: PathIndex): string {
  const segments = segmentsOf(op.path);
  const explicitId = op.operation.operationId;
  const idWords = typeof explicitId === "string" ? words(explicitId) : [];
  const names = segments
    .filter((s) => !isParam(s))
    .map((s) => segmentName(s, idWords))
    .filter(Boolean);
  const verb = verbOf(op, segments, idWords, index);
  if (verb === "action" && names.length > 0) {
    const action = names.pop()!;
    return `${(names.length > 0 ? names : ["api"]).join(".")}.${action}`;
  }
  return `${(names.length > 0 ? names : ["api"]).join(".")}.${verb === "action" ? "create" : verb}`;
}

/**
 * Names every operation without one (`methodName` empty: no `x-sdk-method`), then refuses a
 * name that is malformed, taken twice, both a method and a resource, or in the way of the
 * client's own members or of every object's (`constructor`, `prototype`, …).
 */
export function nameMethods(operations: readonly OperationModel[], schemas: SchemaReader): void {
  const index = new PathIndex(operations, schemas);
  const derived = new Set<OperationModel>();
  for (const op of operations) {
    if (op.methodName !== "") continue;
    op.methodName = derivedName(op, index);
    derived.add(op);
    if (!METHOD_NAME.test(op.methodName))
      throw new MethodNameError(
        `${op.at}: no method name can be derived from its path (got ${JSON.stringify(op.methodName)}); set x-sdk-method.`,
      );
  }
  const byName = new Map<string, OperationModel>();
  const byResource = new Map<string, OperationModel>();
  for (const op of operations) {
    const name = op.methodName;
    const parts = name.split(".");
    const which = `the method name ${name}${derived.has(op) ? " (derived from its path)" : ""}`;
    if (CLIENT_KEYS.has(parts[0]!))
      throw new MethodNameError(
        `${op.at}: ${which} would shadow the client's own ${parts[0]}; set another x-sdk-method.`,
      );
    const common = parts.find((part) => OBJECT_KEYS.has(part));
    if (common !== undefined)
      throw new MethodNameError(
        `${op.at}: ${which} holds ${JSON.stringify(common)}, which every JavaScript object has; set another x-sdk-method.`,
      );
    const other = byName.get(name);
    if (other)
      throw new MethodNameError(
        `${other.at} and ${op.at} both have the method name ${name}; set a different x-sdk-method on one.`,
      );
    byName.set(name, op);
    for (let i = 1; i < parts.length; i++)
      if (!byResource.has(parts.slice(0, i).join("."))) byResource.set(parts.slice(0, i).join("."), op);
  }
  for (const op of operations) {
    const resource = byResource.get(op.methodName);
    if (resource) {
      const [first, second] = operations.indexOf(op) < operations.indexOf(resource) ? [op, resource] : [resource, op];
      throw new MethodNameError(
        `${first.at} and ${second.at}: ${JSON.stringify(op.methodName.split(".").at(-1))} is both a method (${op.methodName}) and a resource (${resource.methodName}); set a different x-sdk-method on one.`,
      );
    }
  }
}
