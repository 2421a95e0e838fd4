/**
 * A value's JSON with object keys sorted: the same call read from a JSON line or a CSV row, or
 * with its fields in another order, has one fingerprint (`runBulk`'s `fingerprint`, the queue's
 * binding of a key to its item).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, part: unknown) =>
    part !== null && typeof part === "object" && !Array.isArray(part)
      ? Object.fromEntries(
          Object.entries(part as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : part,
  );
}
