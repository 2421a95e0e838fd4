/**
 * The checks of options: one helper per kind of check, each refusal a TypeError worded
 * `<name> must be <what it takes>, got <the value>.`, so that every entry words a bad option
 * the same way. Not exported from the package.
 */

/** How a refused value is shown after "got": `String` unless said; `null` shows none. */
type Shown = ((value: unknown) => unknown) | null;

/** Refuses an option: `${name} must be ${expected}, got ${shown}.`, without "got" when `show` is null. */
export function mustBe(name: string, expected: string, value?: unknown, show: Shown = String): never {
  throw new TypeError(`${name} must be ${expected}${show === null ? "" : `, got ${String(show(value))}`}.`);
}

/** Checks a numeric option; the message names it and says what it takes. */
export function checkNumberOption(name: string, value: unknown, check: (n: number) => boolean, expected: string): void {
  if (value !== undefined && (typeof value !== "number" || !check(value))) {
    throw new TypeError(`${name} must be ${expected}, got ${String(value)}.`);
  }
}

/** A whole number of at least `min`, when given. */
export function checkWholeNumber(name: string, value: unknown, min: number, show: Shown = String): void {
  if (value !== undefined && !(Number.isInteger(value) && (value as number) >= min))
    mustBe(name, `a whole number ≥ ${min}`, value, show);
}

/** A duration of 0 ms or more, when given. */
export function checkMilliseconds(name: string, value: unknown, show: Shown = String): void {
  if (value !== undefined && !(typeof value === "number" && value >= 0))
    mustBe(name, "a number of milliseconds ≥ 0", value, show);
}

/** A function, when given (always, when `required`); `expected` says which. */
export function checkFunction(name: string, value: unknown, expected = "a function", required = false): void {
  if ((required || value !== undefined) && typeof value !== "function") mustBe(name, expected, value, null);
}

/** `true` or `false`, when given. */
export function checkBoolean(name: string, value: unknown, show: Shown = String): void {
  if (value !== undefined && typeof value !== "boolean") mustBe(name, "true or false", value, show);
}

/** `null` or the type of `value`: what a refusal names when the value itself says nothing. */
export const typeName = (value: unknown): string => (value === null ? "null" : typeof value);

/**
 * The own keys of `given` that are not among `known`: what a refusal of an unknown option names.
 * Own keys only: a key inherited from a polluted `Object.prototype` is not the caller's option.
 */
export function unknownOptions(given: object, known: readonly string[]): string[] {
  // Every call checks its options: a loop, and no array made when all are known (the usual case).
  let unknown: string[] | undefined;
  for (const key in given) if (Object.hasOwn(given, key) && !known.includes(key)) (unknown ??= []).push(key);
  return unknown ?? [];
}
