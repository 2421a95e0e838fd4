/**
 * Loader and resolver for `openapi/store-admin.yaml`, used by the spec-coverage tests.
 *
 * The contract is read with the `yaml` package once per test process (`loadOpenApiDoc()`).
 * `OpenApiDoc` wraps one parsed document (the real one, or a mutated deep copy in the
 * self-checks) and answers the questions the checks ask: follow local `$ref`s, flatten
 * `allOf`, expand `oneOf`/`anyOf` into the alternatives a value may match, find a property's
 * schemas, list the effective parameters of an operation.
 *
 * Only local references (`#/...`) are supported: the contract is a single file.
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { HTTP_METHODS, type HttpMethod } from "../../src/core/http-methods.js";
import { CONTRACT_PATH } from "../../scripts/facts.js";

/** A JSON object node of the parsed document (schema, operation, parameter, ...). */
export type Node = Record<string, unknown>;

export { HTTP_METHODS };

export interface Operation {
  method: HttpMethod;
  path: string;
  pathItem: Node;
  op: Node;
}

export function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON type of a literal value, as JSON Schema names it (`integer` for whole numbers). */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "object") return "object";
  return typeof value;
}

/** Decode one JSON Pointer segment (RFC 6901). */
function unescapePointer(segment: string): string {
  return decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~");
}

const COMBINATORS = ["allOf", "oneOf", "anyOf"] as const;

export class OpenApiDoc {
  constructor(readonly raw: Node) {}

  /** A deep copy, for the mutation self-checks. */
  clone(): OpenApiDoc {
    return new OpenApiDoc(structuredClone(this.raw));
  }

  /** The node a local `$ref` (`#/components/...`) points at; throws on a dangling reference. */
  resolveRef(ref: string): unknown {
    if (!ref.startsWith("#")) throw new Error(`non-local $ref not supported: ${ref}`);
    let node: unknown = this.raw;
    const pointer = ref.slice(1);
    if (pointer === "") return node;
    for (const segment of pointer.replace(/^\//, "").split("/").map(unescapePointer)) {
      if (Array.isArray(node)) node = node[Number(segment)];
      else if (isNode(node)) node = node[segment];
      else node = undefined;
      if (node === undefined) throw new Error(`dangling $ref: ${ref}`);
    }
    return node;
  }

  /** Follow `$ref` chains until a node without `$ref` (sibling keywords of a `$ref` are dropped). */
  resolve(node: unknown): unknown {
    const seen = new Set<string>();
    let current = node;
    while (isNode(current) && typeof current.$ref === "string") {
      if (seen.has(current.$ref)) throw new Error(`circular $ref: ${current.$ref}`);
      seen.add(current.$ref);
      current = this.resolveRef(current.$ref);
    }
    return current;
  }

  /** `resolve()` for nodes that must be objects; anything else becomes `{}`. */
  resolveNode(node: unknown): Node {
    const resolved = this.resolve(node);
    return isNode(resolved) ? resolved : {};
  }

  /**
   * A schema with its `$ref`s followed and its `allOf` parts merged into one object:
   * `properties` are united (a property given by several parts keeps all of them, as an
   * `allOf`), `required` lists are concatenated, other keywords are combined by `mergeLeaves`.
   * `oneOf`/`anyOf` are kept as they are; `variants()` expands them.
   */
  mergedSchema(schema: unknown, depth = 0): Node {
    if (depth > 32) throw new Error("mergedSchema: reference chain too deep");
    if (schema === true || schema === undefined) return {};
    if (schema === false) return { not: {} };
    if (!isNode(schema)) return {};
    const { $ref, allOf, ...rest } = schema;
    let merged: Node = rest;
    if (typeof $ref === "string") merged = mergeLeaves(this.mergedSchema(this.resolveRef($ref), depth + 1), merged);
    if (Array.isArray(allOf)) {
      for (const part of allOf) merged = mergeLeaves(merged, this.mergedSchema(part, depth + 1));
    }
    return merged;
  }

  /**
   * The alternatives a schema stands for: `$ref`s followed, `allOf` merged, and each
   * `oneOf`/`anyOf` expanded into its branches (each merged with the keywords around it).
   * Every returned schema is free of `$ref`, `allOf`, `oneOf` and `anyOf` at its top level.
   * A value is valid against the schema only if it is valid against one of them.
   */
  variants(schema: unknown, depth = 0): Node[] {
    if (depth > 32) throw new Error("variants: reference chain too deep");
    if (schema === false) return [];
    if (schema === true || schema === undefined) return [{}];
    if (!isNode(schema)) return [{}];
    const { $ref, allOf, oneOf, anyOf, ...rest } = schema;
    const factors: Node[][] = [[rest]];
    if (typeof $ref === "string") factors.push(this.variants(this.resolveRef($ref), depth + 1));
    if (Array.isArray(allOf)) for (const part of allOf) factors.push(this.variants(part, depth + 1));
    for (const branches of [oneOf, anyOf]) {
      if (Array.isArray(branches)) factors.push(branches.flatMap((branch) => this.variants(branch, depth + 1)));
    }
    let result: Node[] = [{}];
    for (const factor of factors) result = result.flatMap((left) => factor.map((right) => mergeLeaves(left, right)));
    return result;
  }

  /**
   * The schemas a property `name` has in any alternative of `schema` (empty when no
   * alternative declares it). Callers expand each with `variants()` to see its constraints.
   */
  findProperty(schema: unknown, name: string): unknown[] {
    const found: unknown[] = [];
    for (const variant of this.variants(schema)) {
      const properties = variant.properties;
      if (isNode(properties) && name in properties) found.push(properties[name]);
    }
    return found;
  }

  /** The schemas reached by following a property path; `[]` steps into array `items`, `[]?` does so only for array alternatives. */
  schemasAt(schema: unknown, path: readonly string[]): unknown[] {
    let current: unknown[] = [schema];
    for (const step of path) {
      const next: unknown[] = [];
      for (const node of current) {
        for (const variant of this.variants(node)) {
          if (step === "[]" || step === "[]?") {
            if (variant.items !== undefined && !Array.isArray(variant.items)) next.push(variant.items);
            else if (step === "[]?") next.push(variant);
          } else if (isNode(variant.properties) && step in variant.properties) {
            next.push(variant.properties[step]);
          }
        }
      }
      current = next;
    }
    return current;
  }

  /**
   * The original nodes a schema is made of: itself, its `$ref` targets and its
   * `allOf`/`oneOf`/`anyOf` parts, recursively (not copies: the self-checks mutate them).
   */
  subschemaNodes(schema: unknown): Node[] {
    const out: Node[] = [];
    const visit = (node: unknown): void => {
      if (!isNode(node) || out.includes(node)) return;
      out.push(node);
      if (typeof node.$ref === "string") visit(this.resolveRef(node.$ref));
      for (const key of COMBINATORS) {
        const parts = node[key];
        if (Array.isArray(parts)) parts.forEach(visit);
      }
    };
    visit(schema);
    return out;
  }

  /** The original schema nodes (of `subschemaNodes`) whose `properties` declare `name`. */
  propertyContainers(schema: unknown, name: string): Node[] {
    return this.subschemaNodes(schema).filter((node) => isNode(node.properties) && name in node.properties);
  }

  /** The `#/components/schemas/<Name>`s a schema is built on through `$ref`s and `allOf` parts (not `oneOf`/`anyOf`). */
  referencedComponents(schema: unknown): Set<string> {
    const names = new Set<string>();
    const seen = new Set<unknown>();
    const visit = (node: unknown): void => {
      if (!isNode(node) || seen.has(node)) return;
      seen.add(node);
      if (typeof node.$ref === "string") {
        const match = /^#\/components\/schemas\/([^/]+)$/.exec(node.$ref);
        if (match?.[1] !== undefined) names.add(unescapePointer(match[1]));
        visit(this.resolveRef(node.$ref));
      }
      if (Array.isArray(node.allOf)) node.allOf.forEach(visit);
    };
    visit(schema);
    return names;
  }

  /** Every method + path pair declared under `paths`. */
  operations(): Operation[] {
    const result: Operation[] = [];
    const paths = isNode(this.raw.paths) ? this.raw.paths : {};
    for (const [path, item] of Object.entries(paths)) {
      const pathItem = this.resolveNode(item);
      for (const method of HTTP_METHODS) {
        const op = pathItem[method];
        if (isNode(op)) result.push({ method, path, pathItem, op });
      }
    }
    return result;
  }

  operation(method: string, path: string): Operation | undefined {
    return this.operations().find((o) => o.method === method.toLowerCase() && o.path === path);
  }

  operationById(operationId: string): Operation | undefined {
    return this.operations().find((o) => o.op.operationId === operationId);
  }

  /** Path-item parameters overlaid by operation parameters (same name + location), `$ref`s resolved. */
  effectiveParameters(operation: Operation): Node[] {
    const byKey = new Map<string, Node>();
    const unkeyed: Node[] = [];
    for (const list of [operation.pathItem.parameters, operation.op.parameters]) {
      if (!Array.isArray(list)) continue;
      for (const entry of list) {
        const parameter = this.resolveNode(entry);
        if (typeof parameter.name === "string" && typeof parameter.in === "string") {
          const name = parameter.in === "header" ? parameter.name.toLowerCase() : parameter.name;
          byKey.set(`${parameter.in}:${name}`, parameter);
        } else {
          unkeyed.push(parameter);
        }
      }
    }
    return [...byKey.values(), ...unkeyed];
  }

  /** The request body schema for a media type, or undefined when there is none. */
  requestBodySchema(operation: Operation, mediaType = "application/json"): unknown {
    if (operation.op.requestBody === undefined) return undefined;
    const body = this.resolveNode(operation.op.requestBody);
    const content = isNode(body.content) ? body.content : {};
    const media = content[mediaType];
    return isNode(media) ? media.schema : undefined;
  }

  /** The 2xx responses of an operation (`$ref`s to `components/responses` resolved). */
  successResponses(operation: Operation): Array<{ status: string; response: Node }> {
    const responses = isNode(operation.op.responses) ? operation.op.responses : {};
    return Object.entries(responses)
      .filter(([status]) => /^2(\d\d|XX)$/i.test(status))
      .map(([status, response]) => ({ status, response: this.resolveNode(response) }));
  }
}

/**
 * Combine two schema objects that must both hold (the `allOf` of two plain schemas).
 * `type` and `enum` are intersected, bounds are tightened, `properties` united, `required`
 * concatenated; for any other keyword the right-hand side wins (descriptions, examples, ...).
 */
export function mergeLeaves(left: Node, right: Node): Node {
  const out: Node = { ...left };
  for (const [key, value] of Object.entries(right)) {
    const existing = out[key];
    if (existing === undefined) {
      out[key] = value;
      continue;
    }
    switch (key) {
      case "properties": {
        const props: Node = { ...(isNode(existing) ? existing : {}) };
        for (const [name, schema] of Object.entries(isNode(value) ? value : {})) {
          props[name] = name in props ? { allOf: [props[name], schema] } : schema;
        }
        out.properties = props;
        break;
      }
      case "required":
        out.required = [...new Set([...asArray(existing), ...asArray(value)])];
        break;
      case "type": {
        const a = asArray(existing);
        const b = asArray(value);
        // `integer` is a subset of `number`
        out.type = a.flatMap((t) =>
          b.includes(t)
            ? [t]
            : t === "integer" && b.includes("number")
              ? [t]
              : t === "number" && b.includes("integer")
                ? ["integer"]
                : [],
        );
        break;
      }
      case "enum": {
        const b = asArray(value).map((v) => JSON.stringify(v));
        out.enum = asArray(existing).filter((v) => b.includes(JSON.stringify(v)));
        break;
      }
      case "minimum":
      case "minLength":
      case "minItems":
      case "exclusiveMinimum":
        out[key] = typeof existing === "number" && typeof value === "number" ? Math.max(existing, value) : value;
        break;
      case "maximum":
      case "maxLength":
      case "maxItems":
      case "exclusiveMaximum":
        out[key] = typeof existing === "number" && typeof value === "number" ? Math.min(existing, value) : value;
        break;
      case "items":
      case "additionalProperties":
        out[key] = existing === value ? value : { allOf: [existing, value] };
        break;
      default:
        out[key] = value;
    }
  }
  return out;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

/** The JSON types one plain schema (a `variants()` element) admits, or "any" when it does not restrict them. */
export function admittedTypes(leaf: Node): Set<string> | "any" {
  if (leaf.type !== undefined) return new Set(asArray(leaf.type).map(String));
  if ("const" in leaf) return new Set([jsonTypeOf(leaf.const)]);
  if (Array.isArray(leaf.enum)) return new Set(leaf.enum.map(jsonTypeOf));
  return "any";
}

/** Whether one plain schema admits values of JSON type `type` (`number` admits integers). */
export function admitsType(leaf: Node, type: string): boolean {
  const types = admittedTypes(leaf);
  if (types === "any") return true;
  if (types.has(type)) return true;
  return type === "integer" && types.has("number");
}

/**
 * The literal values a set of alternatives admits, or "open" when one of them admits
 * values without listing them (a plain `type: string`, `{}`, ...).
 */
export function admittedValues(leaves: readonly Node[]): unknown[] | "open" {
  const values: unknown[] = [];
  for (const leaf of leaves) {
    const declared = leaf.type === undefined ? undefined : asArray(leaf.type).map(String);
    const fits = (v: unknown) =>
      declared === undefined ||
      declared.includes(jsonTypeOf(v)) ||
      (jsonTypeOf(v) === "integer" && declared.includes("number"));
    if ("const" in leaf) {
      if (fits(leaf.const)) values.push(leaf.const);
    } else if (Array.isArray(leaf.enum)) {
      values.push(...leaf.enum.filter(fits));
    } else if (declared !== undefined && declared.every((t) => t === "null")) {
      if (declared.length > 0) values.push(null);
    } else {
      return "open";
    }
  }
  const unique = new Map(values.map((v) => [JSON.stringify(v), v]));
  return [...unique.values()];
}

let loaded: OpenApiDoc | undefined;

/** The contract, read and parsed once per test process. */
export function loadOpenApiDoc(): OpenApiDoc {
  if (loaded === undefined) {
    const text = readFileSync(CONTRACT_PATH, "utf8");
    const raw: unknown = parse(text, { maxAliasCount: -1 });
    if (!isNode(raw)) throw new Error(`${CONTRACT_PATH} is not a YAML mapping`);
    loaded = new OpenApiDoc(raw);
  }
  return loaded;
}

/** `OpenApiDoc.resolve` on the loaded contract. */
export function resolve(node: unknown, doc: OpenApiDoc = loadOpenApiDoc()): unknown {
  return doc.resolve(node);
}

/** `OpenApiDoc.mergedSchema` on the loaded contract. */
export function mergedSchema(schema: unknown, doc: OpenApiDoc = loadOpenApiDoc()): Node {
  return doc.mergedSchema(schema);
}
