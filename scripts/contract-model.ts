/**
 * The contract as the generators see it: one model per operation, built once from the parsed
 * document (after scripts/load-contract.ts), read by `generate.ts`, `generate-testing.ts` and
 * `docs.ts`. Each rule below is what docs/architecture.md ("What the generators accept, map
 * and refuse") states; a construct none of them can serve is refused with a sentence naming
 * its JSON pointer, never a crash further on.
 *
 * - Method names: `x-sdk-method` when given; otherwise derived from the URL
 *   (`GET /widgets/{id}/parts/` → `widgets.parts.list`), by scripts/method-names.ts.
 * - Security: `security` (else the document's) lists alternatives, each a set of scopes all
 *   needed; `[]` is no authentication; {@link requirementInWords} says it in words.
 * - Request media type: JSON where offered; else form-urlencoded; else multipart. A body
 *   holding a file goes as multipart wherever multipart is offered (the client decides per call).
 * - The version header: the required header parameter with a single `const` or `enum` value
 *   that every operation declares (inline, in its path item or through `components`), or the
 *   one marked `x-sdk-version-header: true`.
 * - Schema names that are not identifiers are mapped to one ({@link typeNameOf}).
 */
import { requirementInWords, type RequiredScopes } from "../src/core/error-messages.js";
import { HTTP_METHODS } from "../src/core/http-methods.js";
import { ContractError, isObject, type Json, pointer } from "./contract-json.js";
import { argumentNames, checkNames } from "./contract-names.js";
import { camel, MethodNameError, METHOD_NAME, nameMethods, words } from "./method-names.js";
import type { OperationModel } from "./operation-model.js";

export { ContractError, isObject, requirementInWords, type OperationModel };

export const JSON_MEDIA = "application/json";
export const FORM_MEDIA = "application/x-www-form-urlencoded";
export const MULTIPART_MEDIA = "multipart/form-data";
/** The request media types the client can send, in the order it prefers them. */
const REQUEST_MEDIA_TYPES = [JSON_MEDIA, FORM_MEDIA, MULTIPART_MEDIA] as const;

/** The segments of a local reference (`#/components/schemas/Product%20` → components, schemas, "Product "). */
function refSegments(ref: string): string[] {
  return ref
    .replace(/^#\/?/, "")
    .split("/")
    .filter((s, i, all) => s !== "" || i < all.length - 1)
    .map((segment) => {
      let text = segment;
      try {
        text = decodeURIComponent(segment);
      } catch {
        // Not percent-encoded: as written.
      }
      return text.replace(/~1/g, "/").replace(/~0/g, "~");
    });
}

/** The component schema a `$ref` names, when it names one (`#/components/schemas/X` → `X`). */
export function schemaRefName(node: unknown): string | undefined {
  const ref = isObject(node) ? node.$ref : undefined;
  if (typeof ref !== "string") return undefined;
  const segments = refSegments(ref);
  return segments.length === 3 && segments[0] === "components" && segments[1] === "schemas" ? segments[2] : undefined;
}

/** The node a local reference (`#/…`, JSON Pointer escapes and percent-encoding undone) names, if any. */
export function refTarget(doc: Json, ref: string): unknown {
  let target: unknown = doc;
  for (const segment of refSegments(ref))
    target = isObject(target) || Array.isArray(target) ? (target as Json)[segment] : undefined;
  return target;
}

/**
 * `node`, or what its `$ref` chain leads to; `at` is where `node` is written, for the message
 * when a reference leads nowhere or in a circle.
 */
export function resolveRef(doc: Json, node: unknown, at: string): Json {
  let current = node;
  const seen = new Set<string>();
  while (isObject(current) && typeof current.$ref === "string") {
    const ref = current.$ref;
    if (seen.has(ref)) throw new ContractError(`${at}: the reference ${JSON.stringify(ref)} leads back to itself.`);
    seen.add(ref);
    const target = refTarget(doc, ref);
    if (target === undefined)
      throw new ContractError(`${at}/$ref: ${JSON.stringify(ref)} refers to nothing in the document.`);
    current = target;
  }
  return isObject(current) ? current : {};
}

/** Which side of a call a schema is read for: what a request sends, or what a response holds. */
export type View = "request" | "response";

/**
 * Whether the property (or what its `$ref` names) carries the flag the other direction owns:
 * `readOnly` for a request (it never sends one), `writeOnly` for a response.
 */
export function ownedByOther(doc: Json, property: unknown, view: View, at: string): boolean {
  const flag = view === "request" ? "readOnly" : "writeOnly";
  return (isObject(property) && property[flag] === true) || resolveRef(doc, property, at)[flag] === true;
}

// ─── Where schemas are used ─────────────────────────────────────────────────────────

/**
 * Names of the component schemas reached through `$ref`s from `roots` (a `$ref` to a
 * component response, request body or parameter standing for the schemas it references).
 */
function schemasReached(doc: Json, roots: unknown[]): Set<string> {
  const components = isObject(doc.components) ? doc.components : {};
  const schemas = (components.schemas ?? {}) as Json;
  const refs = (node: unknown, out: unknown[]): unknown[] => {
    if (Array.isArray(node)) for (const item of node) refs(item, out);
    else if (node && typeof node === "object") {
      if (typeof (node as Json).$ref === "string") out.push(node);
      for (const [key, value] of Object.entries(node)) if (key !== "examples" && key !== "example") refs(value, out);
    }
    return out;
  };
  const expand = (ref: unknown): unknown[] => {
    const [, kind, name] =
      /^#\/components\/(responses|requestBodies|parameters)\/(.+)$/.exec(String((ref as Json).$ref)) ?? [];
    const target = kind !== undefined && isObject(components[kind]) ? (components[kind] as Json)[name!] : undefined;
    return target !== undefined ? refs(target, []).flatMap(expand) : [ref];
  };
  const seen = new Set<string>();
  const todo = refs(roots, []).flatMap(expand);
  for (let ref = todo.pop(); ref !== undefined; ref = todo.pop()) {
    const name = schemaRefName(ref);
    if (name === undefined || seen.has(name)) continue;
    seen.add(name);
    todo.push(...refs(schemas[name], []).flatMap(expand));
  }
  return seen;
}

/** The operations' objects of `doc`, with their path items. */
function operationObjects(doc: Json): Array<{ item: Json; operation: Json }> {
  const out: Array<{ item: Json; operation: Json }> = [];
  for (const item of Object.values(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) if (isObject(item[method])) out.push({ item, operation: item[method] as Json });
  }
  return out;
}

/** Names of the component schemas some response reaches through `$ref`s. */
export function responseSchemaNames(doc: Json): Set<string> {
  return schemasReached(
    doc,
    operationObjects(doc).map(({ operation }) => operation.responses),
  );
}

/** Names of the component schemas some request body or parameter reaches through `$ref`s. */
function requestSchemaNames(doc: Json): Set<string> {
  return schemasReached(
    doc,
    operationObjects(doc).flatMap(({ item, operation }) => [
      operation.requestBody,
      operation.parameters,
      item.parameters,
    ]),
  );
}

/** One named schema as `store-admin-sdk/schemas` exports it. */
interface SchemaExport {
  /** The export's name: the schema's type name, `<type name>Input` for the request view of one used both ways. */
  name: string;
  /** The contract's name of the schema. */
  schema: string;
  view: View;
}

/** The suffix of the request view's name of a schema that responses and requests both use. */
const REQUEST_VIEW_SUFFIX = "Input";

/**
 * Each named schema in the view it is used in: one a response reaches in the response view,
 * under its type name; one only requests (or nothing) reach in the request view, under its
 * type name too (as generated/names.ts types it); one both reach twice, the request view
 * named `<type name>Input`. Refuses a request view's name that another schema's type name
 * takes, naming both schemas.
 */
export function schemaExports(doc: Json): SchemaExport[] {
  const names = contractModel(doc).typeNames;
  const [inResponses, inRequests] = [responseSchemaNames(doc), requestSchemaNames(doc)];
  const byType = new Map([...names].map(([schema, type]) => [type, schema]));
  const out: SchemaExport[] = [];
  for (const [schema, type] of names) {
    out.push({ name: type, schema, view: inResponses.has(schema) ? "response" : "request" });
    if (!inResponses.has(schema) || !inRequests.has(schema)) continue;
    const name = `${type}${REQUEST_VIEW_SUFFIX}`;
    const taken = byType.get(name);
    if (taken !== undefined) {
      throw new ContractError(
        `${JSON.stringify(pointer("components", "schemas", schema))} is used in requests and responses, so store-admin-sdk/schemas exports its request view as ${name}, ` +
          `the type name of ${JSON.stringify(pointer("components", "schemas", taken))}; rename one of them.`,
      );
    }
    out.push({ name, schema, view: "request" });
  }
  return out;
}

// ─── Names ──────────────────────────────────────────────────────────────────────────

const RESERVED_WORDS = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in " +
    "instanceof new null return super switch this throw true try typeof var void while with implements interface let package private " +
    "protected public static yield any boolean number string symbol object never unknown undefined bigint"
  ).split(" "),
);
/** Names the generated modules use themselves: a schema may not take them. */
const GENERATED_NAMES = new Set([
  "Promise",
  "AsyncGenerator",
  "Blob",
  "NonNullable",
  "MethodOptions",
  "Readable",
  "Writable",
  "Schemas",
  "components",
  "operations",
  "paths",
]);

/** `line-item` → `LineItem`, `Product ` → `Product`, `2fa code` → `Schema2faCode`: words, each capitalised, joined. */
const pascalWords = (text: string): string => {
  const joined = text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");
  return /^[A-Za-z]/.test(joined) ? joined : `Schema${joined}`;
};

/**
 * The TypeScript name of a component schema: its own name when that is an identifier (and
 * no reserved word), else its words (runs of ASCII letters and digits) capitalised and joined,
 * prefixed `Schema` when that would start with a digit.
 */
function typeNameOf(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) && !RESERVED_WORDS.has(name) ? name : pascalWords(name);
}

/** Schema name → type name, refusing two schemas that map to one name, or a name the generated code uses. */
function typeNames(doc: Json): Map<string, string> {
  const schemas = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  const byType = new Map<string, string>();
  const out = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    const type = typeNameOf(name);
    const at = JSON.stringify(pointer("components", "schemas", name));
    if (GENERATED_NAMES.has(type))
      throw new ContractError(
        `${at}: the schema name ${JSON.stringify(name)} is one the generated code uses itself (${[...GENERATED_NAMES].join(", ")}); rename it.`,
      );
    const taken = byType.get(type);
    if (taken !== undefined) {
      throw new ContractError(
        `${JSON.stringify(pointer("components", "schemas", taken))} and ${at} both map to the type name ${type}; rename one of them.`,
      );
    }
    byType.set(type, name);
    out.set(name, type);
  }
  return out;
}

// ─── Operations ─────────────────────────────────────────────────────────────────────

export interface ContractModel {
  doc: Json;
  operations: OperationModel[];
  /** The version header the client sends, when the contract has one ({@link versionHeaderOf}). */
  versionHeader: { name: string; value: string } | undefined;
  /** Component schema name → its TypeScript name. */
  typeNames: Map<string, string>;
}

/** The first paragraph of a description, on one line. */
export function firstParagraph(text: unknown): string {
  return typeof text === "string"
    ? text
        .trim()
        .split(/\n\s*\n/)[0]!
        .replace(/\s*\n\s*/g, " ")
    : "";
}

/** The first sentence of a text: up to the first period followed by a space, or all of its first paragraph. */
const firstSentence = (text: unknown): string => firstParagraph(text).split(/(?<=\.)\s/)[0]!;

/** `security` as alternatives of scope sets; `at` names it in a refusal. */
function requirementsOf(security: unknown, at: string): { required: RequiredScopes; authenticated: boolean } {
  if (security === undefined) return { required: [], authenticated: false };
  if (!Array.isArray(security)) throw new ContractError(`${at}: security must be a list of requirements.`);
  const required: string[][] = [];
  let authenticated = false;
  for (const [i, requirement] of security.entries()) {
    if (!isObject(requirement))
      throw new ContractError(`${at}/${i}: a security requirement must map scheme names to lists of scopes.`);
    // `{}` among the alternatives: no authentication is one of them, so none is needed.
    if (Object.keys(requirement).length === 0) return { required: [], authenticated: false };
    authenticated = true;
    const scopes = Object.entries(requirement).flatMap(([scheme, list]) => {
      if (!Array.isArray(list) || list.some((s) => typeof s !== "string"))
        throw new ContractError(`${at}/${i}/${scheme}: must be a list of scope names.`);
      return list as string[];
    });
    required.push([...new Set(scopes)]);
  }
  return { required, authenticated };
}

/** Which offered media type a call is sent as; refuses a body none of them can carry. */
function chosenMediaType(offered: string[], at: string): string {
  const chosen = REQUEST_MEDIA_TYPES.find((type) => offered.includes(type));
  if (chosen === undefined) {
    throw new ContractError(
      `${at}: the request body is offered as ${offered.map((t) => JSON.stringify(t)).join(", ") || "nothing"}; the client sends only ${REQUEST_MEDIA_TYPES.join(", ")}.`,
    );
  }
  return chosen;
}

/**
 * The version header ({@link ContractModel.versionHeader}): the header marked
 * `x-sdk-version-header: true`, else the required header parameter of one `const` or
 * `enum` value that every operation declares; none when no header qualifies.
 */
function versionHeaderOf(doc: Json, operations: OperationModel[]): ContractModel["versionHeader"] {
  const single = (schema: Json): string | undefined => {
    const values = schema.const !== undefined ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : [];
    return values.length === 1 && typeof values[0] === "string" ? values[0] : undefined;
  };
  const candidates = new Map<
    string,
    { name: string; value: string | undefined; count: number; marked: boolean; at: string }
  >();
  for (const op of operations) {
    for (const [i, parameter] of op.parameters.entries()) {
      if (parameter.in !== "header" || typeof parameter.name !== "string") continue;
      const name = parameter.name.toLowerCase();
      const value = single(resolveRef(doc, parameter.schema, `${op.at}/parameters/${i}/schema`));
      const marked = parameter["x-sdk-version-header"] === true;
      const seen = candidates.get(name) ?? {
        name: parameter.name,
        value,
        count: 0,
        marked: false,
        at: `${op.at} (header ${parameter.name})`,
      };
      if (marked && value === undefined)
        throw new ContractError(
          `${op.at}: the header ${parameter.name} is marked x-sdk-version-header but its schema has no single const or enum value.`,
        );
      if (seen.value !== value) seen.value = undefined;
      seen.count += parameter.required === true ? 1 : 0;
      seen.marked ||= marked;
      candidates.set(name, seen);
    }
  }
  const all = [...candidates.values()];
  const marked = all.filter((c) => c.marked);
  const found =
    marked.length > 0
      ? marked
      : all.filter((c) => c.value !== undefined && c.count === operations.length && operations.length > 0);
  if (found.length > 1) {
    throw new ContractError(
      `${found.map((c) => c.at).join(" and ")}: more than one header could be the version header; mark the one with x-sdk-version-header: true.`,
    );
  }
  const header = found[0];
  if (header?.value === undefined) return undefined;
  return { name: header.name, value: header.value };
}

const cache = new WeakMap<object, ContractModel>();

/** The model of a parsed contract (memoised per document), or a {@link ContractError} naming what cannot be served. */
export function contractModel(doc: Json): ContractModel {
  const known = cache.get(doc);
  if (known) return known;
  checkNames(doc);
  const names = typeNames(doc);
  const operations: OperationModel[] = [];
  for (const [path, rawItem] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const itemAt = pointer("paths", path);
    const item = resolveRef(doc, rawItem, itemAt);
    for (const method of HTTP_METHODS) {
      if (item[method] !== undefined) operations.push(operationModel(doc, { path, method, item, itemAt }));
    }
  }
  try {
    nameMethods(operations, { resolve: (node, at) => resolveRef(doc, node, at), refName: schemaRefName });
  } catch (error) {
    throw error instanceof MethodNameError ? new ContractError(error.message) : error;
  }
  identifyOperations(operations);
  const model: ContractModel = { doc, operations, versionHeader: versionHeaderOf(doc, operations), typeNames: names };
  cache.set(doc, model);
  return model;
}

/** Where an operation is written: its path, its method, and its path item (resolved) with its pointer. */
interface OperationPlace {
  path: string;
  method: (typeof HTTP_METHODS)[number];
  item: Json;
  itemAt: string;
}

/** One operation's model, its method name and (without an operationId) its ids left to derive once every operation is read. */
function operationModel(doc: Json, { path, method, item, itemAt }: OperationPlace): OperationModel {
  const operation = item[method];
  const at = pointer("paths", path, method);
  if (!isObject(operation)) throw new ContractError(`${at}: an operation must be an object.`);
  const key = `${method.toUpperCase()} ${path}`;
  const explicitId =
    typeof operation.operationId === "string" && operation.operationId !== "" ? operation.operationId : undefined;
  const given = operation["x-sdk-method"];
  if (given !== undefined && (typeof given !== "string" || !METHOD_NAME.test(given))) {
    throw new ContractError(
      `${at}/x-sdk-method: must name the method as resource.verb (e.g. "users.retrieve"), got ${JSON.stringify(given)}.`,
    );
  }
  const { parameters, pathParams } = parametersOf(doc, { path, item, itemAt, operation, at });
  const body = requestBodyOf(doc, operation, at);
  const { responses, success } = responsesOf(doc, operation, at);
  const { required, authenticated } = requirementsOf(
    operation.security ?? doc.security,
    operation.security !== undefined ? `${at}/security` : "#/security",
  );
  const summary =
    (typeof operation.summary === "string" && operation.summary.trim()) || firstSentence(operation.description) || key;
  return {
    key,
    at,
    method,
    path,
    // Without an operationId, both are made of the method name, known once every operation is read.
    operationId: explicitId ?? "",
    ident:
      explicitId === undefined
        ? ""
        : /^[A-Za-z_$][\w$]*$/.test(explicitId)
          ? explicitId
          : camel(words(explicitId).length > 0 ? words(explicitId) : ["operation"]),
    // Derived (when empty) once every operation is read: the rule looks at the other paths.
    methodName: given ?? "",
    summary: summary.replace(/\.+$/, ""),
    description: firstParagraph(operation.description),
    security: required,
    authenticated,
    parameters,
    pathParams,
    pathArguments: argumentNames(pathParams, at),
    hasQuery: parameters.some((p) => p.in === "query"),
    ...(body ? { body } : {}),
    success,
    responses,
    tags: Array.isArray(operation.tags) ? operation.tags.filter((t): t is string => typeof t === "string") : [],
    operation,
  };
}

/** An operation's parameters, resolved (its own over its path item's of the same name and place), and its path template's parameter names, each declared. */
function parametersOf(
  doc: Json,
  { path, item, itemAt, operation, at }: { path: string; item: Json; itemAt: string; operation: Json; at: string },
): Pick<OperationModel, "parameters" | "pathParams"> {
  const byPlace = new Map<string, Json>();
  for (const [where, list] of [
    [`${itemAt}/parameters`, item.parameters],
    [`${at}/parameters`, operation.parameters],
  ] as const) {
    for (const [i, p] of (Array.isArray(list) ? list : []).entries()) {
      const parameter = resolveRef(doc, p, `${where}/${i}`);
      if (typeof parameter.name !== "string" || typeof parameter.in !== "string")
        throw new ContractError(`${where}/${i}: a parameter needs a name and an in.`);
      byPlace.set(`${parameter.in}:${parameter.name}`, parameter);
    }
  }
  const pathParams = [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
  for (const name of pathParams) {
    if (!byPlace.has(`path:${name}`))
      throw new ContractError(`${at}: the path parameter {${name}} is not declared in its parameters.`);
  }
  return { parameters: [...byPlace.values()], pathParams };
}

/** An operation's request body: the media type a call is sent as, every one offered, and their schemas. */
function requestBodyOf(doc: Json, operation: Json, at: string): OperationModel["body"] {
  if (operation.requestBody === undefined) return undefined;
  const bodyAt = `${at}/requestBody`;
  const requestBody = resolveRef(doc, operation.requestBody, bodyAt);
  const content = isObject(requestBody.content) ? requestBody.content : {};
  const offered = Object.keys(content).map((type) => type.split(";")[0]!.trim().toLowerCase());
  const schemas = Object.fromEntries(
    Object.entries(content).map(([type, media]) => [
      type.split(";")[0]!.trim().toLowerCase(),
      isObject(media) ? media.schema : undefined,
    ]),
  );
  return {
    mediaType: chosenMediaType(offered, `${bodyAt}/content`),
    offered,
    required: requestBody.required === true,
    schemas,
    at: bodyAt,
  };
}

/** An operation's responses, resolved, and its first 2xx one, which must be JSON when it has content. */
function responsesOf(doc: Json, operation: Json, at: string): Pick<OperationModel, "responses" | "success"> {
  const responses = Object.fromEntries(
    Object.entries(isObject(operation.responses) ? operation.responses : {}).map(([status, r]) => [
      status,
      resolveRef(doc, r, `${at}/responses/${pointer(status).slice(2)}`),
    ]),
  );
  const successStatus = Object.keys(responses).find((status) => /^2(\d\d|XX)$/.test(status));
  if (successStatus === undefined) throw new ContractError(`${at}/responses: declares no 2xx response.`);
  const successContent = isObject(responses[successStatus]!.content) ? (responses[successStatus]!.content as Json) : {};
  const json = successContent[JSON_MEDIA];
  if (Object.keys(successContent).length > 0 && !isObject(json)) {
    throw new ContractError(
      `${at}/responses/${successStatus}/content: the client reads only ${JSON_MEDIA} responses, not ${Object.keys(successContent).join(", ")}.`,
    );
  }
  return {
    responses,
    success: { status: successStatus, content: isObject(json), ...(isObject(json) ? { schema: json.schema } : {}) },
  };
}

/** Gives the operations without an operationId one made of their method name, and refuses two with one id. */
function identifyOperations(operations: OperationModel[]): void {
  const byIdent = new Map<string, OperationModel>();
  for (const model of operations) {
    if (model.operationId === "") model.operationId = model.ident = camel(model.methodName.split("."));
    const sameId = byIdent.get(model.ident);
    if (sameId)
      throw new ContractError(
        `${sameId.at} and ${model.at} both have the operationId ${JSON.stringify(model.ident)} (as written, or derived); change one.`,
      );
    byIdent.set(model.ident, model);
  }
}

/** What an operation needs, as a sentence for a reader: "Requires the scope `a`.", "… the scopes `a` and `b`.", "… the scope `a` or `b`.", "Requires an access token (no scope).", "Requires no authentication." */
export function scopeSentence(security: RequiredScopes): string {
  const words = requirementInWords(security, (scope) => `\`${scope}\``);
  if (words === "no authentication") return "Requires no authentication.";
  if (words === "no scope") return "Requires an access token (no scope).";
  return `Requires the scope${security.some((scopes) => scopes.length > 1) ? "s" : ""} ${words}.`;
}
