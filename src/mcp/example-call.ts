/**
 * One example call of an operation, made from its arguments' JSON Schema: the required path,
 * query and body values (a body none of whose fields is required shows its first), each a
 * value its schema accepts (an enumeration's first value, a format's usual form, a length or a
 * range's least). `describe_operation` shows it; a test checks every one against the contract.
 */
type Schema = Record<string, unknown>;

/** Values of a string format, as the contract's validators accept them. */
const FORMATS: Record<string, string> = {
  date: "2024-05-01",
  "date-time": "2024-05-01T12:00:00Z",
  time: "12:00:00Z",
  email: "ada@example.com",
  uri: "https://example.com/",
  url: "https://example.com/",
  uuid: "3f2c8a52-8d4e-4b7e-9a51-2f0d6c1e7a10",
  ipv4: "192.0.2.1",
};

/** The deepest schema the example follows: a schema that refers to itself stops here. */
const MAX_DEPTH = 6;

function stringExample(schema: Schema): string {
  const format = typeof schema.format === "string" ? FORMATS[schema.format] : undefined;
  if (format !== undefined) return format;
  if (schema.contentEncoding === "base64") return "aGVsbG8=";
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Infinity;
  const text = "example".padEnd(min, "x");
  return text.slice(0, Math.max(min, Math.min(max, text.length)));
}

function numberExample(schema: Schema, integer: boolean): number {
  const min =
    typeof schema.minimum === "number"
      ? schema.minimum
      : typeof schema.exclusiveMinimum === "number"
        ? schema.exclusiveMinimum + 1
        : 1;
  const max = typeof schema.maximum === "number" ? schema.maximum : Infinity;
  const value = Math.min(Math.max(min, 1), max);
  return integer ? Math.ceil(value) : value;
}

function objectExample(schema: Schema, defs: Schema, depth: number): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const shown = required.length > 0 ? required : Object.keys(properties).slice(0, 1);
  return Object.fromEntries(
    shown.filter((name) => name in properties).map((name) => [name, exampleOf(properties[name], defs, depth + 1)]),
  );
}

/** A value `schema` accepts (`defs`: the `$defs` its `$ref`s point into). */
function exampleOf(node: unknown, defs: Schema, depth = 0): unknown {
  if (node === null || typeof node !== "object" || depth > MAX_DEPTH) return null;
  let schema = node as Schema;
  if (typeof schema.$ref === "string") schema = (defs[schema.$ref.replace("#/$defs/", "")] ?? {}) as Schema;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.find((value) => value !== null) ?? null;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const options = schema[keyword];
    if (Array.isArray(options) && options.length > 0)
      return exampleOf(options.find((option: Schema) => option.type !== "null") ?? options[0], defs, depth + 1);
  }
  if (Array.isArray(schema.allOf))
    return Object.assign({}, ...schema.allOf.map((part) => exampleOf(part, defs, depth + 1)));
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type];
  const type = types.find((t) => t !== "null") ?? (schema.properties ? "object" : undefined);
  switch (type) {
    case "string":
      return stringExample(schema);
    case "integer":
      return numberExample(schema, true);
    case "number":
      return numberExample(schema, false);
    case "boolean":
      return true;
    case "array":
      return Array.from({ length: typeof schema.minItems === "number" ? Math.max(1, schema.minItems) : 1 }, () =>
        exampleOf(schema.items, defs, depth + 1),
      );
    case "object":
      return objectExample(schema, defs, depth);
    default:
      return types.includes("null") ? null : "example";
  }
}

/** The arguments `{ path?, query?, body? }` of an example call, from a tool's input schema. */
export function exampleArguments(inputSchema: Schema): Record<string, unknown> {
  const defs = (inputSchema.$defs ?? {}) as Schema;
  const properties = (inputSchema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(inputSchema.required) ? (inputSchema.required as string[]) : []);
  const out: Record<string, unknown> = {};
  for (const part of ["path", "query", "body"] as const) {
    const schema = properties[part];
    if (schema === undefined) continue;
    // A query is shown when it has required values; an optional body when it has a field.
    if (part === "query" && !(Array.isArray(schema.required) && schema.required.length > 0)) continue;
    const value = exampleOf(schema, defs);
    if (required.has(part) || (value !== null && !(typeof value === "object" && Object.keys(value).length === 0)))
      out[part] = value;
  }
  return out;
}
