/**
 * What an operation's `security` asks of the access token, in words. OpenAPI's rule: the
 * requirement lists alternatives (any one suffices), each naming scopes that are all needed;
 * no alternative at all (`security: []`) means no authentication. Shared by the 403 error's
 * message and, through scripts/contract-model.ts, by every generated text that shows a scope.
 */

/** Alternatives of scope sets: `[["a", "b"], ["c"]]` is "a and b, or c"; `[]` no authentication; `[[]]` a token with no scope. */
export type RequiredScopes = readonly (readonly string[])[];

/** `a`, `a and b`, `a, b and c`. */
const all = (words: readonly string[]): string => (words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)!}`);

/**
 * The requirement in words, each scope written by `quote`: "no authentication", "no scope",
 * "`a`", "`a` and `b`", "`a` or `b`", "`a` and `b`, or `c`".
 */
export function requirementInWords(required: RequiredScopes, quote: (scope: string) => string = (scope) => `"${scope}"`): string {
  if (required.length === 0) return "no authentication";
  if (required.some((scopes) => scopes.length === 0)) return "no scope";
  const alternatives = required.map((scopes) => all(scopes.map(quote)));
  return alternatives.join(required.some((scopes) => scopes.length > 1) && required.length > 1 ? ", or " : " or ");
}
