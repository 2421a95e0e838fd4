/**
 * Validation with the compiled validators of `generated/testing/validators.ts`, and the error
 * answers of the mock. Their body has the shape the contract's mock server (Prism) gives,
 * `{ type, title, status, detail, validation: [{ location, severity, code, message }] }`, so
 * the SDK's errors read the `validation` list as they do against Prism.
 */
import { validators, type ValidationError } from "../../generated/testing/validators.js";

/** One problem, with the field it concerns: `location` is e.g. `["body", "title"]` or `["path", "id"]`. */
export interface Problem {
  location: string[];
  severity: "Error";
  code: string;
  message: string;
}

/** `~1` and `~0` of a JSON Pointer segment (RFC 6901). */
const unescapePointer = (segment: string): string => segment.replace(/~1/g, "/").replace(/~0/g, "~");

/** Ajv's errors as problems located at the field, under `place` (`body`, `path`, …). */
function problemsOf(errors: readonly ValidationError[], place: string[]): Problem[] {
  return errors.map((error) => {
    const location = [...place, ...error.instancePath.split("/").slice(1).map(unescapePointer)];
    // A missing or unexpected property is reported on its parent by Ajv; name the property itself.
    const named = error.params.missingProperty ?? error.params.additionalProperty;
    if (typeof named === "string") location.push(named);
    // Ajv words a type list as "must be string,null"; say it as a sentence.
    const message = error.keyword === "type" ? `must be ${String(error.params.type).split(",").join(" or ")}` : error.message;
    return { location, severity: "Error", code: error.keyword, message: message ?? `fails ${error.keyword}` };
  });
}

/**
 * Runs the named validator; returns its problems (none when valid). Parameter and form
 * validators convert values in place (`"42"` to 42). An unknown name is a generator bug.
 */
export function validate(name: string, data: unknown, place: string[]): Problem[] {
  const validator = validators[name];
  if (!validator) throw new Error(`store-admin-sdk/testing: no validator ${name}; run \`npm run generate\`.`);
  return validator(data) ? [] : problemsOf(validator.errors ?? [], place);
}

/** Whether the named validator exists (a response without a JSON body has none). */
export function hasValidator(name: string): boolean {
  return validators[name] !== undefined;
}

const TITLES: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
};

/** A problem answer (`application/problem+json` is not JSON to every client: `application/json`). */
export function problemResponse(status: number, detail: string, validation: Problem[] = [], headers: Record<string, string> = {}): Response {
  const title = TITLES[status] ?? "Error";
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
