/**
 * `multipart/form-data` bodies (spec 4.7, `POST /tickets/attachments/`), so a caller writes
 * `body: { files: file }` or `body: { files: [a, b] }` and never a `bodySerializer`.
 */
import { defaultBodySerializer, type Middleware } from "openapi-fetch";
import { operations, type OperationKey } from "../generated/operations.js";

type FormValue = Blob | string | number | boolean | null | undefined;

function isBlobOrBlobs(value: unknown): boolean {
  return value instanceof Blob || (Array.isArray(value) && value.length > 0 && value.every((v) => v instanceof Blob));
}

function appendValue(form: FormData, name: string, value: FormValue): void {
  if (value === undefined || value === null) return;
  // A File keeps its own name; a bare Blob gets the field name, since servers often need one.
  if (value instanceof Blob) form.append(name, value, value instanceof File ? value.name : name);
  else form.append(name, String(value));
}

/** Builds a `FormData` from a plain object: arrays become repeated fields. */
export function toFormData(body: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value)) for (const item of value) appendValue(form, name, item as FormValue);
    else if (value !== null && typeof value === "object" && !(value instanceof Blob)) {
      throw new TypeError(`multipart field "${name}" must be a Blob, a File, a string, a number or an array of those.`);
    } else appendValue(form, name, value as FormValue);
  }
  return form;
}

/**
 * The client's `bodySerializer`: a body holding a Blob or File (or an array of them) is sent
 * as multipart form data; anything else goes to openapi-fetch's own serializer (JSON).
 */
export function serializeBody(body: unknown, headers?: Headers | Record<string, string>): string | FormData {
  if (body !== null && typeof body === "object" && !(body instanceof FormData) && Object.values(body).some(isBlobOrBlobs)) {
    return toFormData(body as Record<string, unknown>);
  }
  // openapi-fetch's serializer also reads the headers (for form-urlencoded); its types omit them.
  return (defaultBodySerializer as (b: unknown, h?: unknown) => string | FormData)(body, headers);
}

function isMultipart(method: string, schemaPath: string): boolean {
  return operations[`${method} ${schemaPath}` as OperationKey]?.multipart === true;
}

/**
 * A multipart operation called without any file (`files` is optional) would otherwise go as
 * JSON; rebuild such a body as form data, so the operation always gets the type it declares.
 */
export const multipartMiddleware: Middleware = {
  async onRequest({ request, schemaPath }) {
    if (!isMultipart(request.method, schemaPath)) return undefined;
    if (request.headers.get("content-type")?.startsWith("multipart/form-data")) return undefined;
    const text = request.body ? await request.text() : "";
    const fields: unknown = text ? JSON.parse(text) : {};
    if (fields === null || typeof fields !== "object" || Array.isArray(fields)) {
      throw new TypeError(`[${request.method} ${schemaPath}] the body must be an object of form fields.`);
    }
    const headers = new Headers(request.headers);
    headers.delete("content-type"); // fetch sets multipart/form-data with its boundary
    const body = toFormData(fields as Record<string, unknown>);
    return new Request(request.url, { method: request.method, headers, body, signal: request.signal });
  },
};
