/**
 * The structural diff of two contracts, operation by operation.
 *
 * Each operation's parameters, request body and responses are walked in both documents at
 * once, `$ref`s followed, so a change inside a shared component is reported once for every
 * operation that uses it, with the direction it has there (see kinds.ts). `location` is
 * where the change is written (the head document's pointer, or the base's for a removal);
 * `field` is where a caller meets it (`body.email`, `params.query.cursor`,
 * `data.addresses[].line1`, `error.title`: the names a caller's code uses, `data` and `error`
 * being what the client's call returns), which is also how the compile probe names
 * its lines.
 */
import {
  child,
  deref,
  fieldPath,
  isNode,
  isSuccess,
  objectView,
  operations,
  parameters,
  typesOf,
  type At,
  type Node,
  type Operation,
} from "./document.js";
import { bumpOf, maxBump, type Bump, type Direction, type Kind } from "./kinds.js";
import { contractModel } from "../contract-model.js";

/** What `objectView` sees of an object schema: its properties, the required ones, `additionalProperties`. */
type ObjectView = ReturnType<typeof objectView>;

export interface Change {
  /** `"METHOD /path/"`, or null for a change in a component no operation uses. */
  operation: string | null;
  /** JSON pointer to where the change is written (head document; base document for removals). */
  location: string;
  kind: Kind;
  breaking: boolean;
  /** Set by the compile probe (probe.ts). */
  typeBreak: boolean;
  message: string;
  /** Where a caller meets the change: `""` (the call), `params.query.x`, `body.x`, `data.x`, `error.x`. */
  field: string;
  direction: Direction;
  bump: Bump;
}

/** Keywords that only document: a change in them never changes what is valid. */
/** The extension that names an operation's method (`store.users.retrieve`); renaming it breaks callers. */
const SDK_METHOD = "x-sdk-method";
const DOC_KEYWORDS = new Set([
  "description",
  "summary",
  "title",
  "example",
  "examples",
  "externalDocs",
  "deprecated",
  "x-codeSamples",
  "tags",
  "operationId",
  "$comment",
]);

/** Upper and lower bounds: [keyword, which way is tighter]. */
const LIMITS: ReadonlyArray<[string, "max" | "min"]> = [
  ["maxLength", "max"],
  ["maximum", "max"],
  ["exclusiveMaximum", "max"],
  ["maxItems", "max"],
  ["maxProperties", "max"],
  ["minLength", "min"],
  ["minimum", "min"],
  ["exclusiveMinimum", "min"],
  ["minItems", "min"],
  ["minProperties", "min"],
];

/** Keywords whose appearance or change may refuse values that were valid. */
const CONSTRAINTS = ["pattern", "format", "multipleOf", "uniqueItems", "contentMediaType"] as const;

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Each operation's method name (`"GET /users/{id}/"` → `users.retrieve`) as the generators
 * name it: `x-sdk-method`, else derived from the URL (scripts/method-names.ts). Undefined when
 * the generators refuse the contract; the diff then compares the `x-sdk-method`s as written.
 */
function methodNames(doc: Node): Map<string, string> | undefined {
  try {
    return new Map(contractModel(doc).operations.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op.methodName]));
  } catch {
    return undefined;
  }
}
const show = (values: unknown[]): string => values.map((v) => JSON.stringify(v)).join(", ");

/** Keywords that may sit beside the `anyOf`/`oneOf` of a nullable wrapper without making it more than one. */
const isWrapperKeyword = (key: string): boolean =>
  DOC_KEYWORDS.has(key) || key.startsWith("x-") || key === "readOnly" || key === "writeOnly";

/** A schema that admits null and nothing else: `{type: "null"}`, `type: ["null"]`, `enum: [null]`, `const: null`. */
function isNullOnly(node: Node): boolean {
  const types = typesOf(node);
  if (types.length > 0) return types.every((t) => t === "null");
  if (Array.isArray(node.enum)) return node.enum.length > 0 && node.enum.every((v) => v === null);
  return "const" in node && node.const === null;
}

/** Does the schema itself (not through `anyOf`/`oneOf`) admit null? */
function admitsNull(node: Node): boolean {
  if (Array.isArray(node.enum)) return node.enum.includes(null);
  if ("const" in node) return node.const === null;
  return typesOf(node).includes("null");
}

/**
 * A schema made nullable the OpenAPI 3.1 way: `anyOf` (or `oneOf`) of some schema S and a
 * null-only schema, with nothing beside it but documentation and readOnly/writeOnly. Its
 * `core` is S, where S is written (the pointer of the branch), and `combinator` says which
 * keyword holds the two branches.
 */
interface Nullable {
  core: At;
  combinator: "anyOf" | "oneOf";
}

function nullableWrapper(doc: Node, schema: At): Nullable | undefined {
  const present = (["anyOf", "oneOf"] as const).filter((c) => c in schema.node);
  if (present.length !== 1) return undefined;
  const combinator = present[0] as "anyOf" | "oneOf";
  const branches = schema.node[combinator];
  if (!Array.isArray(branches) || branches.length !== 2) return undefined;
  if (Object.keys(schema.node).some((k) => k !== combinator && !isWrapperKeyword(k))) return undefined;
  const isNull = branches.map((branch, i) => isNullOnly(deref(doc, branch, child(schema.ptr, combinator, i)).node));
  if (isNull[0] === isNull[1]) return undefined;
  const index = isNull[0] ? 1 : 0;
  return { core: { node: branches[index] as Node, ptr: child(schema.ptr, combinator, index) }, combinator };
}

/** Every `$ref` reached from `node`, following each once (a component's own references included). */
function refsReached(doc: Node, node: unknown, reached: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) refsReached(doc, item, reached);
    return;
  }
  if (!isNode(node)) return;
  if (typeof node.$ref === "string" && node.$ref.startsWith("#") && !reached.has(node.$ref)) {
    reached.add(node.$ref);
    refsReached(doc, deref(doc, node, node.$ref).node, reached);
  }
  for (const [key, value] of Object.entries(node)) if (key !== "$ref") refsReached(doc, value, reached);
}

/**
 * What uses each component schema in `doc`, by its pointer: "the request body of POST /x/",
 * "the responses of GET /x/", "the parameters of GET /x/" (directly or through other components).
 */
function componentUses(doc: Node): Map<string, string[]> {
  const uses = new Map<string, string[]>();
  for (const [key, operation] of operations(doc)) {
    const parts: Array<[string, unknown]> = [
      ["the request body", operation.op.node.requestBody],
      ["the responses", operation.op.node.responses],
      ["the parameters", [operation.pathItem.node.parameters, operation.op.node.parameters]],
    ];
    for (const [part, node] of parts) {
      const reached = new Set<string>();
      refsReached(doc, node, reached);
      for (const ref of reached)
        if (/^#\/components\/schemas\/[^/]+$/.test(ref)) uses.set(ref, [...(uses.get(ref) ?? []), `${part} of ${key}`]);
    }
  }
  return uses;
}

class Differ {
  readonly changes: Change[] = [];
  /** Pointers of schemas reached from some operation, per document (to find unused components). */
  readonly usedBase = new Set<string>();
  readonly usedHead = new Set<string>();
  private operation: string | null = null;
  private used = true;
  private visiting = new Set<string>();

  /** Each side's method names, as the generators give them (see {@link methodNames}). */
  private readonly names: { base: Map<string, string> | undefined; head: Map<string, string> | undefined };

  constructor(
    readonly base: Node,
    readonly head: Node,
  ) {
    this.names = { base: methodNames(base), head: methodNames(head) };
  }

  add(kind: Kind, location: string, field: string, direction: Direction, message: string): void {
    const bump = bumpOf(kind, direction, this.used);
    const duplicate = this.changes.some(
      (c) => c.operation === this.operation && c.location === location && c.kind === kind && c.field === field,
    );
    if (duplicate) return;
    this.changes.push({
      operation: this.operation,
      location,
      kind,
      breaking: bump === "major",
      typeBreak: false,
      message,
      field,
      direction,
      bump,
    });
  }

  run(): Change[] {
    const baseOps = operations(this.base);
    const headOps = operations(this.head);
    for (const [key, b] of baseOps) {
      this.operation = key;
      const h = headOps.get(key);
      if (h === undefined) this.add("operation-removed", b.op.ptr, "", "request", `${key} was removed.`);
      else this.compareOperation(b, h);
    }
    for (const [key, h] of headOps) {
      if (baseOps.has(key)) continue;
      this.operation = key;
      this.add("operation-added", h.op.ptr, "", "request", `${key} was added.`);
    }
    this.compareUnusedComponents();
    this.compareTopLevel();
    return this.changes;
  }

  private compareOperation(b: Operation, h: Operation): void {
    this.compareDocs(b.op, h.op, "", "request");
    // The name a caller uses: `x-sdk-method`, else the one the URL gives; an annotation that
    // states the derived name changes nothing, and a derived name that moves is a rename.
    const [wasNamed, isNamed] = [
      this.names.base?.get(b.key) ?? b.op.node[SDK_METHOD],
      this.names.head?.get(h.key) ?? h.op.node[SDK_METHOD],
    ];
    const where = h.op.node[SDK_METHOD] === undefined ? h.op.ptr : child(h.op.ptr, SDK_METHOD);
    if (wasNamed !== undefined && !same(wasNamed, isNamed)) {
      const derived =
        h.op.node[SDK_METHOD] === undefined
          ? ` (derived from its URL: set \`x-sdk-method: ${String(wasNamed)}\` to keep the old name)`
          : "";
      const now = isNamed === undefined ? "has no method any more" : `is now \`store.${String(isNamed)}()\`${derived}`;
      this.add(
        "method-renamed",
        where,
        "",
        "request",
        `The method \`store.${String(wasNamed)}()\` of ${b.key} ${now}.`,
      );
    }
    if (wasNamed === undefined && isNamed !== undefined) {
      this.add("method-added", where, "", "request", `Callable as \`store.${String(isNamed)}()\`.`);
    }
    const security = (op: Operation, doc: Node): unknown => op.op.node.security ?? doc.security;
    if (!same(security(b, this.base), security(h, this.head))) {
      this.add(
        "security-changed",
        child(h.op.ptr, "security"),
        "",
        "request",
        `${b.key} requires other scopes: ${JSON.stringify(security(h, this.head))} (was ${JSON.stringify(security(b, this.base))}).`,
      );
    }
    this.compareParameters(b, h);
    this.compareRequestBody(b, h);
    this.compareResponses(b, h);
  }

  private compareParameters(b: Operation, h: Operation): void {
    const baseParams = parameters(this.base, b);
    const headParams = parameters(this.head, h);
    for (const [key, bp] of baseParams) {
      const [where, name] = [String(bp.node.in), String(bp.node.name)];
      const field = `params.${where}.${name}`;
      const hp = headParams.get(key);
      if (hp === undefined) {
        this.add("parameter-removed", bp.ptr, field, "request", `The ${where} parameter \`${name}\` was removed.`);
        continue;
      }
      const [wasRequired, isRequired] = [bp.node.required === true, hp.node.required === true];
      if (!wasRequired && isRequired)
        this.add(
          "parameter-made-required",
          child(hp.ptr, "required"),
          field,
          "request",
          `The ${where} parameter \`${name}\` is now required.`,
        );
      if (wasRequired && !isRequired)
        this.add(
          "parameter-made-optional",
          child(hp.ptr, "required"),
          field,
          "request",
          `The ${where} parameter \`${name}\` is now optional.`,
        );
      this.compareDocs(bp, hp, field, "request");
      this.compareSchema(
        deref(this.base, bp.node.schema, child(bp.ptr, "schema")),
        deref(this.head, hp.node.schema, child(hp.ptr, "schema")),
        field,
        "request",
      );
    }
    for (const [key, hp] of headParams) {
      if (baseParams.has(key)) continue;
      const [where, name] = [String(hp.node.in), String(hp.node.name)];
      const required = hp.node.required === true;
      this.add(
        required ? "parameter-added-required" : "parameter-added",
        hp.ptr,
        `params.${where}.${name}`,
        "request",
        `A${required ? " required" : "n optional"} ${where} parameter \`${name}\` was added.`,
      );
    }
  }

  private compareRequestBody(b: Operation, h: Operation): void {
    const hasBase = b.op.node.requestBody !== undefined;
    const hasHead = h.op.node.requestBody !== undefined;
    if (!hasBase && !hasHead) return;
    const bb = hasBase ? deref(this.base, b.op.node.requestBody, child(b.op.ptr, "requestBody")) : undefined;
    const hb = hasHead ? deref(this.head, h.op.node.requestBody, child(h.op.ptr, "requestBody")) : undefined;
    if (bb === undefined && hb !== undefined) {
      const required = hb.node.required === true;
      this.add(
        required ? "request-body-added-required" : "request-body-added",
        hb.ptr,
        "body",
        "request",
        `A${required ? " required" : "n optional"} request body was added.`,
      );
      return;
    }
    if (bb !== undefined && hb === undefined) {
      this.add("request-body-removed", bb.ptr, "body", "request", "The request body was removed.");
      return;
    }
    if (bb === undefined || hb === undefined) return;
    const [wasRequired, isRequired] = [bb.node.required === true, hb.node.required === true];
    if (!wasRequired && isRequired)
      this.add(
        "request-body-made-required",
        child(hb.ptr, "required"),
        "body",
        "request",
        "The request body is now required.",
      );
    if (wasRequired && !isRequired)
      this.add(
        "request-body-made-optional",
        child(hb.ptr, "required"),
        "body",
        "request",
        "The request body is now optional.",
      );
    this.compareDocs(bb, hb, "body", "request");
    this.compareContent(bb, hb, "body", "request");
  }

  /** The media types of a request body or a response: added, removed, and the schema of each kept one. */
  private compareContent(b: At, h: At, field: string, direction: Direction): void {
    const bc = isNode(b.node.content) ? b.node.content : {};
    const hc = isNode(h.node.content) ? h.node.content : {};
    for (const type of Object.keys(bc)) {
      if (!(type in hc))
        this.add(
          direction === "request" ? "media-type-removed" : "docs-changed",
          child(b.ptr, "content", type),
          field,
          direction,
          `The media type ${type} was removed.`,
        );
    }
    for (const type of Object.keys(hc)) {
      if (!(type in bc))
        this.add(
          direction === "request" ? "media-type-added" : "docs-changed",
          child(h.ptr, "content", type),
          field,
          direction,
          `The media type ${type} was added.`,
        );
    }
    for (const type of Object.keys(bc)) {
      const [bm, hm] = [bc[type], hc[type]];
      if (!isNode(bm) || !isNode(hm)) continue;
      const [bPtr, hPtr] = [child(b.ptr, "content", type), child(h.ptr, "content", type)];
      if (!same(bm.examples, hm.examples) || !same(bm.example, hm.example))
        this.add("docs-changed", child(hPtr, "examples"), field, direction, `The examples of ${type} changed.`);
      this.compareSchema(
        deref(this.base, bm.schema, child(bPtr, "schema")),
        deref(this.head, hm.schema, child(hPtr, "schema")),
        field,
        direction,
      );
    }
  }

  private compareResponses(b: Operation, h: Operation): void {
    const br = isNode(b.op.node.responses) ? b.op.node.responses : {};
    const hr = isNode(h.op.node.responses) ? h.op.node.responses : {};
    // A caller reads `data` (every success status) or `error` (every other status), so that is where it meets them.
    const fieldOf = (status: string): string => (isSuccess(status) ? "data" : "error");
    for (const status of Object.keys(br)) {
      if (!(status in hr))
        this.add(
          "response-removed",
          child(b.op.ptr, "responses", status),
          fieldOf(status),
          "response",
          `The ${status} response was removed.`,
        );
    }
    for (const status of Object.keys(hr)) {
      if (!(status in br))
        this.add(
          "response-added",
          child(h.op.ptr, "responses", status),
          fieldOf(status),
          "response",
          `A ${status} response was added.`,
        );
    }
    for (const status of Object.keys(br)) {
      if (!(status in hr)) continue;
      const bresp = deref(this.base, br[status], child(b.op.ptr, "responses", status));
      const hresp = deref(this.head, hr[status], child(h.op.ptr, "responses", status));
      this.compareDocs(bresp, hresp, fieldOf(status), "response");
      this.compareContent(bresp, hresp, fieldOf(status), "response");
    }
  }

  private compareDocs(b: At, h: At, field: string, direction: Direction): void {
    for (const key of new Set([...Object.keys(b.node), ...Object.keys(h.node)])) {
      if ((!DOC_KEYWORDS.has(key) && !key.startsWith("x-")) || key === SDK_METHOD) continue;
      if (!same(b.node[key], h.node[key]))
        this.add("docs-changed", child(key in h.node ? h.ptr : b.ptr, key), field, direction, `\`${key}\` changed.`);
    }
  }

  /**
   * Compare two schemas in one direction. `ownOnly` compares the keywords of an `allOf`
   * part but not its properties, which the object view of the whole schema already covers.
   * `nullDecided` says the caller has already compared whether the two admit null (see
   * `compareNullable`), so `null` is left out of their types and enum values here.
   */
  compareSchema(bIn: At, hIn: At, field: string, direction: Direction, ownOnly = false, nullDecided = false): void {
    const b = deref(this.base, bIn.node, bIn.ptr);
    const h = deref(this.head, hIn.node, hIn.ptr);
    this.usedBase.add(b.ptr);
    this.usedHead.add(h.ptr);
    const key = `${b.ptr}|${h.ptr}|${direction}`;
    if (this.visiting.has(key)) return; // a recursive schema: this pair is being compared further up
    this.visiting.add(key);
    try {
      const [bNullable, hNullable] = [nullableWrapper(this.base, b), nullableWrapper(this.head, h)];
      if (bNullable !== undefined || hNullable !== undefined) {
        this.compareNullable(bIn, hIn, b, h, bNullable, hNullable, field, direction, ownOnly);
        return;
      }
      this.compareKeywords(b, h, field, direction, nullDecided);
      for (const combinator of ["oneOf", "anyOf"] as const)
        this.compareAlternatives(b, h, combinator, field, direction);
      const [bAll, hAll] = [b.node.allOf, h.node.allOf];
      if (Array.isArray(bAll) && Array.isArray(hAll) && bAll.length === hAll.length) {
        bAll.forEach((part, i) =>
          this.compareSchema(
            { node: part as Node, ptr: child(b.ptr, "allOf", i) },
            { node: hAll[i] as Node, ptr: child(h.ptr, "allOf", i) },
            field,
            direction,
            true,
          ),
        );
      }
      if (ownOnly) return;
      this.compareObjects(b, h, field, direction);
      if (b.node.items !== undefined && h.node.items !== undefined) {
        this.compareSchema(
          { node: b.node.items as Node, ptr: child(b.ptr, "items") },
          { node: h.node.items as Node, ptr: child(h.ptr, "items") },
          `${field}[]`,
          direction,
        );
      }
    } finally {
      this.visiting.delete(key);
    }
  }

  /**
   * A schema S against `anyOf`/`oneOf: [S', {type: "null"}]` (either way round, or both):
   * one change of nullability (null admitted: type widened; no longer admitted: type
   * narrowed), then S compared with S' as if neither were nullable. The fields of S are
   * thus compared with those of S', not reported as removed because the wrapper has none.
   */
  private compareNullable(
    bIn: At,
    hIn: At,
    b: At,
    h: At,
    bNullable: Nullable | undefined,
    hNullable: Nullable | undefined,
    field: string,
    direction: Direction,
    ownOnly: boolean,
  ): void {
    const [bCore, hCore] = [bNullable?.core ?? b, hNullable?.core ?? h];
    const bNull = bNullable !== undefined || admitsNull(deref(this.base, bCore.node, bCore.ptr).node);
    const hNull = hNullable !== undefined || admitsNull(deref(this.head, hCore.node, hCore.ptr).node);
    const name = field === "" ? "the value" : `\`${field}\``;
    // One side is a wrapper (so admits null): null is gained only with the head's wrapper, lost only without it.
    if (!bNull && hNullable !== undefined)
      this.add(
        "type-widened",
        child(h.ptr, hNullable.combinator),
        field,
        direction,
        `${name} is now nullable: it also admits null.`,
      );
    if (bNull && !hNull)
      this.add("type-narrowed", hIn.ptr, field, direction, `${name} is no longer nullable: it no longer admits null.`);
    // The wrappers' own documentation: against each other, or against what the plain side wrote (beside its `$ref`, or in the schema).
    if (bNullable !== undefined && hNullable !== undefined) this.compareDocs(b, h, field, direction);
    else {
      const [wrapper, plain, plainRaw] = bNullable !== undefined ? [b, h, undefined] : [h, b, bIn];
      for (const key of Object.keys(wrapper.node)) {
        if ((!DOC_KEYWORDS.has(key) && !key.startsWith("x-")) || key === SDK_METHOD) continue;
        const other = plainRaw !== undefined && key in plainRaw.node ? plainRaw.node[key] : plain.node[key];
        if (!same(wrapper.node[key], other))
          this.add("docs-changed", child(wrapper === h ? h.ptr : b.ptr, key), field, direction, `\`${key}\` changed.`);
      }
    }
    this.compareSchema(bCore, hCore, field, direction, ownOnly, true);
  }

  private compareKeywords(b: At, h: At, field: string, direction: Direction, nullDecided = false): void {
    const [bn, hn] = [b.node, h.node];
    const name = field === "" ? "the value" : `\`${field}\``;
    this.compareDocs(b, h, field, direction);
    this.compareTypes(bn, hn, h, name, field, direction, nullDecided);
    this.compareValues(bn, hn, h, name, field, direction, nullDecided);
    this.compareLimits(bn, hn, b, h, name, field, direction);
    this.compareConstraints(bn, hn, b, h, name, field, direction);
    this.compareDefault(bn, hn, h, name, field, direction);
  }

  /** `type`: a type dropped narrows, a type added widens; `integer` is covered by `number`. */
  private compareTypes(
    bn: Node,
    hn: Node,
    h: At,
    name: string,
    field: string,
    direction: Direction,
    nullDecided: boolean,
  ): void {
    // type: a type dropped narrows, a type added (null above all) widens. integer ⊂ number.
    // When the nullability was compared already (a nullable wrapper), null is not compared again.
    const withoutNull = (types: string[]): string[] => (nullDecided ? types.filter((t) => t !== "null") : types);
    const [bt, ht] = [withoutNull(typesOf(bn)), withoutNull(typesOf(hn))];
    const covers = (types: string[], t: string): boolean =>
      types.includes(t) || (t === "integer" && types.includes("number"));
    if (bt.length > 0 && ht.length === 0)
      this.add(
        "type-widened",
        child(h.ptr, "type"),
        field,
        direction,
        `${name} is no longer restricted to ${bt.join(" | ")}.`,
      );
    if (bt.length === 0 && ht.length > 0)
      this.add(
        "type-narrowed",
        child(h.ptr, "type"),
        field,
        direction,
        `${name} is now restricted to ${ht.join(" | ")}.`,
      );
    if (bt.length > 0 && ht.length > 0) {
      const dropped = bt.filter((t) => !covers(ht, t));
      const added = ht.filter((t) => !covers(bt, t));
      if (dropped.length > 0)
        this.add(
          "type-narrowed",
          child(h.ptr, "type"),
          field,
          direction,
          `${name} no longer admits ${dropped.join(" | ")} (now ${ht.join(" | ")}).`,
        );
      if (added.length > 0)
        this.add(
          "type-widened",
          child(h.ptr, "type"),
          field,
          direction,
          `${name} now also admits ${added.join(" | ")} (was ${bt.join(" | ")}).`,
        );
    }
  }

  /** `enum` and `const`: the values admitted, compared as sets. */
  private compareValues(
    bn: Node,
    hn: Node,
    h: At,
    name: string,
    field: string,
    direction: Direction,
    nullDecided: boolean,
  ): void {
    // enum and const: a value list, compared as sets.
    const values = (n: Node): unknown[] | undefined => {
      const list = Array.isArray(n.enum) ? n.enum : "const" in n ? [n.const] : undefined;
      return nullDecided && list !== undefined ? list.filter((v) => v !== null) : list;
    };
    const [be, he] = [values(bn), values(hn)];
    const enumPtr = child(h.ptr, "enum" in hn || !("const" in hn) ? "enum" : "const");
    if (be !== undefined && he !== undefined) {
      const removed = be.filter((v) => !he.some((w) => same(v, w)));
      const added = he.filter((v) => !be.some((w) => same(v, w)));
      if (removed.length > 0)
        this.add("enum-value-removed", enumPtr, field, direction, `${name} no longer admits ${show(removed)}.`);
      if (added.length > 0)
        this.add("enum-value-added", enumPtr, field, direction, `${name} now also admits ${show(added)}.`);
    } else if (be !== undefined) {
      this.add(
        "enum-value-added",
        child(h.ptr, "enum"),
        field,
        direction,
        `${name} is no longer limited to ${show(be)}.`,
      );
    } else if (he !== undefined) {
      this.add("enum-value-removed", enumPtr, field, direction, `${name} is now limited to ${show(he)}.`);
    }
  }

  /** The numeric limits (LIMITS): each tightened or loosened. */
  private compareLimits(bn: Node, hn: Node, b: At, h: At, name: string, field: string, direction: Direction): void {
    for (const [keyword, tighter] of LIMITS) {
      const [bv, hv] = [bn[keyword], hn[keyword]];
      if (same(bv, hv)) continue;
      const bnum = typeof bv === "number" ? bv : undefined;
      const hnum = typeof hv === "number" ? hv : undefined;
      const tightened = hnum !== undefined && (bnum === undefined || (tighter === "max" ? hnum < bnum : hnum > bnum));
      const where = child(hnum === undefined ? b.ptr : h.ptr, keyword);
      const text = `\`${keyword}\` of ${name} ${bnum === undefined ? `is now ${hnum}` : hnum === undefined ? `(${bnum}) was removed` : `changed from ${bnum} to ${hnum}`}.`;
      this.add(tightened ? "limit-tightened" : "limit-loosened", where, field, direction, text);
    }
  }

  /** The other constraints (CONSTRAINTS): each tightened or loosened. */
  private compareConstraints(
    bn: Node,
    hn: Node,
    b: At,
    h: At,
    name: string,
    field: string,
    direction: Direction,
  ): void {
    for (const keyword of CONSTRAINTS) {
      const [bv, hv] = [bn[keyword], hn[keyword]];
      if (same(bv, hv) || (keyword === "uniqueItems" && !bv && !hv)) continue;
      const loosened = hv === undefined || hv === false;
      const text = `\`${keyword}\` of ${name} ${bv === undefined ? `is now ${JSON.stringify(hv)}` : loosened ? `(${JSON.stringify(bv)}) was removed` : `changed from ${JSON.stringify(bv)} to ${JSON.stringify(hv)}`}.`;
      this.add(
        loosened ? "constraint-loosened" : "constraint-tightened",
        child(loosened ? b.ptr : h.ptr, keyword),
        field,
        direction,
        text,
      );
    }
  }

  /** `default`: a changed default. */
  private compareDefault(bn: Node, hn: Node, h: At, name: string, field: string, direction: Direction): void {
    if (!same(bn.default, hn.default))
      this.add(
        "default-changed",
        child(h.ptr, "default"),
        field,
        direction,
        `The default of ${name} changed from ${JSON.stringify(bn.default)} to ${JSON.stringify(hn.default)}.`,
      );
  }

  /** `oneOf`/`anyOf`: branches compared by position; a branch added widens, one removed narrows. */
  private compareAlternatives(b: At, h: At, combinator: "oneOf" | "anyOf", field: string, direction: Direction): void {
    const bl = Array.isArray(b.node[combinator]) ? (b.node[combinator] as Node[]) : [];
    const hl = Array.isArray(h.node[combinator]) ? (h.node[combinator] as Node[]) : [];
    const shared = Math.min(bl.length, hl.length);
    for (let i = 0; i < shared; i++) {
      this.compareSchema(
        { node: bl[i] as Node, ptr: child(b.ptr, combinator, i) },
        { node: hl[i] as Node, ptr: child(h.ptr, combinator, i) },
        field,
        direction,
      );
    }
    const name = field === "" ? "the value" : `\`${field}\``;
    if (hl.length > shared)
      this.add(
        "type-widened",
        child(h.ptr, combinator, shared),
        field,
        direction,
        `${name} gained ${hl.length - shared} alternative(s) in \`${combinator}\`.`,
      );
    if (bl.length > shared && hl.length > 0)
      this.add(
        "type-narrowed",
        child(b.ptr, combinator, shared),
        field,
        direction,
        `${name} lost ${bl.length - shared} alternative(s) of \`${combinator}\`.`,
      );
  }

  private compareObjects(b: At, h: At, field: string, direction: Direction): void {
    const bv = objectView(this.base, b);
    const hv = objectView(this.head, h);
    // A caller never sends a readOnly field and never reads a writeOnly one.
    const hidden = (schema: At, doc: Node): boolean => {
      const node = deref(doc, schema.node, schema.ptr).node;
      return direction === "request"
        ? node.readOnly === true || schema.node.readOnly === true
        : node.writeOnly === true || schema.node.writeOnly === true;
    };
    for (const [name, bp] of bv.properties) this.compareProperty(h, bv, hv, name, bp, field, direction, hidden);
    this.compareAddedProperties(bv, hv, field, direction, hidden);
    this.compareAdditional(bv, hv, field, direction);
  }

  /** One property of the base object: hidden, removed, made read- or write-only, its requiredness, then its schema. */
  private compareProperty(
    h: At,
    bv: ObjectView,
    hv: ObjectView,
    name: string,
    bp: At,
    field: string,
    direction: Direction,
    hidden: (schema: At, doc: Node) => boolean,
  ): void {
    const sub = fieldPath(field, name);
    const hp = hv.properties.get(name);
    if (hidden(bp, this.base)) {
      if (hp !== undefined && !hidden(hp, this.head) && direction === "request")
        this.add("field-made-writable", hp.ptr, sub, direction, `\`${sub}\` may now be sent (it was read-only).`);
      return;
    }
    if (hp === undefined) {
      const closed = hv.additional === false;
      this.add(
        "field-removed",
        bp.ptr,
        sub,
        direction,
        direction === "request"
          ? `\`${sub}\` was removed from the request${closed ? "; the server refuses it now" : ""}.`
          : `\`${sub}\` was removed from the response.`,
      );
      return;
    }
    if (hidden(hp, this.head)) {
      this.add(
        direction === "request" ? "field-made-read-only" : "field-removed",
        hp.ptr,
        sub,
        direction,
        direction === "request"
          ? `\`${sub}\` is now read-only: it may no longer be sent.`
          : `\`${sub}\` is now write-only: it is no longer in the response.`,
      );
      return;
    }
    const [wasRequired, isRequired] = [bv.required.has(name), hv.required.has(name)];
    const requiredPtr = child(h.ptr, "required");
    if (!wasRequired && isRequired)
      this.add(
        "field-made-required",
        requiredPtr,
        sub,
        direction,
        direction === "request"
          ? `\`${sub}\` is now required in the request.`
          : `\`${sub}\` is now always present in the response.`,
      );
    if (wasRequired && !isRequired)
      this.add(
        "field-made-optional",
        requiredPtr,
        sub,
        direction,
        direction === "request"
          ? `\`${sub}\` may now be left out of the request.`
          : `\`${sub}\` may now be missing from the response.`,
      );
    this.compareSchema(bp, hp, sub, direction);
  }

  /** The properties only the head object has: a field added, required or not. */
  private compareAddedProperties(
    bv: ObjectView,
    hv: ObjectView,
    field: string,
    direction: Direction,
    hidden: (schema: At, doc: Node) => boolean,
  ): void {
    for (const [name, hp] of hv.properties) {
      if (bv.properties.has(name) || hidden(hp, this.head)) continue;
      const sub = fieldPath(field, name);
      const required = hv.required.has(name);
      if (direction === "request" && required)
        this.add(
          "field-added-required",
          hp.ptr,
          sub,
          direction,
          `A required field \`${sub}\` was added to the request.`,
        );
      else
        this.add(
          "field-added",
          hp.ptr,
          sub,
          direction,
          `A field \`${sub}\` was added to the ${direction}${required ? " (always present)" : ""}.`,
        );
    }
  }

  /** `additionalProperties`: undeclared properties refused or admitted now, and their schema compared. */
  private compareAdditional(bv: ObjectView, hv: ObjectView, field: string, direction: Direction): void {
    const [ba, ha] = [bv.additional, hv.additional];
    const name = field === "" ? "the object" : `\`${field}\``;
    if (ba !== false && ha === false && bv.properties.size + hv.properties.size > 0)
      this.add(
        "constraint-tightened",
        hv.additionalPtr,
        field,
        direction,
        `${name} no longer admits undeclared properties.`,
      );
    if (ba === false && ha !== false)
      this.add("constraint-loosened", hv.additionalPtr, field, direction, `${name} now admits undeclared properties.`);
    if (typeof ba === "object" && typeof ha === "object") this.compareSchema(ba, ha, `${field}.*`, direction);
  }

  /** Components no compared operation reaches (in either document) still get a line, as a patch, saying what uses them. */
  private compareUnusedComponents(): void {
    this.operation = null;
    this.used = false;
    const bs = isNode(this.base.components) && isNode(this.base.components.schemas) ? this.base.components.schemas : {};
    const hs = isNode(this.head.components) && isNode(this.head.components.schemas) ? this.head.components.schemas : {};
    // What the compared operations did not reach may still be used: by an operation added or removed.
    const [baseUses, headUses] = [componentUses(this.base), componentUses(this.head)];
    const usedBy = (uses: string[] | undefined): string =>
      uses === undefined ? "used by no operation" : `used by ${uses.join(", ")}`;
    for (const name of new Set([...Object.keys(bs), ...Object.keys(hs)])) {
      const ptr = child("#/components/schemas", name);
      if (this.usedBase.has(ptr) || this.usedHead.has(ptr)) continue;
      if (!(name in hs))
        this.add(
          "component-removed",
          ptr,
          name,
          "response",
          `The component ${name}, ${usedBy(baseUses.get(ptr))}, was removed.`,
        );
      else if (!(name in bs))
        this.add(
          "component-added",
          ptr,
          name,
          "response",
          `The component ${name}, ${usedBy(headUses.get(ptr))}, was added.`,
        );
      else this.compareSchema({ node: bs[name] as Node, ptr }, { node: hs[name] as Node, ptr }, name, "response");
    }
    this.used = true;
  }

  /** `info`, `servers`, `tags` and the like: documentation for callers of the SDK. */
  private compareTopLevel(): void {
    this.operation = null;
    for (const key of new Set([...Object.keys(this.base), ...Object.keys(this.head)])) {
      if (key === "paths" || key === "components" || key === "security") continue;
      if (!same(this.base[key], this.head[key]))
        this.add("docs-changed", child("#", key), "", "request", `\`${key}\` changed.`);
    }
  }
}

/** Every change from `base` to `head`, classified by the rules of kinds.ts (typeBreak still false). */
export function compareContracts(base: Node, head: Node): Change[] {
  return new Differ(base, head).run();
}

/** The release all the changes need together: the largest of their bumps. */
export function bumpOfChanges(changes: readonly Change[]): Bump {
  return changes.reduce<Bump>((acc, c) => maxBump(acc, c.bump), "none");
}

/** The last name of a field path: `data.addresses[].line1` → `line1`; `data` or `body` alone → "". */
export function leafName(field: string): string {
  return field
    .replace(/^(data|error|body|params\.\w+)\.?/, "")
    .replace(/\[\]/g, "")
    .replace(/^.*\.(?=[^.]+$)/, "");
}
