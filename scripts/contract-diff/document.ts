/**
 * Reading one OpenAPI document for the contract diff: load it from a file or a git ref,
 * follow local `$ref`s while remembering where each node lives (its JSON pointer, so a
 * change is reported where a maintainer edits it), and list the operations.
 *
 * Only local references (`#/...`) exist in our contract: anything else, and a YAML alias
 * bomb, is refused by scripts/load-contract.ts before the diff reads the document.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { HTTP_METHODS, type HttpMethod } from "../../src/core/http-methods.js";
import type { Json } from "../contract-json.js";
import { loadContract } from "../load-contract.js";

export type Node = Json;

/** A node of a document and the JSON pointer (`#/...`) where it is written. */
export interface At {
  node: Node;
  ptr: string;
}

/** The path of the contract inside the repository, used when the base is a git ref. */
export const CONTRACT_PATH = "openapi/store-admin.yaml";

export function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function parseContract(text: string, source: string): Node {
  return loadContract(text, source);
}

/**
 * The contract text named by `spec`: a file when one exists at that path, otherwise a git
 * ref (`v0.1.0`, `HEAD~3`, `main`), read with `git show <ref>:openapi/store-admin.yaml`
 * in the repository around `cwd`.
 */
export function readContract(spec: string, cwd: string): { text: string; source: string } {
  if (existsSync(spec)) return { text: readFileSync(spec, "utf8"), source: spec };
  try {
    const text = execFileSync("git", ["show", "--end-of-options", `${spec}:${CONTRACT_PATH}`], {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    });
    return { text, source: `${spec}:${CONTRACT_PATH}` };
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new Error(
      `"${spec}" is neither a file nor a git ref whose tree has ${CONTRACT_PATH} (git: ${stderr || (error as Error).message}).`,
    );
  }
}

function escapeSegment(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** `ptr` extended by one or more segments, escaped as RFC 6901 wants. */
export function child(ptr: string, ...segments: Array<string | number>): string {
  return segments.reduce<string>((p, s) => `${p}/${escapeSegment(String(s))}`, ptr);
}

/** The node at a local pointer, or undefined. */
function nodeAt(doc: Node, ptr: string): unknown {
  let node: unknown = doc;
  for (const raw of ptr
    .replace(/^#\/?/, "")
    .split("/")
    .filter((s) => s !== "")) {
    const segment = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    node = Array.isArray(node) ? node[Number(segment)] : isNode(node) ? node[segment] : undefined;
  }
  return node;
}

/** Follow `$ref`s from a node written at `ptr`; the result says where the target is written. */
export function deref(doc: Node, value: unknown, ptr: string): At {
  let node = value;
  let at = ptr;
  const seen = new Set<string>();
  while (isNode(node) && typeof node.$ref === "string") {
    const ref = node.$ref;
    if (!ref.startsWith("#")) throw new Error(`${at}: only local $refs are supported, found ${ref}`);
    if (seen.has(ref)) throw new Error(`${at}: circular $ref ${ref}`);
    seen.add(ref);
    at = ref;
    node = nodeAt(doc, ref);
    if (node === undefined) throw new Error(`${ptr}: dangling $ref ${ref}`);
  }
  return { node: isNode(node) ? node : {}, ptr: at };
}

export interface Operation {
  /** `"METHOD /path/"`, the key our generated `operations` table uses too. */
  key: string;
  method: HttpMethod;
  path: string;
  op: At;
  pathItem: At;
}

export function operations(doc: Node): Map<string, Operation> {
  const result = new Map<string, Operation>();
  const paths = isNode(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    const pathItem = deref(doc, item, child("#/paths", path));
    for (const method of HTTP_METHODS) {
      if (!isNode(pathItem.node[method])) continue;
      const key = `${method.toUpperCase()} ${path}`;
      result.set(key, {
        key,
        method,
        path,
        pathItem,
        op: { node: pathItem.node[method] as Node, ptr: child(pathItem.ptr, method) },
      });
    }
  }
  return result;
}

/** Path-item parameters overlaid by the operation's own, keyed `in:name` (header names lower-cased). */
export function parameters(doc: Node, operation: Operation): Map<string, At> {
  const byKey = new Map<string, At>();
  for (const owner of [operation.pathItem, operation.op]) {
    const list = owner.node.parameters;
    if (!Array.isArray(list)) continue;
    list.forEach((entry, index) => {
      const parameter = deref(doc, entry, child(owner.ptr, "parameters", index));
      const { name, in: where } = parameter.node;
      if (typeof name !== "string" || typeof where !== "string") return;
      byKey.set(`${where}:${where === "header" ? name.toLowerCase() : name}`, parameter);
    });
  }
  return byKey;
}

/** The media type a caller's body is typed from: JSON when offered, else the first. */
export function preferredMediaType(content: Node): string | undefined {
  const types = Object.keys(content);
  return types.find((t) => t === "application/json") ?? types.find((t) => t.endsWith("+json")) ?? types[0];
}

export function isSuccess(status: string): boolean {
  return /^2(\d\d|XX)$/i.test(status);
}

/** JSON Schema `type` as a list (empty when the schema does not restrict the type). */
export function typesOf(schema: Node): string[] {
  if (Array.isArray(schema.type)) return schema.type.map(String);
  if (typeof schema.type === "string") return [schema.type];
  return [];
}

/**
 * The object view of a schema: its properties (each with the pointer where it is written)
 * and required names, gathered through `$ref`s and `allOf` parts, as a validator sees them.
 */
interface ObjectView {
  properties: Map<string, At>;
  required: Set<string>;
  /** `true` (any further property), `false` (none) or a schema for further properties. */
  additional: boolean | At;
  additionalPtr: string;
}

export function objectView(doc: Node, schema: At, depth = 0): ObjectView {
  const view: ObjectView = {
    properties: new Map(),
    required: new Set(),
    additional: true,
    additionalPtr: child(schema.ptr, "additionalProperties"),
  };
  if (depth > 32) return view;
  const { node, ptr } = schema;
  if (isNode(node.properties)) {
    for (const [name, value] of Object.entries(node.properties))
      view.properties.set(name, { node: isNode(value) ? value : {}, ptr: child(ptr, "properties", name) });
  }
  if (Array.isArray(node.required)) for (const name of node.required) view.required.add(String(name));
  if (node.additionalProperties === false) view.additional = false;
  else if (isNode(node.additionalProperties))
    view.additional = { node: node.additionalProperties, ptr: view.additionalPtr };
  if (Array.isArray(node.allOf)) {
    node.allOf.forEach((part, index) => {
      const inner = objectView(doc, deref(doc, part, child(ptr, "allOf", index)), depth + 1);
      for (const [name, at] of inner.properties) if (!view.properties.has(name)) view.properties.set(name, at);
      for (const name of inner.required) view.required.add(name);
      if (inner.additional === false) {
        view.additional = false;
        view.additionalPtr = inner.additionalPtr;
      }
    });
  }
  return view;
}

/** A field path one step deeper: `body` + `email` → `body.email`. */
export function fieldPath(parent: string, name: string): string {
  return parent === "" ? name : `${parent}.${name}`;
}
