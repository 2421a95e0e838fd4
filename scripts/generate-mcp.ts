/**
 * Generates `generated/mcp-tools.ts`: one Model Context Protocol tool per operation of the
 * contract, for the MCP server (`store-admin-sdk mcp`, `store-admin-sdk/mcp`).
 *
 * - The name is the operation's method name (`x-sdk-method`, e.g. `giftCards.update`) with
 *   each `.` replaced by `_` (`giftCards_update`). Two operations that map to one name, a
 *   name that clashes with the server's own `validate_call` tool, or a name MCP clients
 *   refuse (over 64 characters, or a character outside `A-Z a-z 0-9 _ -`) stop the generator
 *   with a sentence naming the operations' JSON pointers.
 * - The description is the summary, the description's first paragraph, and what the token
 *   needs (the operation's security requirements, in words).
 * - The arguments are `{ path?, query?, body? }`, the shape of the bulk command's JSON lines,
 *   as a JSON Schema derived from the contract: path and query parameters (the version header
 *   is the client's to send, never the caller's), the request body's schema without its
 *   `readOnly` properties, each referenced component schema copied under `$defs`. A file
 *   field (`format: binary`) takes `{ filename, contentType?, base64 }`. List operations
 *   also take `offset`, to read the rest of a page a result had to cut.
 * - Annotations follow MCP's definitions: reads are read-only; a write is idempotent for
 *   `PUT` and `DELETE` only (the SDK never resends a `POST` or `PATCH`), and destructive
 *   unless it is a `POST` the contract does not mark `x-sdk-destructive: true`.
 *
 * `tsx scripts/generate-mcp.ts` writes the file; `--check` exits 1 when it is stale;
 * `--spec FILE` and `--out DIR` as for the other generators.
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  contractModel,
  firstParagraph,
  isObject,
  type OperationModel,
  ownedByOther,
  refTarget,
  requirementInWords,
  resolveRef,
  schemaRefName,
} from "./contract-model.js";
import { jsonCode, keyed, stringLiteral } from "./encode.js";
import { pathArgument, writeGenerated } from "./generated-files.js";
import { loadContractFile } from "./load-contract.js";
import type { Json } from "./contract-json.js";

/** The methods whose operations become tools (not HEAD, OPTIONS or TRACE). */
const TOOL_METHODS = ["get", "put", "post", "delete", "patch"] as const;
/** The tool the server always lists beside the operations' tools. */
export const VALIDATE_CALL = "validate_call";
/** What MCP clients accept as a tool name. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** The largest file a tool call may upload, decoded: base64 in a JSON-RPC message grows it by a third. */
export const MAX_UPLOAD_BYTES = 4 * 1024 * 1024;

/**
 * A schema as a tool takes it: component `$ref`s point into `$defs` (collected in `defs`),
 * `readOnly` properties are dropped (a request never sends them), a binary string becomes a
 * file object, examples stay out (they are the contract's, not the tool's).
 */
function toolSchema(doc: Json, node: unknown, defs: Json): unknown {
  if (Array.isArray(node)) return node.map((item) => toolSchema(doc, item, defs));
  if (!isObject(node)) return node;
  if (typeof node.$ref === "string") {
    const ref = node.$ref;
    const name = schemaRefName(node);
    if (name === undefined) return toolSchema(doc, refTarget(doc, ref), defs);
    const key = name.replace(/[^A-Za-z0-9_.-]/g, "_");
    if (!(key in defs)) {
      defs[key] = true; // placeholder: a schema that refers to itself stops here
      defs[key] = toolSchema(doc, refTarget(doc, ref), defs);
    }
    return { $ref: `#/$defs/${key}` };
  }
  if (node.type === "string" && (node.format === "binary" || node.contentMediaType === "application/octet-stream"))
    return FILE_SCHEMA;
  const out: Json = keyed();
  const readOnly = new Set<string>();
  if (isObject(node.properties)) {
    const properties: Json = keyed();
    for (const [name, schema] of Object.entries(node.properties)) {
      if (ownedByOther(doc, schema, "request", `a tool schema's property ${name}`)) readOnly.add(name);
      else properties[name] = toolSchema(doc, schema, defs);
    }
    out.properties = properties;
  }
  for (const [key, value] of Object.entries(node)) {
    if (
      key === "properties" ||
      key === "example" ||
      key === "examples" ||
      key === "readOnly" ||
      key === "writeOnly" ||
      key.startsWith("x-")
    )
      continue;
    if (key === "required" && Array.isArray(value)) out.required = value.filter((name) => !readOnly.has(String(name)));
    else if (key === "discriminator")
      continue; // OpenAPI's, not JSON Schema's: the mapping's `$ref`s would dangle
    else out[key] = toolSchema(doc, value, defs);
  }
  return out;
}

const FILE_SCHEMA = {
  type: "object",
  description: `A file, its content in base64 (at most ${MAX_UPLOAD_BYTES} bytes decoded).`,
  properties: {
    filename: { type: "string", minLength: 1, maxLength: 255 },
    contentType: {
      type: "string",
      description: "The file's media type, e.g. image/png (default application/octet-stream).",
    },
    base64: { type: "string", contentEncoding: "base64", maxLength: Math.ceil(MAX_UPLOAD_BYTES / 3) * 4 },
  },
  required: ["filename", "base64"],
  additionalProperties: false,
};

export interface ToolRow {
  name: string;
  /** The operation's method name, as the SDK's client has it: `giftCards.update`. */
  methodName: string;
  /** The operation: `"METHOD /path/"`. */
  operation: string;
  method: string;
  path: string;
  title: string;
  description: string;
  /** Alternatives of scope sets, any one of which suffices: `[]` when no authentication is needed. */
  scopes: string[][];
  tags: string[];
  /** A cursor-paginated list: takes `offset`, answers one page and its cursor. */
  list: boolean;
  /** The body is sent as `multipart/form-data`: file fields are `{ filename, contentType?, base64 }`. */
  multipart: boolean;
  inputSchema: { type: "object"; [keyword: string]: unknown };
  annotations: {
    title: string;
    readOnlyHint: boolean;
    idempotentHint?: boolean;
    destructiveHint?: boolean;
    openWorldHint: true;
  };
}

/** Whether a schema admits an array: `type: array` (or among its types), or an alternative of `oneOf`/`anyOf` that does. */
function mayBeArray(doc: Json, node: unknown, at: string): boolean {
  if (node === undefined) return false;
  const schema = resolveRef(doc, node, at);
  if (schema.type === "array" || (Array.isArray(schema.type) && schema.type.includes("array"))) return true;
  return (["oneOf", "anyOf"] as const).some(
    (keyword) =>
      Array.isArray(schema[keyword]) &&
      (schema[keyword] as unknown[]).some((option, i) => mayBeArray(doc, option, `${at}/${keyword}/${i}`)),
  );
}

export function mcpTools(doc: Json): ToolRow[] {
  const rows: ToolRow[] = [];
  const byName = new Map<string, string>();
  for (const op of contractModel(doc).operations) {
    const { method, path, methodName } = op;
    if (!(TOOL_METHODS as readonly string[]).includes(method)) continue;
    const name = toolName(op, byName);
    const { inputSchema, list, mediaType } = toolInput(doc, op);
    const requirements = op.security.map((scopes) => [...scopes]);
    const title = op.summary || `${method.toUpperCase()} ${path}`;
    const verb = method.toUpperCase();
    const read = method === "get";
    const destructive = method === "post" ? op.operation["x-sdk-destructive"] === true : true;
    rows.push({
      name,
      methodName,
      operation: `${verb} ${path}`,
      method: verb,
      path,
      title,
      description: toolDescription(op, requirements, list),
      scopes: requirements,
      tags: op.tags,
      list,
      multipart: mediaType === "multipart/form-data",
      inputSchema,
      annotations: read
        ? { title, readOnlyHint: true, openWorldHint: true }
        : {
            title,
            readOnlyHint: false,
            idempotentHint: method === "put" || method === "delete",
            destructiveHint: destructive,
            openWorldHint: true,
          },
    });
  }
  return rows;
}

/** An operation's tool name (its method name with `_` for `.`), refused when MCP clients would not take it or another tool has it. */
function toolName({ methodName, at: where }: OperationModel, byName: Map<string, string>): string {
  const name = methodName.replace(/\./g, "_");
  if (!TOOL_NAME.test(name)) {
    throw new Error(
      `${where}: the tool name ${JSON.stringify(name)} (from the method name ${JSON.stringify(methodName)}) is not 1 to 64 letters, digits, "_" or "-", which MCP clients require.`,
    );
  }
  if (name === VALIDATE_CALL)
    throw new Error(
      `${where}: the method name ${JSON.stringify(methodName)} makes the tool name ${VALIDATE_CALL}, which the server's own tool has.`,
    );
  const other = byName.get(name);
  if (other !== undefined)
    throw new Error(
      `${other} and ${where} both make the tool name ${JSON.stringify(name)}: give one of them another x-sdk-method.`,
    );
  byName.set(name, where);
  return name;
}

/** A tool's input schema (path, query, body and, for what is read in parts, `offset`), whether it lists a page, and the body's media type. */
function toolInput(
  doc: Json,
  op: OperationModel,
): { inputSchema: ToolRow["inputSchema"]; list: boolean; mediaType: string | undefined } {
  const { method, parameters, at: where } = op;
  const defs: Json = keyed();
  const group = (location: "path" | "query"): Json | undefined => {
    const own = parameters.filter((p) => p.in === location);
    if (own.length === 0) return undefined;
    const properties: Json = keyed();
    for (const p of own) {
      const schema = toolSchema(doc, p.schema ?? {}, defs) as Json;
      properties[String(p.name)] =
        typeof p.description === "string" && !("$ref" in schema)
          ? { ...schema, description: firstParagraph(p.description) }
          : schema;
    }
    const required = own.filter((p) => p.required === true || location === "path").map((p) => String(p.name));
    return { type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
  };
  const properties: Json = {};
  const required: string[] = [];
  const pathSchema = group("path");
  if (pathSchema) (properties.path = pathSchema), required.push("path");
  const querySchema = group("query");
  if (querySchema) properties.query = querySchema;
  // The media type the client sends (JSON where offered, then a form, then multipart: the model's choice), so the tool's schema is that one's.
  const mediaType = op.body?.mediaType;
  if (op.body !== undefined && mediaType !== undefined) {
    properties.body = toolSchema(doc, op.body.schemas[mediaType] ?? {}, defs);
    if (op.body.required) required.push("body");
  }
  const list = method === "get" && parameters.some((p) => p.in === "query" && p.name === "cursor");
  // An answer that is a whole array (no cursor) is read in parts the same way: by offset.
  const array =
    !list && method === "get" && mayBeArray(doc, op.success.schema, `${where}/responses/${op.success.status}`);
  if (list || array) {
    properties.offset = {
      type: "integer",
      minimum: 0,
      description: `Skip this many items of the ${list ? "page" : "answer"}: to read the rest of ${list ? "a page" : "an answer"} that a result had to cut (the result says which offset to ask for).`,
    };
  }
  const inputSchema: ToolRow["inputSchema"] = {
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
  if (Object.keys(defs).length > 0) inputSchema.$defs = defs;
  return { inputSchema, list, mediaType };
}

/** A tool's description: its summary and first paragraph, its method, path and scopes, and how a page is read on. */
function toolDescription(op: OperationModel, requirements: string[][], list: boolean): string {
  const { summary, description: paragraph, path } = op;
  const verb = op.method.toUpperCase();
  const needs = requirementInWords(requirements, (scope) => scope);
  return [
    summary,
    paragraph !== summary ? paragraph : "",
    `${verb} ${path}. Needs ${requirements.length === 0 || needs === "no scope" ? needs : `the scope ${needs}`}.`,
    list ? "Answers one page: its items, and `next_cursor` for the next page (pass it as query.cursor)." : "",
  ]
    .filter((part) => part !== "")
    .join("\n\n");
}

/** The source of `generated/mcp-tools.ts`. */
export function render(rows: ToolRow[]): string {
  return `// Generated by scripts/generate-mcp.ts from openapi/store-admin.yaml. Do not edit by hand: run \`npm run generate\`.

/**
 * One Model Context Protocol tool per operation (src/mcp/ serves them): its name, description,
 * the JSON Schema of its arguments \`{ path?, query?, body? }\`, its annotations, and what the
 * server needs to call it and to filter the list (\`--allow-writes\`, \`--scopes\`, \`--tools\`).
 */
export interface McpToolRow {
  readonly name: string;
  /** The operation's method name, as the SDK's client has it: \`giftCards.update\`. */
  readonly methodName: string;
  /** The operation, \`"METHOD /path/"\`. */
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  readonly title: string;
  readonly description: string;
  /** Alternatives of scope sets, any one of which suffices; empty when no authentication is needed. */
  readonly scopes: readonly (readonly string[])[];
  readonly tags: readonly string[];
  /** A cursor-paginated list: one page a call, with \`offset\` for the rest of a cut page. */
  readonly list: boolean;
  /** The body goes as multipart/form-data; file fields are \`{ filename, contentType?, base64 }\`. */
  readonly multipart: boolean;
  readonly inputSchema: { readonly type: "object"; readonly [keyword: string]: unknown };
  readonly annotations: {
    readonly title: string;
    readonly readOnlyHint: boolean;
    readonly idempotentHint?: boolean;
    readonly destructiveHint?: boolean;
    readonly openWorldHint: true;
  };
}

/** The largest file a tool call uploads, decoded. */
export const MAX_UPLOAD_BYTES = ${MAX_UPLOAD_BYTES};

/** The server's own tool, which checks a call against the contract: no operation's tool may take its name. */
export const VALIDATE_CALL = ${stringLiteral(VALIDATE_CALL)};

// One tool a line.
export const mcpTools: readonly McpToolRow[] = [
${rows.map((row) => `  ${jsonCode(row)},`).join("\n")}
];
`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const spec = pathArgument("--spec", new URL("../openapi/store-admin.yaml", import.meta.url));
  let rows: ToolRow[];
  try {
    rows = mcpTools(loadContractFile(fileURLToPath(spec)));
  } catch (error) {
    console.error(`Cannot generate the MCP tools from ${fileURLToPath(spec)}: ${(error as Error).message}`);
    process.exit(1);
  }
  await writeGenerated(
    pathArgument("--out", new URL("../generated/", import.meta.url)),
    { "mcp-tools.ts": render(rows) },
    process.argv.includes("--check"),
  );
}
