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

export const BUMP_ORDER: readonly Bump[] = ["none", "patch", "minor", "major"];

export function maxBump(a: Bump, b: Bump): Bump {
  return BUMP_ORDER.indexOf(a) >= BUMP_ORDER.indexOf(b) ? a : b;
}

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
   * What a caller must change, for the changelog; `{op}` and `{field}` are filled in. One
   * text for both directions, or one per direction where they differ (what a caller sends
   * against what it reads): see `adviceFor`.
   */
  advice: string | Record<Direction, string>;
}

const rule = (request: Bump, response: Bump, typed: boolean, advice: KindRule["advice"], presence = false): KindRule => ({ request, response, typed, advice, presence });

export const KINDS = {
  "operation-removed": rule("major", "major", true, "Stop calling {op}: the API no longer has it.", true),
  "operation-added": rule("minor", "minor", false, "Nothing to change; {op} is new."),
  "security-changed": rule("major", "major", false, "Give the access token the scope {op} now requires."),
  // The operation's method (`x-sdk-method`) has another name: calls of the old one no longer compile.
  // Not matched to compile errors: the probe calls operations by path, which still compiles.
  "method-renamed": rule("major", "major", false, "Call {op} by its new method name (see the message): the old one is gone."),
  "parameter-removed": rule("major", "major", true, "Stop sending {field} to {op}.", true),
  "parameter-added-required": rule("major", "major", true, "Send {field} with every {op} call.", true),
  "parameter-added": rule("minor", "minor", false, "Nothing to change; {field} of {op} is a new option."),
  "parameter-made-required": rule("major", "major", true, "Send {field} with every {op} call.", true),
  "parameter-made-optional": rule("minor", "minor", true, "Nothing to change; {field} of {op} may now be left out.", true),
  "request-body-added": rule("minor", "minor", false, "Nothing to change; {op} now takes an optional body."),
  "request-body-added-required": rule("major", "major", true, "Send a body with every {op} call.", true),
  "request-body-removed": rule("major", "major", true, "Stop sending a body to {op}.", true),
  "request-body-made-required": rule("major", "major", true, "Send a body with every {op} call.", true),
  "request-body-made-optional": rule("minor", "minor", true, "Nothing to change; the body of {op} may now be left out.", true),
  "media-type-removed": rule("major", "major", true, "Send {op}'s body in one of the media types it still accepts ({field} is gone)."),
  "media-type-added": rule("minor", "minor", false, "Nothing to change; {op} accepts a further media type ({field})."),
  "response-added": rule("minor", "minor", true, "Nothing to change; {op} may answer with a further status ({field})."),
  "response-removed": rule("minor", "minor", true, "Nothing to change; {op} no longer answers with status {field}."),
  "field-removed": rule("major", "major", true, { request: "Stop sending {field} to {op}.", response: "Stop reading {field} from {op}'s answer: it is no longer there." }, true),
  "field-added": rule("minor", "minor", true, "Nothing to change; {field} of {op} is new and optional.", true),
  "field-added-required": rule("major", "minor", true, { request: "Send {field} in every {op} request.", response: "Nothing to change; {field} is now always in {op}'s answer." }, true),
  "field-made-required": rule("major", "minor", true, { request: "Send {field} in every {op} request.", response: "Nothing to change; {field} is now always in {op}'s answer." }, true),
  "field-made-optional": rule("minor", "major", true, { request: "Nothing to change; {field} may now be left out of {op} requests.", response: "Handle a missing {field} when reading {op}'s answer." }, true),
  "field-made-read-only": rule("major", "patch", true, "Stop sending {field} to {op}: the server sets it.", true),
  "field-made-writable": rule("minor", "patch", true, "Nothing to change; {field} of {op} may now be sent."),
  "type-narrowed": rule("major", "minor", true, { request: "Send only values of the new type of {field} to {op}.", response: "Nothing to change; {field} of {op}'s answer takes fewer types." }),
  "type-widened": rule("minor", "major", true, { request: "Nothing to change; {op} accepts more types of {field}.", response: "Handle the new types of {field} (e.g. null) when reading {op}'s answer." }),
  "enum-value-removed": rule("major", "minor", true, { request: "Stop sending the removed values of {field} to {op}.", response: "Nothing to change; {field} of {op}'s answer takes fewer values." }),
  "enum-value-added": rule("minor", "major", true, { request: "Nothing to change; {op} accepts more values of {field}.", response: "Handle the new values of {field} when reading {op}'s answer (e.g. a default branch)." }),
  "limit-tightened": rule("major", "patch", false, "Keep {field} within the new limit when calling {op}; the types cannot check it."),
  "limit-loosened": rule("minor", "patch", false, "Nothing to change; {op} accepts more values of {field}."),
  "constraint-tightened": rule("major", "patch", false, "Check that the values of {field} you send to {op} meet the new rule; the types cannot check it."),
  "constraint-loosened": rule("minor", "patch", false, "Nothing to change; {op} accepts more values of {field}."),
  "default-changed": rule("minor", "minor", false, "If you leave {field} out when calling {op}, check that the new default suits you."),
  "docs-changed": rule("patch", "patch", false, "Nothing to change (documentation, examples)."),
  "component-added": rule("patch", "patch", false, "Nothing to change; the component is used by no operation."),
  "component-removed": rule("patch", "patch", false, "Nothing to change; the component was used by no operation."),
  "type-break-unattributed": rule("major", "major", true, "Code calling {op} no longer compiles; see the compile error."),
} satisfies Record<string, KindRule>;

export type Kind = keyof typeof KINDS;

export function kindRule(kind: Kind): KindRule {
  return KINDS[kind];
}

/** The advice for a change of this kind where it sits: a request's advice never talks of reading, a response's never of sending. */
export function adviceFor(kind: Kind, direction: Direction): string {
  const advice: KindRule["advice"] = KINDS[kind].advice;
  return typeof advice === "string" ? advice : advice[direction];
}

/** The release a change needs, given where it sits; changes in unused components never need more than a patch. */
export function bumpOf(kind: Kind, direction: Direction, used: boolean): Bump {
  const bump = KINDS[kind][direction];
  if (used || bump === "none") return bump;
  return "patch";
}
