/**
 * The operation methods (`store.users.retrieve(42)`, `store.disputes.resolve(7, body)`), named
 * by each operation's `x-sdk-method`. They are made at start from the names alone
 * (`generated/method-index.ts`); what each one sends (`generated/method-table.ts`, one row per
 * operation) loads with the other per-operation tables on the first call (tables.ts),
 * except a list method's path, which the index holds, since a list method returns its async
 * iterable at once.
 *
 * A method is a call of the client's own `GET`/`POST`/… or `paginate`, looked up on the client
 * when it is called, so retries, timeouts, middleware and the typed errors all apply, and a
 * client whose methods were replaced is the one that sends. Its result goes through `unwrap`:
 * the data, or the typed error thrown. The resource objects are made once per client, on first
 * use; the methods themselves are made once, here, shared by every client.
 */
import { methodIndex, type MethodIndex } from "../../generated/method-index.js";
import type { MethodRow } from "../../generated/method-table.js";
import type { OperationMethods } from "../../generated/methods.js";
import { loadTables } from "./tables.js";
import type { FetchResult } from "../core/call-types.js";
import { parameterNames } from "./path-params.js";
import { responsePromise } from "./response-promise.js";
import { unknownOptions } from "../core/options.js";
import type { MethodOptions } from "../core/types.js";

/** The client a resource object calls through: whatever holds the HTTP methods and `paginate`. */
type Sender = Record<string, unknown>;

/** Where a resource object keeps its client. */
const CLIENT = Symbol("client");

type Resource = { [CLIENT]: Sender };

/** The keys of {@link MethodOptions}; a method refuses any other, naming it. */
const METHOD_OPTIONS: Readonly<Record<keyof MethodOptions, true>> = {
  signal: true,
  headers: true,
  timeoutMs: true,
  maxRetries: true,
};
const METHOD_OPTION_NAMES = Object.keys(METHOD_OPTIONS);
const ALLOWED = METHOD_OPTION_NAMES.join(", ");

/** A row of the table, read once: what a call needs without parsing anything. */
interface Method {
  name: string;
  http: string;
  path: string;
  pathParams: readonly string[];
  /** What follows the path parameters, in order: `body`, `query`, both or none. */
  rest: readonly string[];
  paginated: boolean;
}

/** Refuses a call: a TypeError, thrown (a list method's throws at once; any other's promise rejects with it). */
function refuse(method: Method, problem: string): never {
  throw new TypeError(`${method.name}(): ${problem}; the request was not sent.`);
}

/** What a call of `method` with `args` hands to the client: the arguments checked and placed. */
function initOf(method: Method, args: unknown[]): Record<string, unknown> {
  const { pathParams, rest } = method;
  const count = pathParams.length;
  const arity = count + rest.length;
  if (args.length > arity + 1) {
    refuse(
      method,
      `takes at most ${arity + 1} arguments (${[...pathParams, ...rest, "options"].join(", ")}), got ${args.length}`,
    );
  }
  const init: Record<string, unknown> = {};
  const options = args[arity] as Record<string, unknown> | undefined;
  if (options !== undefined) {
    if (options === null || typeof options !== "object") refuse(method, `options must be an object: { ${ALLOWED} }`);
    const [unknown] = unknownOptions(options, METHOD_OPTION_NAMES);
    if (unknown !== undefined) refuse(method, `unknown option "${unknown}" (allowed: ${ALLOWED})`);
    // Own keys only: a key inherited from a polluted Object.prototype is not the caller's option.
    for (const option of Object.keys(options)) init[option] = options[option];
  }
  const params: Record<string, unknown> = {};
  if (count > 0) {
    const values: Record<string, unknown> = {};
    for (let i = 0; i < count; i++) values[pathParams[i]!] = args[i];
    params["path"] = values;
  }
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === "query") params["query"] = args[count + i];
    else if (args[count + i] !== undefined) init["body"] = args[count + i];
  }
  init["params"] = params;
  return init;
}

/** Sends a call of `method` (not a list); `.asResponse()` (`raw`) asks for the body unread, which openapi-fetch hands over as a stream. */
function send(client: Sender, method: Method, args: unknown[], raw: boolean): Promise<FetchResult> {
  const init = initOf(method, args);
  if (raw) init["parseAs"] = "stream";
  return (client[method.http] as (path: string, init: unknown) => Promise<FetchResult>)(method.path, init);
}

/** Calls `method`'s operation on `client` with the method's arguments. */
function call(client: Sender, method: Method, args: unknown[]): unknown {
  if (method.paginated)
    return (client["paginate"] as (path: string, init: unknown) => unknown)(method.path, initOf(method, args));
  return responsePromise((raw) => send(client, method, args, raw));
}

/** Resource prototypes by dotted name (`"users"`, `"users.addresses"`), each holding its methods and sub-resource getters. */
const prototypes = new Map<string, object>();

/** Makes the resource `name` (its methods call `client`). */
const makeResource = (name: string, client: Sender): object =>
  Object.create(prototypes.get(name)!, { [CLIENT]: { value: client } }) as object;

/**
 * The resources made for each client, by name. Kept here rather than on the client, so that a
 * client derived from it (`Object.create(store)`) never inherits resources bound to the original.
 */
const madeFor = new WeakMap<object, Record<string, object>>();

/** The getter of a top-level resource: made for the client it is read on, once. */
function topLevelGetter(name: string) {
  return function (this: Sender): object {
    let made = madeFor.get(this);
    if (!made) madeFor.set(this, (made = {}));
    return (made[name] ??= makeResource(name, this));
  };
}

/** The getter of a sub-resource (`users.addresses`): made for its resource's client, once, and kept on that resource. */
function subResourceGetter(name: string, key: string) {
  return function (this: Resource): object {
    const resource = makeResource(name, this[CLIENT]);
    Object.defineProperty(this, key, { value: resource, configurable: true });
    return resource;
  };
}

/** The prototype of the resource `name`, made on first need. */
function prototypeOf(name: string): object {
  let prototype = prototypes.get(name);
  if (!prototype) {
    prototype = {};
    prototypes.set(name, prototype);
    const dot = name.lastIndexOf(".");
    if (dot > 0) {
      const key = name.slice(dot + 1);
      Object.defineProperty(prototypeOf(name.slice(0, dot)), key, {
        get: subResourceGetter(name, key),
        configurable: true,
      });
    }
  }
  return prototype;
}

/** A method of the table: what a call needs without parsing anything, read from its row. */
function methodOf(name: string, key: string, rest: MethodRow[2], paginated: boolean): Method {
  const [http, path] = key.split(" ") as [string, string];
  // The arguments are the template's parameters in its order (scripts/generate.ts types them so).
  const pathParams = parameterNames(path);
  return { name, http, path, pathParams, rest: rest ? rest.split("+") : [], paginated };
}

/** The methods that are not lists, by dotted name: read from the table when it first loads. */
let rows: Map<string, Method> | undefined;

/** The method `name` (not a list) once the tables are loaded. */
async function rowOf(name: string): Promise<Method> {
  if (!rows) {
    const { methodTable } = await loadTables();
    rows ??= new Map(methodTable.map(([row, key, rest]) => [row, methodOf(row, key, rest, false)]));
  }
  return rows.get(name)!;
}

/** Adds the methods and sub-resources of `node` to the resource `name`'s prototype. */
function addMethods(name: string, node: MethodIndex): void {
  for (const [key, value] of Object.entries(node)) {
    const dotted = name === "" ? key : `${name}.${key}`;
    if (typeof value === "object") {
      addMethods(dotted, value);
      continue;
    }
    const prototype = prototypeOf(name) as Record<string, unknown>;
    if (typeof value === "string") {
      // A list: known in full from the index, since its iterable is returned at once.
      const method = methodOf(dotted, `GET ${value}`, "query", true);
      prototype[key] = function (this: Resource, ...args: unknown[]) {
        return call(this[CLIENT], method, args);
      };
    } else {
      prototype[key] = function (this: Resource, ...args: unknown[]) {
        const client = this[CLIENT];
        const method = rows?.get(dotted);
        // Before the first call has loaded the table, the promise waits for it (one import, once).
        return method
          ? call(client, method, args)
          : responsePromise(async (raw) => send(client, await rowOf(dotted), args, raw));
      };
    }
  }
}
/**
 * The top-level resources (`users`, `giftCards`, …), their prototypes made when the first client
 * is: an import that makes no client (its error classes, `unwrap`) does not pay for them.
 */
let topLevel: string[] | undefined;

/**
 * Adds the resources (`users`, `giftCards`, …) to a client, as getters that make each resource
 * on first use for the object they are read on: a client derived with `Object.create(store)`
 * and its own `GET`/`POST`/… sends through those. The getters are not enumerable, so a copy
 * made by spreading the client (`{ ...store, GET }`) has no resources until it is given them
 * with this function, rather than resources that call the original.
 */
export function attachMethods<Client extends object>(client: Client): Client & OperationMethods {
  if (!topLevel) {
    addMethods("", methodIndex);
    topLevel = [...prototypes.keys()].filter((name) => !name.includes("."));
  }
  for (const name of topLevel) {
    Object.defineProperty(client, name, { get: topLevelGetter(name), configurable: true });
  }
  return client as Client & OperationMethods;
}
