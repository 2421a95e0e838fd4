/** Checks a numeric option; the message names it and says what it takes. Not exported from the package. */
export function checkNumberOption(name: string, value: unknown, check: (n: number) => boolean, expected: string): void {
  if (value !== undefined && (typeof value !== "number" || !check(value))) {
    throw new TypeError(`${name} must be ${expected}, got ${String(value)}.`);
  }
}
