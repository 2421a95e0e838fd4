/**
 * Names of the contract, by where they go (docs/architecture.md, "What the generators accept,
 * map and refuse"). A name that becomes an identifier is mapped to one, or refused when it
 * cannot be; a name that goes on the wire or into a file name is refused unless it is what
 * that place allows. Every refusal names the JSON pointer of the name.
 *
 * - A header parameter's name must be an HTTP token (RFC 9110, section 5.6.2: `tchar`s only),
 *   as fetch itself requires: no space, `/`, `:` or line break.
 * - An `operationId` may hold no path separator (`/`, `\`), no `..`, no control character and
 *   no line terminator: it names a sample file and appears in generated comments and strings.
 * - A path parameter's name becomes an argument of its method: {@link argumentName}; two of one
 *   operation that map to one name are refused.
 * - A schema name becomes a type name (scripts/contract-model.ts, `typeNameOf`): one without a
 *   letter or digit has nothing to map from, and is refused.
 */
import { HTTP_METHODS } from "../src/core/http-methods.js";
import { ContractError, isObject, type Json, pointer } from "./contract-json.js";

/** RFC 9110's `token`: one or more `tchar`. */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** What an operationId may not hold: a path separator, `..`, a control character (C0, DEL, C1) or a line terminator. */
const UNSAFE_OPERATION_ID = /[/\\]|\.\.|[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Reserved words of JavaScript and TypeScript's own type names: no argument may take one. */
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in " +
    "instanceof new null return super switch this throw true try typeof var void while with implements interface let package private " +
    "protected public static yield arguments eval await"
  ).split(" "),
);

/**
 * The argument name of a path parameter: its name when that is an identifier (ASCII letters,
 * digits, `_`, `$`, not starting with a digit, no reserved word), else its words (runs of
 * ASCII letters and digits) camelCased (`order-number` → `orderNumber`), suffixed `Param`
 * when that is a reserved word (`class` → `classParam`) and prefixed `param` before a digit.
 * Undefined when the name holds no letter or digit.
 */
function argumentName(name: string): string | undefined {
  if (/^[A-Za-z_$][\w$]*$/.test(name) && !RESERVED.has(name)) return name;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  if (words.length === 0) return undefined;
  const camel = words.map((w, i) => (i === 0 ? w[0]!.toLowerCase() : w[0]!.toUpperCase()) + w.slice(1)).join("");
  if (/^[0-9]/.test(camel)) return `param${camel[0]!.toUpperCase()}${camel.slice(1)}`;
  return RESERVED.has(camel) ? `${camel}Param` : camel;
}

/** The argument names of an operation's path parameters, in order; refuses one that cannot be mapped and two that map to one. */
export function argumentNames(pathParams: readonly string[], at: string): string[] {
  const seen = new Map<string, string>();
  return pathParams.map((name) => {
    const mapped = argumentName(name);
    if (mapped === undefined)
      throw new ContractError(
        `${at}: the path parameter ${JSON.stringify(name)} has no letter or digit to make its argument's name of; rename it.`,
      );
    const other = seen.get(mapped);
    if (other !== undefined)
      throw new ContractError(
        `${at}: the path parameters ${JSON.stringify(other)} and ${JSON.stringify(name)} both map to the argument name ${mapped}; rename one.`,
      );
    seen.set(mapped, name);
    return mapped;
  });
}

/** Every header parameter's name and every operationId of `doc`, checked; throws a {@link ContractError} naming the first one refused. */
export function checkNames(doc: Json): void {
  const checkParameters = (list: unknown, at: string[]) => {
    const entries = Array.isArray(list) ? list.entries() : isObject(list) ? Object.entries(list) : [];
    for (const [key, parameter] of entries) {
      if (!isObject(parameter) || parameter.in !== "header" || typeof parameter.name !== "string") continue;
      if (!HTTP_TOKEN.test(parameter.name)) {
        throw new ContractError(
          `${pointer(...at, key, "name")}: the header name ${JSON.stringify(parameter.name)} is not an HTTP token (RFC 9110: letters, digits and !#$%&'*+-.^_\`|~ only).`,
        );
      }
    }
  };
  const components = isObject(doc.components) ? doc.components : {};
  for (const name of Object.keys(isObject(components.schemas) ? components.schemas : {})) {
    if (!/[A-Za-z0-9]/.test(name))
      throw new ContractError(
        `${pointer("components", "schemas", name)}: the schema name ${JSON.stringify(name)} has no letter or digit to make its type's name of; rename it.`,
      );
  }
  checkParameters(components.parameters, ["components", "parameters"]);
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    checkParameters(item.parameters, ["paths", path, "parameters"]);
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      checkParameters(operation.parameters, ["paths", path, method, "parameters"]);
      const id = operation.operationId;
      if (typeof id === "string" && UNSAFE_OPERATION_ID.test(id)) {
        throw new ContractError(
          `${pointer("paths", path, method, "operationId")}: the operationId ${JSON.stringify(id)} holds a path separator, "..", a control character or a line break; use letters, digits, "_" and "-".`,
        );
      }
    }
  }
}
