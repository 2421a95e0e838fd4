/**
 * `multipart/form-data` bodies (spec 4.7, `POST /tickets/attachments/`), so a caller writes
 * `body: { files: file }` or `body: { files: [a, b] }` and never a `bodySerializer`. The client
 * builds the form once per call for the operations the contract marks multipart (with no
 * file too: `files` is optional, and the operation still takes form data).
 */

type FormValue = Blob | string | number | boolean | null | undefined;

function appendValue(form: FormData, name: string, value: FormValue): void {
  if (value === undefined || value === null) return;
  // A File keeps its own name; a bare Blob gets the field name, since servers often need one.
  if (value instanceof Blob) form.append(name, value, value instanceof File ? value.name : name);
  else form.append(name, String(value));
}

/** Builds a `FormData` from a plain object of fields: arrays become repeated fields. */
export function toFormData(body: unknown): FormData {
  if (body === null || typeof body !== "object" || Array.isArray(body) || body instanceof Blob) {
    throw new TypeError("a multipart body must be an object of form fields, such as { files: file }.");
  }
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value)) for (const item of value) appendValue(form, name, item as FormValue);
    else if (value !== null && typeof value === "object" && !(value instanceof Blob)) {
      throw new TypeError(`multipart field "${name}" must be a Blob, a string, a number or an array of them.`);
    } else appendValue(form, name, value as FormValue);
  }
  return form;
}
