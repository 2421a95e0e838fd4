/** Which of `secrets` appear anywhere in what an error shows: its message, stack, JSON, fields and `cause` chain. */
export function leakedSecrets(value: unknown, secrets: readonly string[]): string[] {
  const seen = new Set<unknown>();
  const texts: string[] = [];
  const visit = (current: unknown, depth: number): void => {
    if (current === null || current === undefined || depth > 8 || seen.has(current)) return;
    if (typeof current === "string") return void texts.push(current);
    if (typeof current !== "object") return void texts.push(String(current));
    seen.add(current);
    if (current instanceof Error) {
      texts.push(current.message, current.stack ?? "", String(current));
      visit((current as { cause?: unknown }).cause, depth + 1);
    }
    try {
      texts.push(JSON.stringify(current) ?? "");
    } catch {
      // A cycle: the fields below still get read.
    }
    for (const key of Object.getOwnPropertyNames(current)) visit((current as Record<string, unknown>)[key], depth + 1);
  };
  visit(value, 0);
  const all = texts.join("\n");
  return secrets.filter((secret) => all.includes(secret));
}
