/**
 * A request as the mock reads it: which operation it is (its path matched against the
 * contract's path templates), its raw parameters, its headers and its body (JSON, or a
 * `multipart/form-data` or URL-encoded form read with the platform's own `Request.formData()`).
 */
import type { OperationKey } from "../../generated/operations.js";
import { mockOperations } from "../../generated/testing/operations.js";

interface Route {
  key: OperationKey;
  method: string;
  template: string;
  pattern: RegExp;
  names: string[];
  /** Literal characters in the template: a literal segment wins over a parameter. */
  weight: number;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^$()|[\]\\]/g, "\\$&");

/** Every operation's path template as a pattern, most literal first. */
const ROUTES: readonly Route[] = (Object.keys(mockOperations) as OperationKey[])
  .map((key): Route => {
    const [method, template] = key.split(" ") as [string, string];
    const names: string[] = [];
    const source = template
      .split(/(\{[^}]+\})/)
      .map((part) => (/^\{.+\}$/.test(part) ? (names.push(part.slice(1, -1)), "([^/]+)") : escapeRegExp(part)))
      .join("");
    return {
      key,
      method,
      template,
      pattern: new RegExp(`^${source}$`),
      names,
      weight: template.replace(/\{[^}]+\}/g, "").length,
    };
  })
  .sort((a, b) => b.weight - a.weight);

/** The operation a method and path (below the API root) belong to, with the raw path parameters. */
type Match =
  | { found: true; key: OperationKey; template: string; path: Record<string, string> }
  | { found: false; methods: string[] };

export function matchOperation(method: string, path: string): Match {
  const methods: string[] = [];
  for (const route of ROUTES) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    if (route.method !== method) {
      methods.push(route.method);
      continue;
    }
    const params: Record<string, string> = {};
    route.names.forEach((name, i) => {
      const raw = match[i + 1]!;
      try {
        params[name] = decodeURIComponent(raw);
      } catch {
        params[name] = raw;
      }
    });
    return { found: true, key: route.key, template: route.template, path: params };
  }
  return { found: false, methods };
}

/** Request headers with lower-cased names (as `Headers` gives them). */
export function headersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/**
 * A request body as read: the value for the handler, and the value to validate. Form fields
 * are validated with files replaced by empty strings, and converted in place as their
 * schemas say (see {@link formValue}).
 */
type ReadBody =
  | { kind: "none" }
  | { kind: "read"; value: unknown; checked: unknown; mediaType: string }
  | { kind: "unsupported"; contentType: string }
  | { kind: "malformed"; message: string };

/**
 * Reads the body in whichever of the media types the operation takes it came in. Form fields
 * repeated become lists; files reach the handler as Blobs and are validated as the contract's
 * `format: binary` strings.
 */
export async function readBody(
  request: Request,
  mediaTypes: readonly string[],
  listFields: readonly string[] = [],
): Promise<ReadBody> {
  const contentType = request.headers.get("content-type") ?? "";
  if (request.body === null && contentType === "") return { kind: "none" };
  const mediaType = contentType.split(";")[0]!.trim().toLowerCase();
  if (!mediaTypes.includes(mediaType)) return { kind: "unsupported", contentType };
  if (mediaType !== "application/json") {
    let form: FormData;
    try {
      form = await request.formData();
    } catch (error) {
      return { kind: "malformed", message: `is not a readable multipart form (${(error as Error).message})` };
    }
    const value: Record<string, unknown> = {};
    const checked: Record<string, unknown> = {};
    for (const name of new Set(form.keys())) {
      const entries = form.getAll(name);
      const asChecked = entries.map((entry) => (typeof entry === "string" ? entry : ""));
      const single = entries.length === 1 && !listFields.includes(name);
      value[name] = single ? entries[0] : entries;
      checked[name] = single ? asChecked[0] : asChecked;
    }
    return { kind: "read", value, checked, mediaType };
  }
  const text = await request.text();
  if (text === "") return { kind: "none" };
  try {
    // JSON bodies are validated as they are (nothing converted), so both are the same value.
    const value: unknown = JSON.parse(text);
    return { kind: "read", value, checked: value, mediaType };
  } catch (error) {
    return { kind: "malformed", message: `is not valid JSON (${(error as Error).message})` };
  }
}

/** The form for the handler after validation: converted fields, and the files as Blobs. */
export function formValue(read: Record<string, unknown>, checked: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(read)) {
    const hasFile = Array.isArray(value) ? value.some((v) => typeof v !== "string") : typeof value !== "string";
    out[name] = hasFile ? value : checked[name];
  }
  return out;
}
