/**
 * Path parameters that cannot change which endpoint is called.
 *
 * openapi-fetch percent-encodes each path value with `encodeURIComponent`, which escapes
 * `/ ? #` but leaves `.` alone, and URL parsers resolve `.` and `..` segments (WHATWG URL
 * standard, "single-dot / double-dot URL path segment"): `number: ".."` in
 * `/orders/{number}/fulfillment-orders/` would reach `/fulfillment-orders/`. A missing
 * value would be sent as a literal `{number}`. Both fail here, before anything is sent.
 */
const PLACEHOLDER = /\{([^{}]+)\}/g;

/** Parameter names of each path template, computed once per template. */
const namesByTemplate = new Map<string, readonly string[]>();

/** The parameter names of a path template (`/users/{id}/`: `["id"]`), in its order; one array per template. */
export function parameterNames(template: string): readonly string[] {
  let names = namesByTemplate.get(template);
  if (!names) {
    names = [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!);
    namesByTemplate.set(template, names);
  }
  return names;
}

/** The problem with one path value, or undefined when it is safe. */
function problemWith(value: unknown): string | undefined {
  if (value === undefined || value === null) return "is missing";
  if (typeof value === "number") {
    return Number.isFinite(value) ? undefined : `must be a finite number, got ${value}`;
  }
  if (typeof value !== "string") return `must be a string or a number, got ${typeof value}`;
  if (value === "") return "must not be empty";
  // It would change the path.
  if (value === "." || value === "..") return `must not be "${value}"`;
  return undefined;
}

/** Rejects path parameter values that are missing, empty, `.` or `..`, naming the parameter. */
export function checkPathParams(method: string, template: string, values: Record<string, unknown> = {}): void {
  const names = parameterNames(template);
  for (const name of names) {
    const problem = problemWith(values[name]);
    if (problem) {
      throw new TypeError(`[${method} ${template}] path parameter "${name}" ${problem}; the request was not sent.`);
    }
  }
}
