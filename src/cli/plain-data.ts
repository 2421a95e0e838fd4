/**
 * Objects built from the command's input. A name from a file must never reach a prototype: a
 * CSV header `query.__proto__.baseUrl` once set `baseUrl` on `Object.prototype` for the whole
 * process, and every call went to the host in that column with the token. So every object made
 * from input has no prototype (a `__proto__` key is then a plain property, and nothing inherited
 * can be read through it), and the names that only such an attack uses are refused outright,
 * with where they are.
 */

/** Names refused as a field of the input: they address an object's prototype, never a field of the contract. */
const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** A key of a JSON line refused by {@link parseData}. */
export class RefusedKeyError extends Error {
  override name = "RefusedKeyError";
}

/** An empty object without a prototype. */
export const record = (): Record<string, unknown> => Object.create(null) as Record<string, unknown>;

/** Why `name` cannot be a field name, or undefined when it can. */
export function refusedName(name: string): string | undefined {
  return PROTOTYPE_NAMES.has(name)
    ? `the field name ${JSON.stringify(name)} is refused: it names an object's prototype, not a field of a call.`
    : undefined;
}

/** A JSON text's value with every object made without a prototype; a refused or repeated key throws, naming its column (1-based). */
export function parseData(text: string): unknown {
  const value: unknown = JSON.parse(text, (_key: string, value: unknown) =>
    value !== null && typeof value === "object" && !Array.isArray(value) ? Object.assign(record(), value) : value,
  );
  const problem = keyProblem(text);
  if (problem !== undefined) throw problem;
  return value;
}

/**
 * What is wrong with the keys of valid JSON `text`, if anything: the first refused name in the
 * text's order (an escaped `"\u005f_proto__"` too), else the first key written twice in one
 * object (`{"path":{"id":1},"path":{"id":2}}`: `JSON.parse` keeps the last, so the call sent
 * would not be the one a person reading the line sees). Every string is matched in order, so
 * none is read from inside another and a brace inside one is never taken for structure; a
 * string followed by `:` is a key.
 */
function keyProblem(text: string): RefusedKeyError | undefined {
  const open: Array<Set<string> | undefined> = [];
  let repeated: RefusedKeyError | undefined;
  for (const match of text.matchAll(/"(?:[^"\\]|\\.)*"(\s*:)?|[{}[\]]/g)) {
    const token = match[0];
    if (token === "{") open.push(new Set());
    else if (token === "[") open.push(undefined);
    else if (token === "}" || token === "]") open.pop();
    else if (match[1] !== undefined) {
      const name = JSON.parse(token.slice(0, token.lastIndexOf('"') + 1)) as string;
      if (PROTOTYPE_NAMES.has(name)) return new RefusedKeyError(`column ${match.index + 1}: ${refusedName(name)!}`);
      const keys = open.at(-1);
      if (keys?.has(name))
        repeated ??= new RefusedKeyError(
          `column ${match.index + 1}: the key ${JSON.stringify(name)} is written twice in one object; JSON keeps the last, so the call sent would not be the one the line shows.`,
        );
      keys?.add(name);
    }
  }
  return repeated;
}
