/**
 * Form bodies, so a caller writes `body: { files: file }` or `body: { files: [a, b] }` and never
 * a `bodySerializer`: `multipart/form-data` (spec 4.7, `POST /tickets/attachments/`), built once
 * per call for the operations the contract marks multipart (with no file too: `files` is
 * optional, and the operation still takes form data) and for a body holding a file where the
 * contract offers multipart besides JSON or a URL-encoded form; and
 * `application/x-www-form-urlencoded` where that is the form offered.
 */

import type { OperationFacts } from "../../generated/operations.js";

type FormValue = Blob | string | number | boolean | null | undefined;

function appendValue(form: FormData, name: string, value: FormValue): void {
  if (value === undefined || value === null) return;
  // A File keeps its own name; a bare Blob gets the field name, since servers often need one.
  if (value instanceof Blob) form.append(name, value, value instanceof File ? value.name : name);
  else form.append(name, String(value));
}

/**
 * The body as the form the operation takes: multipart where that is the media type chosen, or
 * where it is also offered and the body holds a file; URL-encoded where that is chosen;
 * `undefined` when the body goes as JSON.
 */
export function formBody(body: unknown, facts: OperationFacts): FormData | URLSearchParams | undefined {
  if (facts.multipart || (facts.filesMultipart && holdsFile(body))) return toFormData(body ?? {});
  if (facts.form && body !== undefined) return toUrlEncoded(body);
  return undefined;
}

/** Whether a body is, or holds (as a field or in a list field), a file: then it can only go as multipart. */
function holdsFile(body: unknown): boolean {
  if (body instanceof FormData || body instanceof Blob) return true;
  if (body === null || typeof body !== "object") return false;
  return Object.values(body).some(
    (value) => value instanceof Blob || (Array.isArray(value) && value.some((item) => item instanceof Blob)),
  );
}

/** The fields of a plain object body, checked: arrays become repeated fields; `null` and `undefined` are left out. */
function fields(body: unknown, media: string): Array<[string, FormValue]> {
  if (body === null || typeof body !== "object" || Array.isArray(body) || body instanceof Blob) {
    throw new TypeError(`a ${media} body must be an object of form fields, such as { files: file }.`);
  }
  const out: Array<[string, FormValue]> = [];
  for (const [name, value] of Object.entries(body)) {
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (item !== null && typeof item === "object" && !(item instanceof Blob)) {
        throw new TypeError(`${media} field "${name}" must be a Blob, a string, a number or an array of them.`);
      }
      out.push([name, item as FormValue]);
    }
  }
  return out;
}

/** Builds an `application/x-www-form-urlencoded` body from a plain object of fields (no files). */
function toUrlEncoded(body: unknown): URLSearchParams {
  const form = new URLSearchParams();
  for (const [name, value] of fields(body, "form")) {
    if (value instanceof Blob)
      throw new TypeError(`form field "${name}" is a file, which a URL-encoded form cannot carry.`);
    if (value !== undefined && value !== null) form.append(name, String(value));
  }
  return form;
}

/** Builds a `FormData` from a plain object of fields: arrays become repeated fields. A `FormData` goes as it is. */
export function toFormData(body: unknown): FormData {
  if (body instanceof FormData) return body;
  const form = new FormData();
  for (const [name, value] of fields(body, "multipart")) appendValue(form, name, value);
  return form;
}
