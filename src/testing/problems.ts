/**
 * Validation with an operation's compiled validators (`generated/testing/ops/`), and the error
 * answers of the mock. Their body has the shape the contract's mock server (Prism) gives,
 * `{ type, title, status, detail, validation: [{ location, severity, code, message }] }`, so
 * the SDK's errors read the `validation` list as they do against Prism.
 */
import type { ValidationError, Validator } from "../../generated/testing/operations.js";
import { reasonPhrase } from "#shared";

/** An operation's validators, by name. */
type Validators = Readonly<Record<string, Validator>>;

/** One problem, with the field it concerns: `location` is e.g. `["body", "title"]` or `["path", "id"]`. */
export interface Problem {
  location: string[];
  severity: "Error";
  code: string;
  message: string;
}

/** `~1` and `~0` of a JSON Pointer segment (RFC 6901). */
const unescapePointer = (segment: string): string => segment.replace(/~1/g, "/").replace(/~0/g, "~");

/** What one Ajv error expects, in words: `string or null`, `one of "en", "fr"`, `integer`. */
function expectation(error: ValidationError): string | undefined {
  if (error.keyword === "type") return String(error.params.type).split(",").join(" or ");
  if (error.keyword === "enum" && Array.isArray(error.params.allowedValues))
    return `one of ${error.params.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
  if (error.keyword === "const") return `equal to ${JSON.stringify(error.params.allowedValue)}`;
  return undefined;
}

/**
 * Ajv reports a value that matches no branch of an `anyOf`/`oneOf` once per branch and once
 * more for the combinator (`must be string; must be null; must match a schema in anyOf`).
 * Each field is named once: the branches' expectations become one (`must be string or
 * null`); when a branch failed deeper (a field of an object branch), those deeper errors
 * say what is wrong and the field's own are dropped.
 */
function mergeAlternatives(errors: readonly ValidationError[]): ValidationError[] {
  const combinators = new Set(
    errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf").map((e) => e.instancePath),
  );
  if (combinators.size === 0) return [...errors];
  const out: ValidationError[] = [];
  for (const path of new Set(errors.map((e) => e.instancePath))) {
    const here = errors.filter((e) => e.instancePath === path);
    if (!combinators.has(path)) {
      out.push(...here);
      continue;
    }
    const deeper = errors.some((e) => e.instancePath.startsWith(`${path}/`));
    const expected = [...new Set(here.map(expectation).filter((x): x is string => x !== undefined))];
    const rest = here.filter((e) => expectation(e) === undefined && e.keyword !== "anyOf" && e.keyword !== "oneOf");
    if (!deeper && expected.length > 0) {
      const combinator = here.find((e) => e.keyword === "anyOf" || e.keyword === "oneOf")!;
      out.push({ ...combinator, message: `must be ${expected.join(" or ")}` });
    }
    out.push(...rest);
  }
  return out;
}

/** Ajv's errors as problems located at the field, under `place` (`body`, `path`, …). */
function problemsOf(errors: readonly ValidationError[], place: string[]): Problem[] {
  return mergeAlternatives(errors).map((error) => {
    const location = [...place, ...error.instancePath.split("/").slice(1).map(unescapePointer)];
    // A missing or unexpected property is reported on its parent by Ajv; name the property itself.
    const named = error.params.missingProperty ?? error.params.additionalProperty;
    if (typeof named === "string") location.push(named);
    // Ajv words a type list as "must be string,null"; say it as a sentence.
    const message = error.keyword === "type" ? `must be ${expectation(error)}` : error.message;
    return { location, severity: "Error", code: error.keyword, message: message ?? `fails ${error.keyword}` };
  });
}

/**
 * Runs the named validator; returns its problems (none when valid). Parameter and form
 * validators convert values in place (`"42"` to 42). An unknown name is a generator bug.
 */
export function validate(validators: Validators, name: string, data: unknown, place: string[]): Problem[] {
  const validator = validators[name];
  if (!validator) throw new Error(`store-admin-sdk/testing: no validator ${name}; run \`npm run generate\`.`);
  return validator(data) ? [] : problemsOf(validator.errors ?? [], place);
}

/**
 * A problem for each query parameter the operation does not declare: the contract lists every
 * parameter, so `?bogus=x` or `?a[b]=1` is refused rather than ignored (its validators leave
 * unknown names alone, as a store may).
 */
export function undeclaredQuery(
  query: Record<string, unknown>,
  declared: readonly string[],
  operation: string,
): Problem[] {
  const takes = declared.length > 0 ? `it takes ${declared.join(", ")}` : "it takes none";
  return Object.keys(query)
    .filter((name) => !declared.includes(name))
    .map((name) => ({
      location: ["query", name],
      severity: "Error",
      code: "additionalProperties",
      message: `is not a query parameter of ${operation} (${takes})`,
    }));
}

/** Whether the named validator exists (a response without a JSON body has none). */
export function hasValidator(validators: Validators, name: string): boolean {
  return validators[name] !== undefined;
}

/** A problem answer (`application/problem+json` is not JSON to every client: `application/json`). */
export function problemResponse(
  status: number,
  detail: string,
  validation: Problem[] = [],
  headers: Record<string, string> = {},
): Response {
  // The SDK's reason phrases (RFC 9110), so that a title reads as the SDK's message of the same status does.
  const title = reasonPhrase(status) || "Error";
  const body = {
    // RFC 9457: "about:blank" when the status says it all.
    type: "about:blank",
    title,
    status,
    detail,
    ...(validation.length > 0 ? { validation } : {}),
  };
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** `location: message` of each problem, for error messages. */
export function describeProblems(problems: readonly Problem[]): string {
  return problems.map((problem) => `${problem.location.join(".") || "(root)"}: ${problem.message}`).join("; ");
}
