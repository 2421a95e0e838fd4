/**
 * `createMockStore()`: the Store Admin API in process. Its `fetch` answers each request the
 * way the contract says, checking both directions with the validators generated from it:
 *
 * 1. an unknown operation, a missing or malformed bearer token (401), a wrong version header
 *    (400), or parameters and a body that break the contract (422, every problem named) are
 *    answered as the contract's mock server (Prism) answers them;
 * 2. a valid request goes to the operation's handler, or, without one, gets the contract's
 *    example of its first success response (the smallest valid body where it has none);
 * 3. a handler's reply must be a status the operation declares, with a body of that status's
 *    schema; otherwise the call fails with a {@link MockContractError}.
 *
 * Each mock has its own URL, handlers and recorded requests: two mocks share nothing. A mock
 * made with `recordRequests: false` (a checker of calls, a long-running server) records none,
 * so that what it keeps does not grow with what it answers.
 */
import type { OperationKey } from "../../generated/operations.js";
import { mockOperations, type MockOperation } from "../../generated/testing/operations.js";
import { loadOperation, type LoadedOperation } from "./operation-modules.js";
import {
  API_ROOT_PATH,
  checkBoolean,
  checkFunction,
  createStoreAdminClient,
  NULL_BODY_STATUSES,
  sleep,
  type StoreAdminClient,
  unknownOptions,
} from "#shared";
import { MockContractError } from "./contract-error.js";
import { formValue, headersOf, matchOperation, readBody } from "./incoming.js";
import { queryOf } from "./query.js";
import {
  describeProblems,
  hasValidator,
  problemResponse,
  undeclaredQuery,
  validate,
  type Problem,
} from "./problems.js";
import { MockHandlerError } from "./handler-error.js";
import type { MockHandler, MockStore, MockStoreOptions, RecordedRequest, RecordedRequestOf } from "./types.js";

let mockCount = 0;

/** The validator suffix of a body in a media type the operation also takes (scripts/generate-testing.ts). */
const MEDIA_SUFFIX: Readonly<Record<string, string>> = {
  "application/json": "json",
  "application/x-www-form-urlencoded": "form",
  "multipart/form-data": "multipart",
};

/** A request as recorded while it is answered; `mock.requests` types it by its operation (see `RecordedRequest`). */
interface Recorded {
  method: string;
  path: string;
  operation: OperationKey | undefined;
  url: string;
  params: { path: Record<string, unknown>; query: Record<string, unknown> };
  body: unknown;
  headers: Record<string, string>;
  status: number | undefined;
}

/** A reply as a handler returns it, before it is checked. */
interface LooseReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string> | undefined;
  delayMs?: number | undefined;
}

/** What one mock keeps: its URL, its handlers, and the requests it recorded. */
interface MockState {
  readonly url: string;
  readonly handlers: Map<OperationKey, MockHandler<OperationKey>>;
  readonly requests: Recorded[];
  readonly recordRequests: boolean;
}

/** A request that meets the contract, as its handler gets it: parameters converted as the schemas say, the body read. */
interface CheckedRequest {
  params: { path: Record<string, unknown>; query: Record<string, unknown> };
  body: unknown;
}

/**
 * Creates an in-process mock of the Store Admin API.
 *
 * @example
 * const mock = createMockStore();
 * const store = createStoreAdminClient({ apiUrl: mock.url, accessToken: "test-token", fetch: mock.fetch });
 * mock.on("GET /users/{id}/", ({ path }) => ({ status: 200, body: { id: path.id, email: "ada@example.com" } }));
 */
export function createMockStore(options: MockStoreOptions = {}): MockStore {
  const state: MockState = {
    recordRequests: checkedRecordRequests(options),
    url: `https://mock-${++mockCount}.store-admin.test${API_ROOT_PATH}`,
    handlers: new Map(),
    requests: [],
  };
  const { handlers, requests } = state;
  const mock: MockStore = {
    url: state.url,
    fetch: (input: string | URL | Request, init?: RequestInit) => mockFetch(state, input, init),
    on(operation, handler) {
      if (!Object.hasOwn(mockOperations, operation)) {
        throw new TypeError(
          `mock.on(): ${JSON.stringify(operation)} is not an operation of the contract; use "METHOD /path/", e.g. "GET /users/{id}/".`,
        );
      }
      checkFunction(`mock.on(${JSON.stringify(operation)}): the handler`, handler, "a function", true);
      handlers.set(operation, handler as unknown as MockHandler<OperationKey>);
      return mock;
    },
    get requests() {
      return requests as readonly RecordedRequest[];
    },
    requestsTo<K extends OperationKey>(operation: K) {
      return requests.filter((r) => r.operation === operation) as unknown as ReadonlyArray<RecordedRequestOf<K>>;
    },
    reset() {
      handlers.clear();
      requests.length = 0;
    },
  };
  return mock;
}

/** The options, checked: `recordRequests` (default true) and nothing else. */
function checkedRecordRequests(options: MockStoreOptions): boolean {
  if (options === null || typeof options !== "object")
    throw new TypeError("createMockStore() takes { recordRequests? } or nothing.");
  const unknown = unknownOptions(options, ["recordRequests"]);
  if (unknown.length > 0)
    throw new TypeError(
      `createMockStore(): ${unknown.map((name) => JSON.stringify(name)).join(", ")} is not an option; the option is recordRequests.`,
    );
  const recordRequests = options.recordRequests ?? true;
  checkBoolean("createMockStore(): recordRequests", recordRequests, JSON.stringify);
  return recordRequests;
}

/** The mock's `fetch`: records the request (unless told not to) and answers it, or the signal's reason once it aborts. */
async function mockFetch(state: MockState, input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const { url } = state;
  const request = new Request(input, init);
  const target = new URL(request.url);
  if (!`${target.origin}${target.pathname}`.startsWith(`${url}/`)) {
    // What fetch does for an address it cannot reach; never sent anywhere.
    throw new TypeError(
      `fetch failed: this mock answers only requests under ${url}/, not ${target.origin}${target.pathname}`,
    );
  }
  const { signal } = request;
  if (signal.aborted) throw signal.reason;
  const record: Recorded = {
    method: request.method,
    path: target.pathname.slice(API_ROOT_PATH.length),
    operation: undefined,
    url: request.url,
    params: { path: {}, query: queryOf(target.searchParams) },
    body: undefined,
    headers: headersOf(request.headers),
    status: undefined,
  };
  if (state.recordRequests) state.requests.push(record);
  const response = await untilAborted(answer(state, request, record), signal);
  record.status = response.status;
  return response;
}

/** One request's answer: its operation, the request checked against it, then its handler's reply (checked) or the contract's example. */
async function answer(state: MockState, request: Request, record: Recorded): Promise<Response> {
  const found = await operationFor(record);
  if (found instanceof Response) return found;
  const { key, operation } = found;
  const checked = await checkedRequest(key, operation, request, record, found.path);
  if (checked instanceof Response) return checked;
  const handler = state.handlers.get(key);
  if (!handler) return exampleResponse(key, operation);
  const reply = await handlerReply(key, handler, request, record, checked);
  if (reply instanceof Response) {
    // What fetch does with a network-error response: it rejects, as for a broken connection.
    if (reply.type === "error") throw new TypeError(`fetch failed: the handler of ${key} answered Response.error()`);
    return checkedResponse(key, operation, reply);
  }
  return replyResponse(key, operation, reply, request.signal);
}

/** The operation the request is for, its module loaded and the record named by it; or the answer for none (422) or a module that does not load (500). */
async function operationFor(
  record: Recorded,
): Promise<Response | { key: OperationKey; operation: LoadedOperation; path: Record<string, string> }> {
  const match = matchOperation(record.method, record.path);
  if (!match.found) {
    const other = match.methods.length > 0 ? `; the contract has ${match.methods.join(", ")} ${record.path}` : "";
    const problem: Problem = {
      location: ["path"],
      severity: "Error",
      code: "operation",
      message: `${record.method} ${record.path} is not an operation of the contract${other}`,
    };
    return problemResponse(422, `${problem.message}.`, [problem]);
  }
  const { key } = match;
  let operation: LoadedOperation;
  try {
    operation = await loadOperation(key);
  } catch (cause) {
    // Said as the kit's own failure: a rejected fetch would read as a broken connection to a store.
    return problemResponse(
      500,
      `The testing kit could not load the module of ${key} (${(cause as { code?: string } | undefined)?.code ?? String(cause)}): the package is incomplete, or was replaced while this process ran.`,
      [],
    );
  }
  record.path = match.template;
  record.operation = key;
  record.params.path = { ...match.path };
  return { key, operation, path: match.path };
}

/** The request checked as the contract's mock server checks it: token (401), headers (400), then parameters and body (415, 422). */
async function checkedRequest(
  key: OperationKey,
  operation: LoadedOperation,
  request: Request,
  record: Recorded,
  path: Record<string, string>,
): Promise<Response | CheckedRequest> {
  if (operation.bearer && !/^Bearer \S+$/.test(record.headers["authorization"] ?? "")) {
    const detail =
      record.headers["authorization"] === undefined
        ? "The request has no Authorization header."
        : "The Authorization header is not `Bearer <token>`.";
    return problemResponse(401, detail, [], { "www-authenticate": "Bearer" });
  }
  const headerProblems = validate(operation.validators, `${operation.operationId}_headers`, record.headers, ["header"]);
  if (headerProblems.length > 0)
    return problemResponse(400, `Invalid headers: ${describeProblems(headerProblems)}.`, headerProblems);

  // Converted in place as the schemas say ("42" becomes 42).
  const params = { path: { ...path } as Record<string, unknown>, query: { ...record.params.query } };
  const problems = [
    ...undeclaredQuery(params.query, operation.params.query, key),
    ...validate(operation.validators, `${operation.operationId}_params`, params, []),
  ];
  record.params = params;
  let body: unknown;
  if (operation.body) {
    const read = await checkedBody(key, operation, operation.body, request, problems);
    if (read instanceof Response) return read;
    body = read.body;
    record.body = body;
  }
  if (problems.length > 0) {
    return problemResponse(422, `The request does not match the contract: ${describeProblems(problems)}.`, problems);
  }
  return { params, body };
}

/** The request's body read as the operation takes it, its problems added to `problems`; or the answer for a media type it does not take (415). */
async function checkedBody(
  key: OperationKey,
  operation: LoadedOperation,
  declared: NonNullable<LoadedOperation["body"]>,
  request: Request,
  problems: Problem[],
): Promise<Response | { body: unknown }> {
  const accepted = [declared.mediaType, ...(declared.also ?? [])];
  const read = await readBody(request, accepted, declared.listFields);
  if (read.kind === "unsupported") {
    return problemResponse(
      415,
      `${key} takes ${accepted.join(" or ")}, not ${read.contentType || "a body without a content-type"}.`,
    );
  }
  if (read.kind === "malformed")
    problems.push({ location: ["body"], severity: "Error", code: "parse", message: `the body ${read.message}` });
  if (read.kind === "none" && declared.required) {
    problems.push({ location: ["body"], severity: "Error", code: "required", message: "must have a body" });
  }
  if (read.kind !== "read") return { body: undefined };
  // The media type the client chooses has `<id>_body`; another one offered, `<id>_body_<json|form|multipart>`.
  const validator = read.mediaType === declared.mediaType ? "body" : `body_${MEDIA_SUFFIX[read.mediaType]}`;
  problems.push(...validate(operation.validators, `${operation.operationId}_${validator}`, read.checked, ["body"]));
  return {
    body:
      read.mediaType !== "application/json"
        ? formValue(read.value as Record<string, unknown>, read.checked as Record<string, unknown>)
        : read.value,
  };
}

/** What the handler answered, unchecked; a handler that throws is a bug in the test, reported as such and never retried. */
async function handlerReply(
  key: OperationKey,
  handler: MockHandler<OperationKey>,
  request: Request,
  record: Recorded,
  checked: CheckedRequest,
): Promise<LooseReply | Response> {
  try {
    return (await handler({
      operation: key,
      path: checked.params.path,
      query: checked.params.query,
      body: checked.body,
      headers: { ...record.headers },
      request,
    } as Parameters<MockHandler<OperationKey>>[0])) as LooseReply | Response;
  } catch (error) {
    throw new MockHandlerError(
      `the handler threw: ${describeThrown(error)}. To fail the request as a network error would, return Response.error().`,
      {
        operation: operationOf(key),
        cause: error,
      },
    );
  }
}

/** A handler's `{ status, body, headers?, delayMs? }` as a `Response`, checked against the contract first. */
async function replyResponse(
  key: OperationKey,
  operation: LoadedOperation,
  reply: LooseReply,
  signal: AbortSignal,
): Promise<Response> {
  if (reply === null || typeof reply !== "object" || typeof reply.status !== "number") {
    throw new MockContractError(`the handler returned ${String(reply)}; return { status, body } or a Response.`, {
      operation: operationOf(key),
    });
  }
  const delayMs = checkedDelay(key, reply.delayMs);
  const hasBody = reply.body !== undefined && !NULL_BODY_STATUSES.has(reply.status);
  // What is sent is what is validated: JSON.stringify runs toJSON and turns Infinity into null.
  const text = hasBody ? serialize(key, reply.status, reply.body) : undefined;
  checkBody(key, operation, reply.status, text === undefined ? reply.body : JSON.parse(text), "the handler's");
  if (delayMs > 0) await sleep(delayMs, signal);
  const headers = new Headers({ ...(hasBody ? { "content-type": "application/json" } : {}), ...reply.headers });
  // A 429 or 503 without Retry-After would make the client wait its backoff (about half a
  // second) before retrying; a mock's rate limit lifts at once unless the reply says otherwise.
  if ((reply.status === 429 || reply.status === 503) && !headers.has("retry-after")) headers.set("retry-after", "0");
  return new Response(text ?? null, { status: reply.status, headers });
}

const operationOf = (key: OperationKey) => {
  const [method, path] = key.split(" ") as [string, string];
  return { method, path };
};

/** The declared response a status falls under: `"200"`, else its range (`"5XX"`), else `"default"`. */
function declaredStatus(operation: MockOperation, status: number): string | undefined {
  return [String(status), `${String(status)[0]}XX`, "default"].find((candidate) =>
    Object.hasOwn(operation.responses, candidate),
  );
}

/** The longest wait a timer can make (2^31 - 1 ms, about 24.8 days); a longer one fires at once in every runtime. */
const MAX_DELAY_MS = 2_147_483_647;

function checkedDelay(key: OperationKey, delayMs: unknown): number {
  if (delayMs === undefined) return 0;
  if (typeof delayMs !== "number" || !Number.isFinite(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS) {
    throw new MockHandlerError(
      `the handler's delayMs is ${typeof delayMs === "number" ? String(delayMs) : (JSON.stringify(delayMs) ?? String(delayMs))}; it must be a number of milliseconds from 0 to ${MAX_DELAY_MS} (the longest a timer waits). To never answer, return a promise that never settles.`,
      { operation: operationOf(key) },
    );
  }
  return delayMs;
}

/** What a handler threw, in a few words. */
function describeThrown(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 500);
  return String(typeof error === "object" && error !== null ? Object.prototype.toString.call(error) : error).slice(
    0,
    500,
  );
}

/** Where in `value` a number JSON cannot carry sits (`NaN`, `Infinity`), as `body.id`, and the number; the first found. */
function nonFinite(
  value: unknown,
  path: string,
  seen: Set<object>,
  depth = 0,
): { path: string; value: number } | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? undefined : { path, value };
  if (typeof value !== "object" || value === null || seen.has(value) || depth > 64) return undefined;
  // A toJSON decides what is sent: what it returns is validated after serializing.
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return undefined;
  seen.add(value);
  for (const [name, item] of Object.entries(value)) {
    const found = nonFinite(item, `${path}.${name}`, seen, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The reply body as the mock sends it; refuses what JSON cannot carry, naming the field. */
function serialize(key: OperationKey, status: number, body: unknown): string {
  const bad = nonFinite(body, "body", new Set());
  if (bad !== undefined) {
    throw new MockContractError(
      `the handler's ${status} reply has ${bad.path} = ${String(bad.value)}, which JSON cannot carry (it would be sent as null).`,
      {
        operation: operationOf(key),
      },
    );
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(body);
  } catch (error) {
    throw new MockContractError(
      `the handler's ${status} reply body cannot be sent as JSON (${describeThrown(error)}).`,
      { operation: operationOf(key) },
    );
  }
  if (text === undefined)
    throw new MockContractError(
      `the handler's ${status} reply body serializes to nothing (JSON.stringify gave undefined).`,
      { operation: operationOf(key) },
    );
  return text;
}

/** Throws a {@link MockContractError} unless `status` is declared and `body` matches its schema. */
function checkBody(key: OperationKey, operation: LoadedOperation, status: number, body: unknown, whose: string): void {
  const declared = declaredStatus(operation, status);
  if (declared === undefined) {
    throw new MockContractError(
      `${whose} reply has the status ${status}, which the contract does not declare for this operation ` +
        `(it declares ${Object.keys(operation.responses).join(", ")}); return a Response for an undeclared status.`,
      { operation: operationOf(key) },
    );
  }
  const validator = `${operation.operationId}_${declared}`;
  if (!operation.responses[declared]!.json || !hasValidator(operation.validators, validator)) return;
  if (body === undefined) {
    throw new MockContractError(`${whose} ${status} reply has no body; the contract declares a JSON body for it.`, {
      operation: operationOf(key),
    });
  }
  const problems = validate(operation.validators, validator, body, ["body"]);
  if (problems.length > 0) {
    throw new MockContractError(`${whose} ${status} reply breaks the contract: ${describeProblems(problems)}.`, {
      operation: operationOf(key),
    });
  }
}

/**
 * A `Response` a handler returned, checked where the client would read it as the contract's
 * data: a declared status whose body is JSON (labelled so, or unlabelled but parsing as
 * JSON) must match its schema; an undeclared 2xx (the client reads it as `data` too) must
 * match a declared success schema. Anything else passes as it is: an undeclared error
 * status, an HTML page, a body that is not JSON.
 */
async function checkedResponse(key: OperationKey, operation: LoadedOperation, response: Response): Promise<Response> {
  const declared = declaredStatus(operation, response.status);
  const contentType = response.headers.get("content-type");
  const labelledJson = /^application\/([\w.+-]+\+)?json\b/i.test(contentType ?? "");
  const success = response.status >= 200 && response.status < 300;
  const schemaApplies = declared !== undefined ? operation.responses[declared]!.json : success;
  if (!schemaApplies || (contentType !== null && !labelledJson) || NULL_BODY_STATUSES.has(response.status))
    return response;
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    if (labelledJson)
      throw new MockContractError(`the handler's ${response.status} Response is labelled JSON but is not valid JSON.`, {
        operation: operationOf(key),
      });
    return response;
  }
  if (declared !== undefined) {
    checkBody(key, operation, response.status, body, "the handler's");
    return response;
  }
  const successes = Object.keys(operation.responses).filter(
    (status) => /^2(\d\d|XX)$/.test(status) && operation.responses[status]!.json,
  );
  const problems = successes.map((status) =>
    validate(operation.validators, `${operation.operationId}_${status}`, body, ["body"]),
  );
  if (successes.length > 0 && problems.every((list) => list.length > 0)) {
    throw new MockContractError(
      `the handler's Response has the status ${response.status}, which the contract does not declare; the client reads a 2xx as data, ` +
        `so its body must match a declared success response (${successes.join(", ")}): ${describeProblems(problems[0]!)}.`,
      { operation: operationOf(key) },
    );
  }
  return response;
}

/** The contract's example of the first success response, checked against its own schema. */
function exampleResponse(key: OperationKey, operation: LoadedOperation): Response {
  const [status, facts] = Object.entries(operation.responses).find(([code]) => /^2\d\d$/.test(code))!;
  if (!facts.json) return new Response(null, { status: Number(status) });
  checkBody(key, operation, Number(status), facts.example, "the contract's example for the");
  return new Response(JSON.stringify(facts.example), {
    status: Number(status),
    headers: { "content-type": "application/json" },
  });
}

/** `work`, or the signal's reason as soon as the signal aborts (a timeout, the caller's abort). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * A client whose every call a mock of its own answers in process, checked against the contract:
 * a bulk dry run's, the MCP server's check of a call. The mock keeps no request (a long run
 * would keep every body); the client never retries, and its attempts, which reach no store, are
 * neither logged (not even under STORE_ADMIN_LOG) nor traced.
 */
export function mockStoreClient(accessToken: string): StoreAdminClient {
  const mock = createMockStore({ recordRequests: false });
  return createStoreAdminClient({
    apiUrl: mock.url,
    accessToken,
    fetch: mock.fetch,
    maxRetries: 0,
    logger: () => undefined,
  });
}
