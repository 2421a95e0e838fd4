/**
 * Options read as own properties only. A key written onto `Object.prototype` (a `__proto__`
 * key in some parsed input, anywhere in the process) is inherited by every plain object, so
 * reading `options.baseUrl` or `init.middleware` could pick up a value the caller never
 * passed: a copy without a prototype holds the caller's own keys and nothing else.
 * Not exported from the package.
 */
export function ownOptions<T>(value: T): T {
  return value !== null && typeof value === "object" ? (Object.assign(Object.create(null), value) as T) : value;
}
