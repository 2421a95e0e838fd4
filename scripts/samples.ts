/**
 * Values and code made from the contract where a person wrote none:
 *
 * - {@link minimalInstance}: the smallest value a schema accepts, as a request or a response
 *   sees it (the testing kit answers with it when a response has no example; samples send it).
 * - {@link sampleSource}: an operation's sample, `docs/samples/<operationId>.ts` when someone
 *   wrote it, else one generated from the method's name, path values and a body taken from
 *   the contract's example or built from its schema. Both the reference (docs.ts) and the
 *   methods' JSDoc (generate.ts) show it.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  isObject,
  JSON_MEDIA,
  ownedByOther,
  resolveRef,
  type ContractModel,
  type OperationModel,
  type View,
} from "./contract-model.js";
import { keyed, stringLiteral } from "./encode.js";
import type { Json } from "./contract-json.js";

/** Stands for a file in a generated value: printed as `new Blob([…])` in code. */
export const FILE = Symbol("file");

const STRING_FORMATS: Record<string, string> = {
  "date-time": "2026-01-01T00:00:00Z",
  date: "2026-01-01",
  time: "12:00:00Z",
  email: "user@example.com",
  uri: "https://example.com/",
  url: "https://example.com/",
  uuid: "00000000-0000-4000-8000-000000000000",
  ipv4: "192.0.2.1",
};

/**
 * The smallest value `schema` accepts as `view` sees it: a scalar's example, const, first enum
 * value or default, else a value of its type within its limits; an object's required
 * properties (not those the other direction owns); an array of `minItems` items; the first
 * `oneOf`/`anyOf` branch; `allOf` merged. A request's `format: binary` is {@link FILE}.
 */
export function minimalInstance(doc: Json, schema: unknown, view: View, at: string, depth = 0): unknown {
  const s = resolveRef(doc, schema, at);
  if (depth > 12) return null;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const branches = (s.oneOf ?? s.anyOf) as unknown[] | undefined;
  if (Array.isArray(branches) && branches.length > 0)
    return minimalInstance(doc, branches[0], view, `${at}/${s.oneOf ? "oneOf" : "anyOf"}/0`, depth + 1);
  const types = ([] as unknown[]).concat(s.type ?? []);
  const type =
    (types.find((t) => t !== "null") as string | undefined) ??
    (types.length > 0 ? "null" : isObject(s.properties) || Array.isArray(s.allOf) ? "object" : undefined);
  const scalarExample = s.example ?? (Array.isArray(s.examples) ? s.examples[0] : undefined) ?? s.default;
  if (
    type !== "object" &&
    type !== "array" &&
    scalarExample !== undefined &&
    !(view === "request" && s.format === "binary")
  )
    return scalarExample;
  switch (type) {
    case "null":
      return null;
    case "boolean":
      return false;
    case "integer":
    case "number": {
      const low =
        typeof s.minimum === "number" ? s.minimum : typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum + 1 : 1;
      const high =
        typeof s.maximum === "number"
          ? s.maximum
          : typeof s.exclusiveMaximum === "number"
            ? s.exclusiveMaximum - 1
            : low;
      return type === "integer" ? Math.ceil(Math.min(low, high)) : Math.min(low, high);
    }
    case "string": {
      if (s.format === "binary") return view === "request" ? FILE : "";
      const min = typeof s.minLength === "number" ? s.minLength : 0;
      const max = typeof s.maxLength === "number" ? s.maxLength : Infinity;
      const text = STRING_FORMATS[s.format as string] ?? "example";
      return text.length >= min && text.length <= max ? text : "x".repeat(Math.max(min, 1));
    }
    case "array": {
      const count = typeof s.minItems === "number" ? s.minItems : 0;
      return Array.from({ length: count }, () => minimalInstance(doc, s.items, view, `${at}/items`, depth + 1));
    }
    case "object": {
      const out: Json = keyed();
      for (const [i, part] of ((s.allOf as unknown[] | undefined) ?? []).entries()) {
        Object.assign(out, minimalInstance(doc, part, view, `${at}/allOf/${i}`, depth + 1));
      }
      const properties = isObject(s.properties) ? s.properties : {};
      for (const name of (s.required as string[] | undefined) ?? []) {
        const property = properties[name];
        const where = `${at}/properties/${name}`;
        if (property === undefined || ownedByOther(doc, property, view, where)) continue;
        out[name] = minimalInstance(doc, property, view, where, depth + 1);
      }
      return out;
    }
    default:
      return {};
  }
}

/** How a generated sample writes a file: a Blob, as the SDK takes one. */
const BLOB_SOURCE = 'new Blob(["file contents"])';

/** A value written as TypeScript source (a file as `file`), indented by `indent`. */
function literal(value: unknown, indent = "", file = BLOB_SOURCE): string {
  if (value === FILE) return file;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((item) => `${indent}  ${literal(item, `${indent}  `, file)},`).join("\n")}\n${indent}]`;
  }
  if (isObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return "{}";
    // `__proto__` as a plain key would set the prototype: a computed key makes it a property.
    const key = (name: string) =>
      name === "__proto__" ? `[${stringLiteral(name)}]` : /^[A-Za-z_$][\w$]*$/.test(name) ? name : stringLiteral(name);
    return `{\n${entries.map(([name, item]) => `${indent}  ${key(name)}: ${literal(item, `${indent}  `, file)},`).join("\n")}\n${indent}}`;
  }
  return typeof value === "string" ? stringLiteral(value) : (JSON.stringify(value) ?? "undefined");
}

/** The example a media object gives: `example`, or its first named example's value. */
export function mediaExample(doc: Json, media: unknown, at: string): unknown {
  if (!isObject(media)) return undefined;
  if (media.example !== undefined) return media.example;
  const examples = isObject(media.examples) ? Object.entries(media.examples) : [];
  return examples.length > 0 ? resolveRef(doc, examples[0]![1], `${at}/examples/${examples[0]![0]}`).value : undefined;
}

/** The names a request may send in an object schema (its own and `allOf` properties, not `readOnly`). */
function writableNames(doc: Json, schema: unknown, at: string): Set<string> {
  const s = resolveRef(doc, schema, at);
  const names = new Set<string>();
  for (const [name, property] of Object.entries(isObject(s.properties) ? s.properties : {})) {
    if (!ownedByOther(doc, property, "request", `${at}/properties/${name}`)) names.add(name);
  }
  for (const [i, part] of ((s.allOf as unknown[] | undefined) ?? []).entries())
    writableNames(doc, part, `${at}/allOf/${i}`).forEach((n) => names.add(n));
  return names;
}

/** The values of a generated call, from the contract: each path value, the body (the contract's example, else built), the required query. */
export function sampleValues(
  model: ContractModel,
  op: OperationModel,
): { path: Record<string, unknown>; body?: unknown; query?: Json } {
  const { doc } = model;
  const path = Object.fromEntries(
    op.pathParams.map((name) => {
      const i = op.parameters.findIndex((p) => p.in === "path" && p.name === name);
      const parameter = op.parameters[i]!;
      return [
        name,
        parameter.example ?? minimalInstance(doc, parameter.schema, "request", `${op.at}/parameters/${i}/schema`),
      ];
    }),
  );
  const values: { path: Record<string, unknown>; body?: unknown; query?: Json } = { path };
  if (op.body) {
    const schema = op.body.schemas[op.body.mediaType];
    const content = (resolveRef(doc, op.operation.requestBody, op.body.at).content ?? {}) as Json;
    const media = Object.entries(content).find(
      ([type]) => type.split(";")[0]!.trim().toLowerCase() === op.body!.mediaType,
    )?.[1];
    let value = op.body.mediaType === JSON_MEDIA ? mediaExample(doc, media, `${op.body.at}/content`) : undefined;
    // An example may show read-only fields (a shared schema): a body leaves them out.
    if (isObject(value)) {
      const allowed = writableNames(doc, schema, `${op.body.at}/schema`);
      value = Object.fromEntries(Object.entries(value).filter(([name]) => allowed.has(name)));
    }
    values.body = value ?? minimalInstance(doc, schema, "request", `${op.body.at}/schema`);
  }
  const required = op.parameters.filter((p) => p.in === "query" && p.required === true);
  if (required.length > 0)
    values.query = Object.fromEntries(
      required.map((p) => [p.name, p.example ?? minimalInstance(doc, p.schema, "request", `${op.at}/parameters`)]),
    );
  return values;
}

/** The arguments of a generated call, as source: path values, then the body, then the required query. */
function sampleArguments(model: ContractModel, op: OperationModel, file: string): string[] {
  const { path, body, query } = sampleValues(model, op);
  return [...op.pathParams.map((name) => path[name]), ...(op.body ? [body] : []), ...(query ? [query] : [])].map(
    (value) => literal(value, "", file),
  );
}

/**
 * An operation's sample, generated: the client set up, the call, its result used. `file`: how a
 * file is written (a Blob by default; code mode's sandbox takes JSON).
 */
export function generatedSample(
  model: ContractModel,
  op: OperationModel,
  paginated: boolean,
  file = BLOB_SOURCE,
): string {
  const call = `store.${op.methodName}(${sampleArguments(model, op, file).join(", ")})`;
  const use = paginated
    ? `for await (const item of ${call}) console.log(item);`
    : op.success.content
      ? `const result = await ${call};\nconsole.log(result);`
      : `await ${call};`;
  return `import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

${use}
`;
}

/**
 * The hand-written samples under `samplesDir`, by operationId: the regular files `<operationId>.ts`
 * the folder lists. A sample is found by its file's name, never by a path made of an
 * operationId (which is contract text: `../../etc/passwd#` would name any file).
 */
export async function writtenSamples(samplesDir: URL): Promise<ReadonlyMap<string, string>> {
  const entries = await readdir(samplesDir, { withFileTypes: true }).catch(() => []);
  const files = entries.filter((entry) => entry.isFile() && entry.name.endsWith(".ts"));
  return new Map(
    await Promise.all(
      files.map(
        async (entry) =>
          [entry.name.slice(0, -3), await readFile(join(fileURLToPath(samplesDir), entry.name), "utf8")] as const,
      ),
    ),
  );
}

/** An operation's sample: the one written ({@link writtenSamples}), else one generated from the contract. */
export function sampleSource(samples: ReadonlyMap<string, string>, model: ContractModel, op: OperationModel): string {
  return samples.get(op.operationId) ?? generatedSample(model, op, isPaginated(model, op));
}

/** Whether an operation is a cursor-paginated list: it takes `cursor` and its success body has `results`. */
export function isPaginated(model: ContractModel, op: OperationModel): boolean {
  if (op.method !== "get" || !op.parameters.some((p) => p.in === "query" && p.name === "cursor") || !op.success.schema)
    return false;
  const has = (schema: unknown, at: string): boolean => {
    const s = resolveRef(model.doc, schema, at);
    return (
      (isObject(s.properties) && "results" in s.properties) ||
      ((s.allOf as unknown[] | undefined) ?? []).some((part, i) => has(part, `${at}/allOf/${i}`))
    );
  };
  return has(op.success.schema, `${op.at}/responses/${op.success.status}`);
}
