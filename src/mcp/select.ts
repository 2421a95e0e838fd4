/**
 * The `select` argument of a call: field paths (`"id"`, `"addresses.city"`) kept from its result,
 * from each item of a page or list, before the result cap applies, so that a model asks for the
 * fields it needs instead of paging through whole resources.
 */
import { quoted } from "./result-size.js";

/** The most paths one call selects. */
export const MAX_SELECT_PATHS = 50;

/** The most characters of one path. */
const MAX_PATH_LENGTH = 200;

/** `select` as a tool's input schema declares it. */
export const SELECT_SCHEMA = {
  type: "array",
  items: { type: "string", minLength: 1, maxLength: MAX_PATH_LENGTH },
  minItems: 1,
  maxItems: MAX_SELECT_PATHS,
  description:
    'Field paths to keep from the result, e.g. ["id", "email", "addresses.city"] (a dot goes into a field; through a list, into each of its items). A page or list keeps them from each item. Leave it out for whole results.',
} as const;

/** What is wrong with `value` as `select`, or `undefined` when it is a list of paths this server takes. */
export function selectProblem(value: unknown): string | undefined {
  if (!Array.isArray(value))
    return `select must be a list of field paths such as ["id", "email"], got ${quoted(value)}.`;
  if (value.length === 0) return "select must name at least one field path (leave it out for whole results).";
  if (value.length > MAX_SELECT_PATHS)
    return `select names ${value.length} field paths; a call selects at most ${MAX_SELECT_PATHS}.`;
  for (const [index, path] of value.entries()) {
    if (typeof path !== "string") return `select[${index}] must be a field path (a string), got ${quoted(path)}.`;
    if (path.length > MAX_PATH_LENGTH)
      return `select[${index}] is ${path.length} characters long; a field path has at most ${MAX_PATH_LENGTH}.`;
    if (path.split(".").some((name) => name.trim() === ""))
      return `select[${index}] ${quoted(path)} is not a field path: it has an empty field name (paths are names joined by dots, e.g. "addresses.city").`;
  }
  return undefined;
}

/** The paths as a tree of field names: `true` keeps a field whole. */
interface Fields {
  [name: string]: true | Fields;
}

function treeOf(paths: readonly string[]): Fields {
  const tree: Fields = Object.create(null);
  for (const path of paths) {
    const names = path.split(".");
    let node = tree;
    for (const [i, name] of names.entries()) {
      const last = i === names.length - 1;
      const there = node[name];
      if (there === true) break; // a shorter path already keeps this field whole
      if (last) node[name] = true;
      else node = node[name] = there ?? Object.create(null);
    }
  }
  return tree;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `value` with only the fields `tree` names; a list, each item's; anything else as it is. */
function project(value: unknown, tree: Fields): unknown {
  if (Array.isArray(value)) return value.map((item) => project(item, tree));
  if (!isObject(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(tree)) {
    if (!Object.hasOwn(value, name)) continue;
    kept[name] = sub === true ? value[name] : project(value[name], sub);
  }
  return kept;
}

/**
 * `data` with only the selected fields: of each item of a page's `results` (the page's other
 * fields kept, as its cursor is), of each item of a list, else of the resource.
 */
export function selected(data: unknown, paths: readonly string[], page: boolean): unknown {
  const tree = treeOf(paths);
  if (page && isObject(data) && Array.isArray(data.results))
    return { ...data, results: data.results.map((item) => project(item, tree)) };
  return project(data, tree);
}
