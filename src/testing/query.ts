/**
 * A request's query as the mock reads it and the HTTP mock logs it; no import, so that the
 * `mock` command has it without loading the kit.
 */

/**
 * Query parameters: a repeated name becomes a list, a single one stays a string (the schema
 * decides). Each is an own property, `__proto__` too (an assignment would set the prototype,
 * and the name would go unseen), so every undeclared name is refused alike.
 */
export function queryOf(search: URLSearchParams): Record<string, string | string[]> {
  return Object.fromEntries(
    [...new Set(search.keys())].map((name) => {
      const values = search.getAll(name);
      return [name, values.length === 1 ? values[0]! : values];
    }),
  );
}
