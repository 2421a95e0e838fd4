/**
 * The options the contract's TypeScript types are generated with (openapi-typescript), shared by
 * `scripts/generate.ts` and the contract diff's compile probe, so both compile against the same
 * types (a test compares the two).
 */
import type { OpenAPITSOptions } from "openapi-typescript";
import ts from "typescript";
import { docText, stringLiteral } from "./encode.js";
import type { Json } from "./contract-json.js";

/** `format: binary` would become `string`; an upload takes a Blob (a File is a Blob). */
const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier("Blob"));

const UNDEFINED = ts.factory.createKeywordTypeNode(ts.SyntaxKind.UndefinedKeyword);

/** Characters, or items, in the words a limit is read in. */
const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;

/**
 * The limits of a property's schema, in words, for its doc comment (openapi-typescript writes
 * the description, default and format, but not these): what an editor shows on hover.
 */
function limitsOf(schema: Json): string[] {
  const out: string[] = [];
  const types = ([] as unknown[]).concat(schema.type ?? []);
  const min = schema.minLength as number | undefined;
  const max = schema.maxLength as number | undefined;
  if (min !== undefined && max !== undefined) out.push(`From ${min} to ${plural(max, "character")}.`);
  else if (max !== undefined) out.push(`At most ${plural(max, "character")}.`);
  else if (min !== undefined) out.push(`At least ${plural(min, "character")}.`);
  const low = schema.minimum ?? schema.exclusiveMinimum;
  const high = schema.maximum ?? schema.exclusiveMaximum;
  const lowText =
    low === undefined ? "" : `${schema.exclusiveMinimum !== undefined ? "more than" : "at least"} ${low as number}`;
  const highText =
    high === undefined ? "" : `${schema.exclusiveMaximum !== undefined ? "less than" : "at most"} ${high as number}`;
  if (lowText || highText)
    out.push(`${[lowText, highText].filter(Boolean).join(", ")}.`.replace(/^./, (c) => c.toUpperCase()));
  if (schema.minItems !== undefined || schema.maxItems !== undefined) {
    out.push(
      `${[schema.minItems !== undefined ? `at least ${plural(schema.minItems as number, "item")}` : "", schema.maxItems !== undefined ? `at most ${plural(schema.maxItems as number, "item")}` : ""].filter(Boolean).join(", ")}.`.replace(
        /^./,
        (c) => c.toUpperCase(),
      ),
    );
  }
  if (typeof schema.pattern === "string") out.push(`Matches \`${schema.pattern}\`.`);
  if (Array.isArray(schema.enum))
    out.push(
      `One of ${schema.enum.map((value) => (value === null ? "null" : `\`${typeof value === "string" ? stringLiteral(value) : JSON.stringify(value)}\``)).join(", ")}.`,
    );
  if (schema.readOnly === true) out.push("Read-only (set by the store).");
  if (types.includes("null") || schema.nullable === true) out.push("May be null.");
  return out;
}

/** openapi-typescript's options for the contract `doc` (parsed). */
export function schemaTypeOptions(doc: Json): OpenAPITSOptions {
  const componentParameters = ((doc.components as Json | undefined)?.parameters ?? {}) as Record<string, Json>;
  const schemas = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const described = new WeakSet<object>();
  return {
    // readOnly fields (ids, timestamps) must not be demanded in request bodies.
    readWriteMarkers: true,
    // openapi-typescript makes a property with a `default` required unless told not to;
    // the spec calls such fields (e.g. `is_blocked`, default false) optional.
    defaultNonNullable: false,
    transform(schemaObject) {
      if (schemaObject.format === "binary") return BLOB;
      return undefined;
    },
    // A query parameter is optional, and a caller often holds it as `T | undefined` (a saved
    // cursor): say so, so that it compiles under `exactOptionalPropertyTypes` too.
    postTransform(type, options) {
      const path = options.path ?? "";
      const component = /^#\/components\/parameters\/([^/]+)$/.exec(path)?.[1];
      const isQuery =
        /\/parameters\/query\/[^/]+$/.test(path) ||
        (component !== undefined && componentParameters[component]?.in === "query");
      return isQuery ? ts.factory.createUnionTypeNode([type, UNDEFINED]) : undefined;
    },
    // openapi-typescript documents a property from its schema right after this hook: the
    // limits are added to the description it reads.
    transformProperty(property, schemaObject) {
      const schema = schemaObject as Json;
      if (described.has(schema)) return undefined;
      described.add(schema);
      // A field typed by a named schema: its values, when that schema lists them.
      const target =
        typeof schema.$ref === "string" ? schemas[schema.$ref.replace("#/components/schemas/", "")] : undefined;
      const limits = target ? limitsOf({ enum: target.enum }) : limitsOf(schema);
      if (limits.length > 0)
        schema.description = docText(
          [typeof schema.description === "string" ? schema.description.trim() : "", ...limits]
            .filter(Boolean)
            .join(" "),
        );
      return undefined;
    },
  };
}
