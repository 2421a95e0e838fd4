/**
 * A failed validation's issues for a person: each message names what would be accepted (the
 * allowed values, a format in words, a limit), a nullable value's alternatives are one issue,
 * and at most {@link MAX_ISSUES} are returned. Loaded by a schema's first failed validation
 * (standard-schema.ts), so that importing a schema costs none of it.
 */
import type { ValidationError } from "../../generated/validators/types.js";

/** An issue as Standard Schema has it (`StandardSchemaV1.Issue`, which it is assignable to). */
interface Issue {
  readonly message: string;
  readonly path?: readonly PropertyKey[];
}

/** A JSON Pointer's segments (`/addresses/0/line1` → `["addresses", 0, "line1"]`): an index where the value there is an array. */
function pathOf(root: unknown, pointer: string): PropertyKey[] {
  const path: PropertyKey[] = [];
  let at = root;
  for (const raw of pointer === "" ? [] : pointer.slice(1).split("/")) {
    const segment = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    const key: PropertyKey = Array.isArray(at) && /^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment;
    path.push(key);
    at = at !== null && typeof at === "object" ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return path;
}

/** The most issues one validation returns: past it, the last says how many more there were. */
export const MAX_ISSUES = 100;

/** The most characters of a list of allowed values in a message: a long list says no more. */
const MAX_LISTED = 200;

/** What a `format` asks for, in words. */
const FORMATS: Record<string, string> = {
  email: "an email address, such as name@example.com",
  uri: "an absolute URL, such as https://example.com/path",
  "date-time": "a date and time with its offset (RFC 3339), such as 2024-04-01T10:00:00Z",
  date: "a date (YYYY-MM-DD), such as 2024-04-01",
  time: "a time with its offset, such as 10:00:00Z",
  uuid: "a UUID, such as 3f2c8e2a-5b1d-4c6e-9a7f-0d1e2f3a4b5c",
  int32: "a whole number between -2147483648 and 2147483647",
  int64: "a whole number between -9223372036854775808 and 9223372036854775807",
};

const listed = (values: readonly unknown[]): string => {
  const text = values.map((value) => JSON.stringify(value)).join(", ");
  return text.length > MAX_LISTED ? `${text.slice(0, MAX_LISTED)}…` : text;
};

const plural = (n: unknown, one: string): string => `${String(n)} ${one}${n === 1 ? "" : "s"}`;

/** What `error` asks for, in words that name what would be accepted. */
function messageOf({ keyword, params, message }: ValidationError): string {
  const limit = params["limit"];
  switch (keyword) {
    case "type":
      // Ajv gives a list of types as an array or as "string,null".
      return `must be ${String([params["type"]].flat()).split(",").join(" or ")}`;
    case "enum":
      return `must be one of ${listed([params["allowedValues"]].flat())}`;
    case "const":
      return `must be ${listed([params["allowedValue"]])}`;
    case "format": {
      const format = String(params["format"]);
      return `must be ${FORMATS[format] ?? `in the format "${format}"`}`;
    }
    case "pattern":
      return `must match the pattern ${String(params["pattern"])}`;
    case "minLength":
      return `must be at least ${plural(limit, "character")} long`;
    case "maxLength":
      return `must be at most ${plural(limit, "character")} long`;
    case "minimum":
      return `must be ${String(limit)} or more`;
    case "maximum":
      return `must be ${String(limit)} or less`;
    case "exclusiveMinimum":
      return `must be more than ${String(limit)}`;
    case "exclusiveMaximum":
      return `must be less than ${String(limit)}`;
    case "multipleOf":
      return `must be a multiple of ${String(limit)}`;
    case "minItems":
      return `must have at least ${plural(limit, "item")}`;
    case "maxItems":
      return `must have at most ${plural(limit, "item")}`;
    case "minProperties":
      return `must have at least ${plural(limit, "property")}`.replace("propertys", "properties");
    case "maxProperties":
      return `must have at most ${plural(limit, "property")}`.replace("propertys", "properties");
    case "uniqueItems":
      return `must not repeat an item (items ${String(params["j"])} and ${String(params["i"])} are the same)`;
    case "anyOf":
    case "oneOf":
      return "must match one of the shapes the schema allows";
    default:
      return message ?? `fails ${keyword}`;
  }
}

/** Where an error's issue is: a missing or unknown property at its own place. */
const propertyOf = ({ keyword, params }: ValidationError): string | undefined =>
  keyword === "required" || keyword === "additionalProperties"
    ? String(params["missingProperty"] ?? params["additionalProperty"])
    : undefined;

/**
 * The places where `anyOf`/`oneOf` failed (the alternatives' complaints there become one issue),
 * less those some error is below (a property of it, an item): there the deeper issue speaks.
 * `undefined` when nothing had alternatives (the common case: no second pass).
 */
function alternativesOf(errors: readonly ValidationError[]): { at: Set<string>; below: Set<string> } | undefined {
  let at: Set<string> | undefined;
  for (const { instancePath, keyword } of errors)
    if (keyword === "anyOf" || keyword === "oneOf") (at ??= new Set()).add(instancePath);
  if (!at) return undefined;
  const below = new Set<string>();
  for (const error of errors) {
    const property = propertyOf(error);
    const place = property === undefined ? error.instancePath : `${error.instancePath}/${property}`;
    for (let end = place.lastIndexOf("/"); end >= 0; end = end === 0 ? -1 : place.lastIndexOf("/", end - 1)) {
      const above = place.slice(0, end);
      if (at.has(above)) below.add(above);
    }
  }
  return { at, below };
}

/** An issue being gathered: its place, and what each alternative there would accept. */
interface Gathered {
  path: PropertyKey[];
  messages: string[];
}

/**
 * The issues of one failed validation: a missing property is reported at its own path; the
 * alternatives of a nullable value (`must be a date and time …`, `must be null`, `must match a
 * schema in anyOf`) become one issue (`must be a date and time … or null`), unless something
 * deeper inside the value failed, which says more. Linear in the errors: two passes, each
 * error read in constant time. At most {@link MAX_ISSUES}: past it, the last says how many more.
 */
export function issuesOf(value: unknown, errors: readonly ValidationError[]): Issue[] {
  const alternatives = alternativesOf(errors);
  const gathered = new Map<string, Gathered>();
  const kept = MAX_ISSUES - 1;
  let more = 0;
  let lastPlace: string | undefined;
  let lastKeyword = "";
  for (const error of errors) {
    const { instancePath, keyword, params } = error;
    const property = propertyOf(error);
    const alternative = property === undefined && alternatives !== undefined && alternatives.at.has(instancePath);
    if (alternative && (alternatives.below.has(instancePath) || keyword === "anyOf" || keyword === "oneOf")) continue;
    const place = property === undefined ? instancePath : `${instancePath}/${property}`;
    if (gathered.size >= kept) {
      // Past the bound, issues are counted, not made: one per place and keyword (an issue's errors come together).
      const same = lastPlace === place && (alternative || lastKeyword === keyword);
      if (!same) more++;
      lastPlace = place;
      lastKeyword = keyword;
      continue;
    }
    lastPlace = place;
    lastKeyword = keyword;
    const key = alternative
      ? `${instancePath} alternatives`
      : keyword === "type" || keyword === "false schema"
        ? `${instancePath} ${keyword}`
        : `${instancePath} ${keyword} ${JSON.stringify(property ?? params)}`;
    const found = gathered.get(key);
    if (found) {
      const message = messageOf(error);
      if (alternative && !found.messages.includes(message)) found.messages.push(message);
      continue;
    }
    gathered.set(key, issueOf(value, error, property));
  }
  const issues = [...gathered.values()].map(({ messages, path }): Issue => ({ message: joined(messages), path }));
  if (more > 0)
    issues.push({
      message: `and ${more.toLocaleString("en-US")} more issues, not listed (the first ${kept} are above)`,
    });
  return issues;
}

/** Alternatives' messages as one: `must be a date … or null`. */
function joined(messages: readonly string[]): string {
  if (messages.length === 1) return messages[0]!;
  const MUST_BE = "must be ";
  // A part that holds a comma (an example) is closed by one, so that "or" reads as a choice.
  const or = messages.some((message) => message.includes(",")) ? ", or " : " or ";
  if (messages.every((message) => message.startsWith(MUST_BE)))
    return MUST_BE + messages.map((message) => message.slice(MUST_BE.length)).join(or);
  return messages.join(", or ");
}

/** One issue: where, and what would be accepted there. */
function issueOf(value: unknown, error: ValidationError, property: string | undefined): Gathered {
  const { instancePath, keyword } = error;
  if (property !== undefined)
    return {
      messages: [keyword === "required" ? "is required" : "is not a property of this schema"],
      path: [...pathOf(value, instancePath), property],
    };
  if (keyword === "false schema")
    return {
      messages: ["is read-only: the store sets it, a request may not send it"],
      path: pathOf(value, instancePath),
    };
  return { messages: [messageOf(error)], path: pathOf(value, instancePath) };
}
