/**
 * The JavaScript evaluated in the sandbox before an agent's code: it builds `store` from the
 * generated rows (generated/code-mode.ts), each method a stub that checks its arguments are
 * plain JSON, sends the method's name and their JSON text to the host, and parses the host's
 * JSON answer; a paginated list is an async generator that asks the host for one page a call.
 * It takes the host's two functions out of the global scope before any other code runs.
 *
 * Nothing here is a security boundary: the sandbox's code could replace any of it. The host
 * trusts only the strings it receives (src/mcp/code/host.ts checks them again).
 */
import { codeModeErrors, codeModeRows } from "../../../generated/code-mode.js";

/** The global names the host's functions are set under, removed by the prelude. */
export const BRIDGE = "__codeModeBridge";
export const LOG = "__codeModeLog";
/** The function the host calls with the snippet's main function: the result as JSON text. */
export const RUN = "__codeModeRun";

/** The most characters one string argument may have (a file's base64 is the largest). */
const MAX_STRING_ARGUMENT = 6 * 1024 * 1024;

const PRELUDE = `(function (bridge, log, rows, maxString, errorRows) {
  "use strict";
  const stringify = JSON.stringify, parse = JSON.parse, freeze = Object.freeze, define = Object.defineProperty;
  const protoOf = Object.getPrototypeOf, descriptors = Object.getOwnPropertyDescriptors, isArray = Array.isArray;
  const ObjectProto = Object.prototype, ArrayProto = Array.prototype, TypeErr = TypeError, ErrorCtor = Error;
  const hasOwn = Object.prototype.hasOwnProperty.call.bind(Object.prototype.hasOwnProperty);
  // An argument must be what JSON carries as is: no function, symbol, bigint, undefined in a list,
  // getter, class instance, cycle, non-finite number or over-long string.
  function check(value, where, seen) {
    const type = typeof value;
    if (value === null || type === "boolean") return;
    if (type === "number") { if (value !== value || value === Infinity || value === -Infinity) throw new TypeErr(where + " is " + value + ", which JSON cannot carry."); return; }
    if (type === "string") { if (value.length > maxString) throw new TypeErr(where + " is a string of " + value.length + " characters; an argument string may have at most " + maxString + "."); return; }
    if (type !== "object") throw new TypeErr(where + " is a " + type + ": arguments must be JSON (objects, arrays, strings, numbers, booleans, null).");
    if (seen.indexOf(value) !== -1) throw new TypeErr(where + " refers back to itself (a cycle): arguments must be JSON.");
    const proto = protoOf(value);
    const list = isArray(value);
    if (!list && proto !== ObjectProto && proto !== null) throw new TypeErr(where + " is not a plain object or array: arguments must be JSON.");
    seen.push(value);
    const own = descriptors(value);
    for (const key in own) {
      if (list && key === "length") continue;
      const d = own[key];
      if (d.get || d.set) throw new TypeErr(where + "." + key + " is a getter or setter: arguments must be plain JSON values.");
      if (d.value === undefined) { if (list) throw new TypeErr(where + "[" + key + "] is undefined: arguments must be JSON."); continue; }
      check(d.value, list ? where + "[" + key + "]" : where + "." + key, seen);
    }
    seen.pop();
  }
  // The SDK's error classes, so that code catches what a call throws as the SDK's examples do.
  const errors = { Error: ErrorCtor, NotSentError: undefined };
  for (const [name, parent] of [["NotSentError", "Error"], ...errorRows]) {
    const C = class extends errors[parent] {};
    define(C, "name", { value: name });
    define(C.prototype, "name", { value: name, writable: true, configurable: true });
    errors[name] = freeze(C);
  }
  function typed(error) {
    const C = error && typeof error.name === "string" && hasOwn(errors, error.name) ? errors[error.name] : undefined;
    if (C === undefined || C === ErrorCtor) throw error;
    const thrown = new C(error.message);
    if (error.status !== undefined) thrown.status = error.status;
    if (typeof error.validation === "string") thrown.validation = parse(error.validation);
    throw thrown;
  }
  function send(name, args, cursor) {
    for (let i = 0; i < args.length; i++) check(args[i], "argument " + (i + 1) + " of store." + name + "()", []);
    return bridge(name, stringify(args), cursor).then(parse, typed);
  }
  function stub(name, arity, paginated) {
    const fn = paginated
      ? async function* (...args) {
          let cursor;
          for (;;) {
            const page = await send(name, args, cursor);
            for (const item of page.items) yield item;
            if (page.next_cursor === null || page.next_cursor === undefined) return;
            cursor = page.next_cursor;
          }
        }
      : async function (...args) { return send(name, args); };
    define(fn, "length", { value: arity });
    define(fn, "name", { value: name.slice(name.lastIndexOf(".") + 1) });
    return freeze(fn);
  }
  const store = {};
  for (const [name, pathParams, rest, paginated] of rows) {
    const parts = name.split(".");
    let node = store;
    for (const part of parts.slice(0, -1)) node = hasOwn(node, part) ? node[part] : (node[part] = {});
    node[parts[parts.length - 1]] = stub(name, pathParams.length + (rest === "" ? 0 : rest.split("+").length), paginated);
  }
  (function deepFreeze(node) { for (const key of Object.keys(node)) if (typeof node[key] === "object") deepFreeze(node[key]); freeze(node); })(store);
  function shown(value) {
    if (typeof value === "string") return value;
    try { const text = stringify(value); return text === undefined ? String(value) : text; } catch (e) { return String(value); }
  }
  const write = function log_(...values) { log(values.map(shown).join(" ")); };
  const console = freeze({ log: write, error: write, warn: write });
  for (const name of Object.keys(errors)) if (name !== "Error") define(globalThis, name, { value: errors[name], enumerable: false, writable: false, configurable: false });
  define(globalThis, "store", { value: store, enumerable: false, writable: false, configurable: false });
  define(globalThis, "console", { value: console, enumerable: false, writable: false, configurable: false });
  define(globalThis, ${JSON.stringify(RUN)}, {
    value: (main) => main().then((value) => (value === undefined ? undefined : stringify(value))),
    enumerable: false, writable: false, configurable: false,
  });
})(globalThis.${BRIDGE}, globalThis.${LOG}, ${JSON.stringify(codeModeRows)}, ${MAX_STRING_ARGUMENT}, ${JSON.stringify(codeModeErrors)});
delete globalThis.${BRIDGE};
delete globalThis.${LOG};
`;

export const prelude = (): string => PRELUDE;
