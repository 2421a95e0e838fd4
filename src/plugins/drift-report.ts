/**
 * What a response validator's errors say, as drift reports (core/error-messages.ts,
 * `ContractDrift`): a pointer with array indices as `*`, what the contract allows there, and
 * the JSON type that came, never the value (bodies carry customers' data). Loaded with the
 * `validateResponses` option only (validate-responses.ts). Not exported from the package.
 */
import type { ContractDrift } from "#shared";

/** One problem a compiled validator found (Ajv's error objects, of which this reads these fields). */
interface ValidatorError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** The most drifts kept of one body: the span events, the error's `drifts`. */
export const MAX_DRIFTS = 10;

/** The most characters of an expectation (an enum's values, a pattern): the contract's text, but a long list says no more. */
const MAX_EXPECTED = 200;

/** A value's JSON type: `null`, `array`, `object`, `string`, `integer`, `number`, `boolean`. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/**
 * `pointer` (a JSON pointer into `data`) with each array index as `*`, and the value it points
 * at. The data is walked, not the pointer's text read: a segment is an index only where the
 * value it indexes is an array, so an object's key that is digits (`/counts/2024`) stays.
 */
export function locate(pointer: string, data: unknown): { pointer: string; value: unknown; found: boolean } {
  if (pointer === "") return { pointer, value: data, found: true };
  let value = data;
  let found = true;
  let normalised = "";
  for (const segment of pointer.slice(1).split("/")) {
    const list = Array.isArray(value);
    normalised += `/${list ? "*" : segment}`;
    const key = segment.replace(/~1/g, "/").replace(/~0/g, "~");
    found = found && value !== null && typeof value === "object" && Object.hasOwn(value, key);
    value = found ? (value as Record<string, unknown>)[key] : undefined;
  }
  return { pointer: normalised, value, found };
}

const escapeKey = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** What the contract allows where `error` failed, in words: `string or null`, `one of "a", "b"`, `format "email"`, `minLength 1`. */
function expectation({ keyword, params }: ValidatorError): string {
  let text: string;
  switch (keyword) {
    case "type":
      text = String([params["type"]].flat()).split(",").join(" or ");
      break;
    case "enum":
      text = `one of ${([params["allowedValues"]].flat() as unknown[]).map((value) => JSON.stringify(value)).join(", ")}`;
      break;
    case "const":
      text = JSON.stringify(params["allowedValue"]);
      break;
    case "required":
      text = "required";
      break;
    case "format":
      text = `format ${JSON.stringify(params["format"])}`;
      break;
    case "pattern":
      text = `pattern ${String(params["pattern"])}`;
      break;
    default:
      text = "limit" in params ? `${keyword} ${String(params["limit"])}` : keyword;
  }
  return text.length > MAX_EXPECTED ? `${text.slice(0, MAX_EXPECTED)}…` : text;
}

/** Where an error points: a missing property is the property's own pointer. */
const pointerOf = ({ instancePath, keyword, params }: ValidatorError): string =>
  keyword === "required" ? `${instancePath}/${escapeKey(String(params["missingProperty"]))}` : instancePath;

const ALTERNATIVES = new Set(["anyOf", "oneOf"]);

/** The drifts of one body: at most {@link MAX_DRIFTS}, and how many more there were. */
interface BodyDrifts {
  drifts: ContractDrift[];
  more: number;
}

/**
 * The drifts a validator's `errors` (compiled with `allErrors`) describe in `data`, at most
 * {@link MAX_DRIFTS}, one per pointer and expectation, and how many more. Where `anyOf`/`oneOf`
 * failed (a nullable reference: a timestamp or `null`), the branches' complaints at that place
 * become one drift (`expected string or null`); when some branch complained deeper down, the
 * value was of that branch's type and the deeper drift says what broke, so those at the place
 * go. Linear in the errors: every pointer's ancestors are gathered once, not searched for.
 */
export function driftsOf(errors: readonly ValidatorError[], data: unknown): BodyDrifts {
  const byPointer = representatives(errors, data);
  // The places (as shapes) of failed alternatives that some other error is below.
  const alternativesAt = new Set<string>();
  for (const [pointer, found] of byPointer)
    if (found.some((error) => ALTERNATIVES.has(error.keyword))) alternativesAt.add(shapeOf(pointer));
  const deeper = new Set<string>();
  if (alternativesAt.size > 0) {
    for (const pointer of byPointer.keys()) {
      const shape = shapeOf(pointer);
      for (let end = shape.lastIndexOf("/"); end >= 0; end = end === 0 ? -1 : shape.lastIndexOf("/", end - 1)) {
        const above = shape.slice(0, end);
        if (alternativesAt.has(above)) deeper.add(above);
      }
    }
  }
  const drifts = new Map<string, ContractDrift>();
  for (const [pointer, found] of byPointer) {
    const alternatives = found.some((error) => ALTERNATIVES.has(error.keyword));
    if (alternatives && deeper.has(shapeOf(pointer))) continue;
    const place = locate(pointer, data);
    const received = place.found ? jsonType(place.value) : "missing";
    const expected = found.filter((error) => !ALTERNATIVES.has(error.keyword)).map(expectation);
    const said = alternatives ? [[...new Set(expected)].join(" or ") || "one of the schemas"] : expected;
    for (const text of said) {
      const key = `${place.pointer} ${text}`;
      if (!drifts.has(key)) drifts.set(key, { pointer: place.pointer, expected: text, received });
    }
  }
  const all = [...drifts.values()];
  return { drifts: all.slice(0, MAX_DRIFTS), more: Math.max(0, all.length - MAX_DRIFTS) };
}

/** A pointer's segments of digits as `*` (`/results/7/id` → `/results/*` `/id`): every item of a list shares it. */
const shapeOf = (pointer: string): string => pointer.replace(/\/\d+(?=\/|$)/g, "/*");

/**
 * The errors by pointer, one pointer per shape and keyword: the items of a list that fail alike
 * (40,000 items without an integer `id`) are one drift, read once, so that the cost of a failing
 * page is a step per error, not a walk of the data each. A shape whose digits are an object's
 * keys (`/counts/2024`, seen by walking the data once) keeps every pointer.
 */
function representatives(errors: readonly ValidatorError[], data: unknown): Map<string, ValidatorError[]> {
  const byPointer = new Map<string, ValidatorError[]>();
  const shapes = new Map<string, { exact: boolean; keywords: Set<string> }>();
  // A pointer is kept or passed over as its first error is met, with all its errors.
  const passed = new Set<string>();
  for (const error of errors) {
    const pointer = pointerOf(error);
    const found = byPointer.get(pointer);
    if (found) {
      found.push(error);
      continue;
    }
    if (passed.has(pointer)) continue;
    const shape = shapeOf(pointer);
    let seen = shapes.get(shape);
    if (!seen)
      shapes.set(
        shape,
        (seen = { exact: shape === pointer || locate(pointer, data).pointer === shape, keywords: new Set() }),
      );
    if (seen.exact && seen.keywords.has(error.keyword)) {
      passed.add(pointer);
      continue;
    }
    seen.keywords.add(error.keyword);
    byPointer.set(pointer, [error]);
  }
  return byPointer;
}
