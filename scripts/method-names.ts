/**
 * The operation methods' names (`store.invoices.lineItems.list`): an operation's
 * `x-sdk-method` when it has one, else a name derived from its URL, as a reader of the path
 * names things (docs/architecture.md, "Mapped"), whatever the word order of its operationId:
 *
 * - Resources are the path's static segments (`/disputes/{id}/notes/` → `disputes.notes`),
 *   camelCased; the operationId only breaks a segment into words (`/stockrecords/` with
 *   `getStockRecord` or `stockRecordsRetrieve` → `stockRecords`).
 * - What the path ends on decides the verb: `GET` is `list` on a collection (a segment with an
 *   item below it, or whose `GET` answers a list or a page) and `retrieve` elsewhere; `PATCH`
 *   `update`; `PUT` `update`, or `replace` where the path also takes `PATCH`; `DELETE`
 *   `delete`; `POST` `create`, except for an action (below), whose segment is the verb
 *   (`POST /disputes/{id}/resolve/` → `disputes.resolve`).
 * - An action is a `POST` on a static segment with no `GET` of its own and nothing below it,
 *   answering no content or the schema of the nearest item above it: by reference where that
 *   item has operations, else by name (its segment singularised: `subscriptions` →
 *   `Subscription`). With no item above, only no content makes an action.
 *
 * Every name, given or derived, is then checked: well formed, not taken twice, not both a
 * method and a resource, not in the client's way; each refusal names the JSON pointers.
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
export const words = (text: string): string[] => text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").split(/[^A-Za-z0-9]+/).filter(Boolean);
export const camel = (parts: string[]): string => parts.map((w, i) => (i === 0 ? w[0]!.toLowerCase() + w.slice(1) : w[0]!.toUpperCase() + w.slice(1))).join("");

/** Keys of the client itself, which a top-level resource must not shadow (`then` would make the client a thenable). */
const CLIENT_KEYS = new Set(["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE", "request", "use", "eject", "paginate", "then"]);
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
    private readonly schemas: SchemaReader,
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

  /** A collection: a static segment with an item below it, or whose `GET` answers a list or a page. */
  isCollection(segments: string[]): boolean {
    const get = this.at(segments).find((op) => op.method === "get");
    return this.below.get(shapeOf(segments)) === true || (get !== undefined && this.answersMany(get.success.schema, `${get.at}/responses/${get.success.status}`, new Set()));
  }

  /** An array (or a `oneOf`/`anyOf` branch that is one), or a page (an object with `results`, as the API's pages have). */
  private answersMany(node: unknown, at: string, seen: Set<object>): boolean {
    if (node === undefined) return false;
    const schema = this.schemas.resolve(node, at);
    if (seen.has(schema)) return false;
    seen.add(schema);
    const type = schema.type;
    if (type === "array" || (Array.isArray(type) && type.includes("array"))) return true;
    if (typeof schema.properties === "object" && schema.properties !== null && "results" in schema.properties) return true;
    return (["allOf", "oneOf", "anyOf"] as const).some((keyword) =>
      (Array.isArray(schema[keyword]) ? (schema[keyword] as unknown[]) : []).some((part, i) => this.answersMany(part, `${at}/${keyword}/${i}`, seen)),
    );
  }

  /**
   * An action: a `POST` on a static segment with no `GET` of its own and nothing below it,
   * answering no content, or the schema of the nearest item above it (by reference when that
   * item has operations, else by its segment singularised).
   */
  isAction(op: OperationModel, segments: string[], idWords: string[]): boolean {
    if (op.method !== "post" || isParam(segments.at(-1)!) || this.below.has(shapeOf(segments))) return false;
    if (this.at(segments).some((other) => other.method === "get")) return false;
    if (!op.success.content) return true;
    const answered = this.schemas.refName(op.success.schema);
    const item = segments.reduce((found, segment, i) => (isParam(segment) ? i : found), -1);
    if (answered === undefined || item === -1) return false;
    const itemOperations = this.at(segments.slice(0, item + 1));
    if (itemOperations.length > 0) return itemOperations.some((other) => this.schemas.refName(other.success.schema) === answered);
    const owner = segments[item - 1];
    const simple = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, "");
    return owner !== undefined && !isParam(owner) && simple(pluralize.singular(segmentName(owner, idWords))) === simple(answered);
  }
}

/** The verb of an operation that is no action, by its HTTP method and where its path ends. */
function verbOf(op: OperationModel, segments: string[], index: PathIndex): string {
  switch (op.method) {
    case "get":
      return !isParam(segments.at(-1) ?? "{}") && index.isCollection(segments) ? "list" : "retrieve";
    case "put":
      return index.at(segments).some((other) => other.method === "patch") ? "replace" : "update";
    case "patch":
      return "update";
    case "post":
      return "create";
    default:
      return op.method;
  }
}

/** The name the URL gives an operation (the rule above). */
function derivedName(op: OperationModel, index: PathIndex): string {
  const segments = segmentsOf(op.path);
  const explicitId = op.operation.operationId;
  const idWords = typeof explicitId === "string" ? words(explicitId) : [];
  const names = segments.filter((s) => !isParam(s)).map((s) => segmentName(s, idWords)).filter(Boolean);
  if (index.isAction(op, segments, idWords) && names.length > 0) {
    const verb = names.pop()!;
    return `${(names.length > 0 ? names : ["api"]).join(".")}.${verb}`;
  }
  return `${(names.length > 0 ? names : ["api"]).join(".")}.${verbOf(op, segments, index)}`;
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
    if (!METHOD_NAME.test(op.methodName)) throw new MethodNameError(`${op.at}: no method name can be derived from its path (got ${JSON.stringify(op.methodName)}); set x-sdk-method.`);
  }
  const byName = new Map<string, OperationModel>();
  const byResource = new Map<string, OperationModel>();
  for (const op of operations) {
    const name = op.methodName;
    const parts = name.split(".");
    const which = `the method name ${name}${derived.has(op) ? " (derived from its path)" : ""}`;
    if (CLIENT_KEYS.has(parts[0]!)) throw new MethodNameError(`${op.at}: ${which} would shadow the client's own ${parts[0]}; set another x-sdk-method.`);
    const common = parts.find((part) => OBJECT_KEYS.has(part));
    if (common !== undefined) throw new MethodNameError(`${op.at}: ${which} holds ${JSON.stringify(common)}, which every JavaScript object has; set another x-sdk-method.`);
    const other = byName.get(name);
    if (other) throw new MethodNameError(`${other.at} and ${op.at} both have the method name ${name}; set a different x-sdk-method on one.`);
    byName.set(name, op);
    for (let i = 1; i < parts.length; i++) if (!byResource.has(parts.slice(0, i).join("."))) byResource.set(parts.slice(0, i).join("."), op);
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

/**
 * The name the former rule gave an operation without `x-sdk-method`: its operationId read
 * verb first (`getWidget` → `widget.get`), or its path and HTTP method. Kept only to tell
 * maintainers which names the URL rule changed ({@link renamedMethods}).
 */
function formerName(op: OperationModel): string {
  const resources = segmentsOf(op.path).filter((s) => !s.startsWith("{")).map((s) => camel(words(s))).filter(Boolean);
  const [verb, ...rest] = typeof op.operation.operationId === "string" ? words(op.operation.operationId) : [];
  if (verb !== undefined) return `${rest.length > 0 ? camel(rest) : (resources[0] ?? "api")}.${camel([verb])}`;
  const onItem = /\}\/?$/.test(op.path);
  const byMethod: Record<string, string> = { get: onItem ? "retrieve" : "list", post: "create", put: "replace", patch: "update", delete: "delete" };
  return `${(resources.length > 0 ? resources : ["api"]).join(".")}.${byMethod[op.method] ?? op.method}`;
}

/** `"GET /widgets/{id}/: widget.get → widgets.retrieve"` for each operation without `x-sdk-method` whose derived name the URL rule changed. */
export function renamedMethods(operations: readonly OperationModel[]): string[] {
  return operations
    .filter((op) => op.operation["x-sdk-method"] === undefined && formerName(op) !== op.methodName)
    .map((op) => `${op.key}: ${formerName(op)} → ${op.methodName}`);
}
