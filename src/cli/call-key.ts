/**
 * The key of each call of the command's input: what the ledger records, so that a run does each
 * call once. The one place that says how a key is made from a call.
 */
import { InputError } from "./input-error.js";
import type { InputCall } from "./input.js";

/** The value at a dotted field of a call, as a key; `flag` is how the message names the option. */
export function keyAt(call: InputCall, field: string, flag: string, file: string): string {
  let value: unknown = call;
  for (const name of field.split("."))
    value =
      value !== null && typeof value === "object" && Object.hasOwn(value, name)
        ? (value as Record<string, unknown>)[name]
        : undefined;
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  throw new InputError(
    `${file}:${call.line}: ${flag} is ${value === undefined ? "missing" : JSON.stringify(value)}; a key must be a non-empty string or a number.`,
  );
}

/** `%` and `/` of a path value escaped (`%25`, `%2F`). */
const escapeValue = (value: string): string => value.replace(/%/g, "%25").replace(/\//g, "%2F");

/**
 * The default key: the path values in the template's order, joined with "/" — as 0.3.0 made
 * it while no value holds a "/", so that its ledgers resume. Once one does, the joined values
 * could name two calls (`A/B` + `1` and `A` + `B/1` were both `A/B/1`): then each value is
 * escaped and the key starts with "/", one "/" more than any key of values without one.
 */
export function pathKey(template: string, file: string): (call: InputCall) => string {
  const values = pathValues(template, file);
  return (call) => {
    const parts = values(call);
    return parts.some((value) => value.includes("/")) ? `/${parts.map(escapeValue).join("/")}` : parts.join("/");
  };
}

/**
 * The key 0.3.0 gave a call whose path values hold a "/", which another call may share; undefined
 * for any other call (its key has not changed).
 */
export function legacyPathKey(template: string, file: string): (call: InputCall) => string | undefined {
  const values = pathValues(template, file);
  return (call) => {
    const parts = values(call);
    return parts.some((value) => value.includes("/")) ? parts.join("/") : undefined;
  };
}

function pathValues(template: string, file: string): (call: InputCall) => string[] {
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  if (names.length === 0)
    throw new InputError(
      `${template} has no path parameters to key the calls by; pass --key with a field of the calls.`,
    );
  return (call) => names.map((name) => keyAt(call, `path.${name}`, `--key path.${name} (the default)`, file));
}

/**
 * The key of a call; a line that is not a call, or has no key, is keyed by its line number and
 * marked invalid, so that it fails (nothing sent) and the run goes on.
 */
export function keyOrLine(key: (call: InputCall) => string): (call: InputCall) => string {
  return (call) => {
    if (call.invalid === undefined) {
      try {
        return key(call);
      } catch (error) {
        call.invalid = (error as Error).message;
      }
    }
    return `line ${call.line}`;
  };
}

/** A call with its key. */
export type KeyedCall = InputCall & { key: string };

/**
 * The calls with their keys; a call whose key an earlier line has is marked invalid, naming both
 * lines (the run would otherwise count it "skipped" and send nothing for it). Holds each key
 * and its line until the input ends, as the ledger does.
 */
export async function* distinctKeys(
  calls: AsyncIterable<InputCall>,
  key: (call: InputCall) => string,
  file: string,
): AsyncGenerator<KeyedCall> {
  const lines = new Map<string, number>();
  for await (const call of calls) {
    let itemKey = key(call);
    const first = lines.get(itemKey);
    if (first === undefined) lines.set(itemKey, call.line);
    else {
      call.invalid = `${file}:${call.line}: the key ${JSON.stringify(itemKey)} is the key of line ${first} too; each line must be a call of its own (check the two lines, or choose --key).`;
      itemKey = `line ${call.line}`;
    }
    yield Object.assign(call, { key: itemKey });
  }
}
