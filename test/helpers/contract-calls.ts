/**
 * One valid call of each operation, made from the contract, so that a test over every
 * operation holds no table of its own and an operation added to the contract is tested
 * with no edit here: path values and the body as the operation's generated sample has them
 * (scripts/samples.ts: the contract's examples, else the smallest values its schemas accept),
 * every query parameter but the cursor, and a file in each file field of a form.
 */
import { contractModel, isObject, resolveRef, type OperationModel } from "../../scripts/contract-model.js";
import { CONTRACT_PATH } from "../../scripts/facts.js";
import { loadContractFile } from "../../scripts/load-contract.js";
import { FILE, minimalInstance, sampleValues } from "../../scripts/samples.js";
import type { OperationKey } from "../../generated/operations.js";
import type { StoreAdminClient } from "../../src/index.js";

type Json = Record<string, unknown>;

/** The contract's model (scripts/contract-model.ts), read once. */
export const contract = contractModel(loadContractFile(CONTRACT_PATH));

export interface ContractCall {
  key: OperationKey;
  operationId: string;
  methodName: string;
  /** Upper case. */
  method: string;
  template: string;
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  /** The JSON body, or a form's fields (a file field holds a `File`); undefined without one. */
  body?: unknown;
  /** The media type the body goes as. */
  mediaType?: string;
  /** The path with its values in, and the query, as a server receives them. */
  url: { pathname: string; query: Record<string, string> };
}

/** Whether a schema is a file: `format: binary`, or a list or a branch of them. */
function isFile(doc: Json, schema: unknown, at: string): boolean {
  const s = resolveRef(doc, schema, at);
  if (s.format === "binary") return true;
  if (s.items !== undefined && isFile(doc, s.items, `${at}/items`)) return true;
  return ["oneOf", "anyOf"].some(
    (k) => Array.isArray(s[k]) && (s[k] as unknown[]).some((branch, i) => isFile(doc, branch, `${at}/${k}/${i}`)),
  );
}

/** A form's fields with a file in each file field, required or not: a test of a form sends one. */
function formWithFiles(doc: Json, op: OperationModel, fields: unknown): Json {
  const at = `${op.body!.at}/schema`;
  const schema = resolveRef(doc, op.body!.schemas[op.body!.mediaType], at);
  const out: Json = { ...(isObject(fields) ? fields : {}) };
  for (const [name, property] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
    if (isFile(doc, property, `${at}/properties/${name}`))
      out[name] = new File(["file contents"], `${name}.txt`, { type: "text/plain" });
  }
  for (const [name, value] of Object.entries(out))
    if (value === FILE) out[name] = new File(["file contents"], `${name}.txt`, { type: "text/plain" });
  return out;
}

function callOf(op: OperationModel): ContractCall {
  const { doc } = contract;
  const values = sampleValues(contract, op);
  const query: Json = { ...values.query };
  for (const [i, p] of op.parameters.entries()) {
    if (p.in !== "query" || p.name === "cursor" || typeof p.name !== "string" || p.name in query) continue;
    query[p.name] = p.example ?? minimalInstance(doc, p.schema, "request", `${op.at}/parameters/${i}/schema`);
  }
  const body = op.body && op.body.mediaType !== "application/json" ? formWithFiles(doc, op, values.body) : values.body;
  const pathname = op.path.replace(/\{([^{}]+)\}/g, (_, name: string) => encodeURIComponent(String(values.path[name])));
  return {
    key: op.key as OperationKey,
    operationId: op.operationId,
    methodName: op.methodName,
    method: op.method.toUpperCase(),
    template: op.path,
    path: values.path,
    query,
    ...(op.body ? { body, mediaType: op.body.mediaType } : {}),
    url: { pathname, query: Object.fromEntries(Object.entries(query).map(([name, value]) => [name, String(value)])) },
  };
}

/** One call of each operation of the contract, in the contract's order. */
export const contractCalls: readonly ContractCall[] = contract.operations.map(callOf);

/** Makes the call in openapi-fetch's style (`store.GET(path, { params, body })`). */
export function callPathStyle(
  store: StoreAdminClient,
  call: ContractCall,
): Promise<{ data?: unknown; error?: unknown; response: Response }> {
  const send = (
    store as unknown as Record<
      string,
      (path: string, init: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>
    >
  )[call.method]!;
  return send(call.template, {
    params: { path: call.path, query: call.query },
    ...(call.body !== undefined ? { body: call.body } : {}),
  });
}

/** The form's text fields as a server reads them (files apart). */
export const formTextFields = (body: unknown): Record<string, string> =>
  Object.fromEntries(
    Object.entries(isObject(body) ? body : {})
      .filter(([, v]) => !(v instanceof Blob))
      .map(([k, v]) => [k, String(v)]),
  );

/** The names of a form's file fields. */
export const formFileFields = (body: unknown): string[] =>
  Object.entries(isObject(body) ? body : {})
    .filter(([, v]) => v instanceof Blob)
    .map(([k]) => k);

/** A form's files as an MCP tool takes them (`{ filename, contentType, base64 }`); other values as they are. */
async function asToolArgument(value: unknown): Promise<unknown> {
  if (value instanceof File)
    return {
      filename: value.name,
      contentType: value.type,
      base64: Buffer.from(await value.arrayBuffer()).toString("base64"),
    };
  if (Array.isArray(value)) return Promise.all(value.map(asToolArgument));
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    await Promise.all(Object.entries(value).map(async ([key, item]) => [key, await asToolArgument(item)])),
  );
}

/** Each {@link contractCalls} call as the MCP server's tool takes it: the tool's name and arguments, and the call (the request they must make). */
export function toolCalls(): Promise<Array<{ tool: string; args: Json; call: ContractCall }>> {
  return Promise.all(
    contractCalls.map(async (call) => {
      const args: Json = {
        ...(Object.keys(call.path).length > 0 ? { path: call.path } : {}),
        ...(call.body !== undefined ? { body: await asToolArgument(call.body) } : {}),
      };
      return { tool: call.methodName.replace(/\./g, "_"), args, call };
    }),
  );
}
