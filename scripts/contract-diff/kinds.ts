/**
 * The rules: every kind of change the diff reports, what it costs a caller in a request
 * and in a response, and what the caller must do about it.
 *
 * The same edit means opposite things in the two directions. A narrower schema (a field
 * made required, a lower limit, an enum value removed, a type dropped) refuses requests
 * that used to be valid, so it is breaking in a request, and harmless in a response (the
 * reader gets fewer surprises). A wider schema (a field made optional or nullable, an enum
 * value added) is harmless in a request and breaking in a response, where code that read
 * the field as the old type meets a value it does not handle.
 */

export type Bump = "none" | "patch" | "minor" | "major";
export type Direction = "request" | "response";

const BUMP_ORDER: readonly Bump[] = ["none", "patch", "minor", "major"];

export function maxBump(a: Bump, b: Bump): Bump {
  return BUMP_ORDER.indexOf(a) >= BUMP_ORDER.indexOf(b) ? a : b;
}

/** A text for both directions, or one per direction where they differ (what a caller sends against what it reads). */
type Said = string | Record<Direction, string>;

interface KindRule {
  /** Bump when the change sits in what the caller sends (parameters, request body). */
  request: Bump;
  /** Bump when it sits in what the caller reads (responses). */
  response: Bump;
  /** Can the change alter the generated TypeScript types? Only these are matched to compile errors. */
  typed: boolean;
  /** Does it add or remove a field or parameter? Its compile error then lands on the object around it. */
  presence?: boolean;
  /**
   * What a caller must change, for the changelog, in the caller's words: `{op}` is the
   * operation, `{field}` the field as code names it (`body.postcode`, `data.arn`,
   * `params.query.cursor`). See `adviceFor`.
   */
  advice: Said;
  /** Which code stops compiling, said after the advice when the compile probe proved it. See `brokenCodeFor`. */
  broken?: Said;
}

/** A field that callers must now send, or may now count on in an answer: added as required, or made so. */
const NOW_REQUIRED = {
  request: "major",
  response: "minor",
  typed: true,
  presence: true,
  advice: {
    request: "Send {field} in every {op} request.",
    response: "Nothing to change; {field} is now always in {op}'s answer.",
  },
  broken: { request: "Code that does not send it no longer compiles.", response: "" },
} as const satisfies KindRule;

/**
 * One entry per kind. To add a kind, add its entry here (the diff reports it with this
 * entry's bump, advice and proof text; the probe attributes compile errors to it when
 * `typed`).
 */
export const KINDS = {
  "operation-removed": {
    request: "major",
    response: "major",
    typed: true,
    presence: true,
    advice: "Stop calling {op}: the API no longer has it.",
    broken: "Calls to it no longer compile.",
  },
  "operation-added": { request: "minor", response: "minor", typed: true, advice: "Nothing to change; {op} is new." },
  "security-changed": {
    request: "major",
    response: "major",
    typed: false,
    advice: "Give the access token the scope {op} now requires.",
  },
  // The operation's method (`x-sdk-method`) has another name: calls of the old one no longer compile.
  // Not matched to compile errors: the probe calls operations by path, which still compiles.
  "method-renamed": {
    request: "major",
    response: "major",
    typed: false,
    advice: "Call {op} by its new method name (see the message): the old one is gone.",
  },
  "method-added": {
    request: "minor",
    response: "minor",
    typed: false,
    advice: "Nothing to change; {op} also has an operation method now (see the message).",
  },
  "parameter-removed": {
    request: "major",
    response: "major",
    typed: true,
    presence: true,
    advice: "Stop sending {field} to {op}.",
    broken: "Calls that send it no longer compile.",
  },
  "parameter-added-required": {
    request: "major",
    response: "major",
    typed: true,
    presence: true,
    advice: "Send {field} with every {op} call.",
    broken: "Calls that leave it out no longer compile.",
  },
  // The parameter's type gains a key: code compiles as before, and may now set it.
  "parameter-added": {
    request: "minor",
    response: "minor",
    typed: true,
    advice: "Nothing to change; {field} of {op} is a new option.",
  },
  "parameter-made-required": {
    request: "major",
    response: "major",
    typed: true,
    presence: true,
    advice: "Send {field} with every {op} call.",
    broken: "Calls that leave it out no longer compile.",
  },
  "parameter-made-optional": {
    request: "minor",
    response: "minor",
    typed: true,
    presence: true,
    advice: "Nothing to change; {field} of {op} may now be left out.",
  },
  "request-body-added": {
    request: "minor",
    response: "minor",
    typed: true,
    advice: "Nothing to change; {op} now takes an optional body.",
  },
  "request-body-added-required": {
    request: "major",
    response: "major",
    typed: true,
    presence: true,
    advice: "Send a body with every {op} call.",
    broken: "Calls without a body no longer compile.",
  },
  "request-body-removed": {
    request: "major",
    response: "major",
    typed: true,
    presence: true,
    advice: "Stop sending a body to {op}.",
    broken: "Calls that send one no longer compile.",
  },
  "request-body-made-required": {
    request: "major",
    response: "major",
    typed: true,
    presence: true,
    advice: "Send a body with every {op} call.",
    broken: "Calls without a body no longer compile.",
  },
  "request-body-made-optional": {
    request: "minor",
    response: "minor",
    typed: true,
    presence: true,
    advice: "Nothing to change; the body of {op} may now be left out.",
  },
  "media-type-removed": {
    request: "major",
    response: "major",
    typed: true,
    advice: "Send {op}'s body in one of the media types it still accepts ({field} is gone).",
  },
  "media-type-added": {
    request: "minor",
    response: "minor",
    typed: false,
    advice: "Nothing to change; {op} accepts a further media type ({field}).",
  },
  "response-added": {
    request: "minor",
    response: "minor",
    typed: true,
    advice: "Handle what {op} may now answer with ({field} gains a status).",
    broken: "Code that reads it as before no longer compiles.",
  },
  "response-removed": {
    request: "minor",
    response: "minor",
    typed: true,
    advice: "Nothing to change; {op} no longer answers with that status.",
  },
  "field-removed": {
    request: "major",
    response: "major",
    typed: true,
    presence: true,
    advice: {
      request: "Stop sending {field} to {op}.",
      response: "Stop reading {field} from {op}'s answer: it is no longer there.",
    },
    broken: { request: "Code that sends it no longer compiles.", response: "Code that reads it no longer compiles." },
  },
  "field-added": {
    request: "minor",
    response: "minor",
    typed: true,
    presence: true,
    advice: "Nothing to change; {field} of {op} is new and optional.",
  },
  "field-added-required": NOW_REQUIRED,
  "field-made-required": NOW_REQUIRED,
  "field-made-optional": {
    request: "minor",
    response: "major",
    typed: true,
    presence: true,
    advice: {
      request: "Nothing to change; {field} may now be left out of {op} requests.",
      response: "Handle a missing {field} when reading {op}'s answer.",
    },
    broken: { request: "", response: "Code that reads it without checking no longer compiles." },
  },
  "field-made-read-only": {
    request: "major",
    response: "patch",
    typed: true,
    presence: true,
    advice: "Stop sending {field} to {op}: the server sets it.",
    broken: "Code that sends it no longer compiles.",
  },
  "field-made-writable": {
    request: "minor",
    response: "patch",
    typed: true,
    advice: "Nothing to change; {field} of {op} may now be sent.",
  },
  "type-narrowed": {
    request: "major",
    response: "minor",
    typed: true,
    advice: {
      request: "Send only values of the new type of {field} to {op}.",
      response: "Nothing to change; {field} of {op}'s answer takes fewer types.",
    },
    broken: {
      request: "Code that sends a value of a dropped type no longer compiles.",
      response: "Code that handles the dropped type no longer compiles.",
    },
  },
  "type-widened": {
    request: "minor",
    response: "major",
    typed: true,
    advice: {
      request: "Nothing to change; {op} accepts more types of {field}.",
      response: "Handle the new types of {field} (e.g. null) when reading {op}'s answer.",
    },
    broken: { request: "", response: "Code that reads it as the old type no longer compiles." },
  },
  // A response enum that loses a value is breaking too: code that compares with the value,
  // has a `case` for it or maps every value no longer compiles (the probe proves it).
  "enum-value-removed": {
    request: "major",
    response: "major",
    typed: true,
    advice: {
      request: "Stop sending the removed values of {field} to {op}.",
      response: "Remove the values {op} no longer sends from the comparisons, `switch` cases and maps over {field}.",
    },
    broken: {
      request: "Code that sends a removed value no longer compiles.",
      response:
        "Code that compares {field} with a removed value, has a `case` for one or maps every value no longer compiles.",
    },
  },
  "enum-value-added": {
    request: "minor",
    response: "major",
    typed: true,
    advice: {
      request: "Nothing to change; {op} accepts more values of {field}.",
      response: "Handle the new values of {field} when reading {op}'s answer (e.g. a default branch).",
    },
    broken: { request: "", response: "An exhaustive map over the values of {field} no longer compiles." },
  },
  "limit-tightened": {
    request: "major",
    response: "patch",
    typed: false,
    advice: "Keep {field} within the new limit when calling {op}; the types cannot check it.",
  },
  "limit-loosened": {
    request: "minor",
    response: "patch",
    typed: false,
    advice: "Nothing to change; {op} accepts more values of {field}.",
  },
  "constraint-tightened": {
    request: "major",
    response: "patch",
    typed: false,
    advice: "Check that the values of {field} you send to {op} meet the new rule; the types cannot check it.",
  },
  "constraint-loosened": {
    request: "minor",
    response: "patch",
    typed: false,
    advice: "Nothing to change; {op} accepts more values of {field}.",
  },
  "default-changed": {
    request: "minor",
    response: "minor",
    typed: false,
    advice: "If you leave {field} out when calling {op}, check that the new default suits you.",
  },
  "docs-changed": {
    request: "patch",
    response: "patch",
    typed: false,
    advice: "Nothing to change (documentation, examples).",
  },
  "component-added": {
    request: "patch",
    response: "patch",
    typed: false,
    advice: "Nothing to change; the component is new (the message names what uses it).",
  },
  "component-removed": {
    request: "patch",
    response: "patch",
    typed: false,
    advice: "Nothing to change; no operation still in the API used the component.",
  },
  "type-break-unattributed": {
    request: "major",
    response: "major",
    typed: true,
    advice: "Code calling {op} no longer compiles; see the compile error.",
    broken: "",
  },
} as const satisfies Record<string, KindRule>;

export type Kind = keyof typeof KINDS;

export function kindRule(kind: Kind): KindRule {
  return KINDS[kind];
}

const said = (text: Said | undefined, direction: Direction): string =>
  text === undefined ? "" : typeof text === "string" ? text : text[direction];

/** The advice for a change of this kind where it sits: a request's advice never talks of reading, a response's never of sending. */
export function adviceFor(kind: Kind, direction: Direction): string {
  return said(kindRule(kind).advice, direction);
}

/** Which code stops compiling when the probe proved a change of this kind (empty: say nothing more). */
export function brokenCodeFor(kind: Kind, direction: Direction): string {
  const rule = kindRule(kind);
  return rule.broken === undefined
    ? "Code written for the old contract no longer compiles."
    : said(rule.broken, direction);
}

/** The release a change needs, given where it sits; changes in unused components never need more than a patch. */
export function bumpOf(kind: Kind, direction: Direction, used: boolean): Bump {
  const bump: Bump = kindRule(kind)[direction];
  if (used || bump === "none") return bump;
  return "patch";
}
