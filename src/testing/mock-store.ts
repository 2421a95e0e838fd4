/**
 * `createMockStore()`: the Store Admin API in process. Its `fetch` answers each request the
 * way the contract says, checking both directions with the validators generated from it:
 *
 * 1. an unknown operation, a missing or malformed bearer token (401), a wrong version header
 *    (400), or parameters and a body that break the contract (422, every problem named) are
 *    answered as the contract's mock server (Prism) answers them;
 * 2. a valid request goes to the operation's handler, or, without one, gets the contract's
 *    example of its first success response;
 * 3. a handler's reply must be a status the operation declares, with a body of that status's
 *    schema; otherwise the call fails with a {@link MockContractError}.
 *
 * Each mock has its own URL, handlers and recorded requests: two mocks share nothing.
 */
import type { OperationKey } from "../../generated/operations.js";
import { mockOperations, type MockOperation } from "../../generated/testing/operations.js";
import { sleep } from "../internal/sleep.js";
import { MockContractError } from "./contract-error.js";
import { formValue, headersOf, matchOperation, queryOf, readBody } from "./incoming.js";
import { describeProblems, hasValidator, problemResponse, validate, type Problem } from "./problems.js";
import type { MockHandler, MockStore, RecordedRequest } from "./types.js";

/** Where every mock's API root is; `.test` names never resolve (RFC 2606), so nothing leaves the process. */
const API_ROOT_PATH = "/api/admin";
let mockCount = 0;

/** Statuses whose response has no body (Fetch standard's "null body status"). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** A reply as a handler returns it, before it is checked. */
interface LooseReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string> | undefined;
  delayMs?: number | undefined;
}

/**
 * Creates an in-process mock of the Store Admin API.
 *
 * @example
 * const mock = createMockStore();
 * const store = createStoreAdminClient({ apiUrl: mock.url, accessToken: "test-token", fetch: mock.fetch });
 * mock.on("GET /users/{id}/", ({ path }) => ({ status: 200, body: { id: path.id, email: "ada@example.com" } }));
 */
export function createMockStore(): MockStore {
  const url = `https://mock-${++mockCount}.store-admin.test${API_ROOT_PATH}`;
  const handlers = new Map<OperationKey, MockHandler<OperationKey>>();
  const requests: RecordedRequest[] = [];

  async function mockFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    const target = new URL(request.url);
    if (!`${target.origin}${target.pathname}`.startsWith(`${url}/`)) {
      // What fetch does for an address it cannot reach; never sent anywhere.
      throw new TypeError(`fetch failed: this mock answers only requests under ${url}/, not ${target.origin}${target.pathname}`);
    }
    const { signal } = request;
    if (signal.aborted) throw signal.reason;
    const record: RecordedRequest = {
      method: request.method,
      path: target.pathname.slice(API_ROOT_PATH.length),
      operation: undefined,
      url: request.url,
      params: { path: {}, query: queryOf(target.searchParams) },
      body: undefined,
      headers: headersOf(request.headers),
      status: undefined,
    };
    requests.push(record);
    const response = await untilAborted(answer(request, record), signal);
    record.status = response.status;
    return response;
  }

  async function answer(request: Request, record: RecordedRequest): Promise<Response> {
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
    const { key, operation } = match;
    record.path = match.template;
    record.operation = key;
    record.params.path = { ...match.path };

    if (operation.bearer && !/^Bearer \S+$/.test(record.headers["authorization"] ?? "")) {
      const detail = record.headers["authorization"] === undefined ? "The request has no Authorization header." : "The Authorization header is not `Bearer <token>`.";
      return problemResponse(401, detail, [], { "www-authenticate": "Bearer" });
    }
    const headerProblems = validate(`${operation.operationId}_headers`, record.headers, ["header"]);
    if (headerProblems.length > 0) return problemResponse(400, `Invalid headers: ${describeProblems(headerProblems)}.`, headerProblems);

    // Converted in place as the schemas say ("42" becomes 42).
    const params = { path: { ...match.path } as Record<string, unknown>, query: { ...record.params.query } };
    const problems = validate(`${operation.operationId}_params`, params, []);
    record.params = params;
    let body: unknown;
    if (operation.body) {
      const read = await readBody(request, operation.body.mediaType, operation.body.listFields);
      if (read.kind === "unsupported") {
        return problemResponse(415, `${key} takes ${operation.body.mediaType}, not ${read.contentType || "a body without a content-type"}.`);
      }
      if (read.kind === "malformed") problems.push({ location: ["body"], severity: "Error", code: "parse", message: `the body ${read.message}` });
      if (read.kind === "none" && operation.body.required) {
        problems.push({ location: ["body"], severity: "Error", code: "required", message: "must have a body" });
      }
      if (read.kind === "read") {
        problems.push(...validate(`${operation.operationId}_body`, read.checked, ["body"]));
        body = operation.body.mediaType === "multipart/form-data"
          ? formValue(read.value as Record<string, unknown>, read.checked as Record<string, unknown>)
          : read.value;
      }
      record.body = body;
    }
    if (problems.length > 0) {
      return problemResponse(422, `The request does not match the contract: ${describeProblems(problems)}.`, problems);
    }

    const handler = handlers.get(key);
    if (!handler) return exampleResponse(key, operation);
    let reply: LooseReply | Response;
    try {
      reply = (await handler({
        operation: key,
        path: params.path,
        query: params.query,
        body,
        headers: { ...record.headers },
        request,
      } as Parameters<MockHandler<OperationKey>>[0])) as LooseReply | Response;
    } catch (error) {
      // A handler throws to make the request fail the way a broken connection does.
      throw new TypeError(`fetch failed: the handler of ${key} threw`, { cause: error });
    }
    if (reply instanceof Response) return checkedResponse(key, operation, reply);
    if (reply === null || typeof reply !== "object" || typeof reply.status !== "number") {
      throw new MockContractError(`the handler returned ${String(reply)}; return { status, body } or a Response.`, { operation: operationOf(key) });
    }
    checkBody(key, operation, reply.status, reply.body, "the handler's");
    if (reply.delayMs !== undefined && reply.delayMs > 0) await sleep(reply.delayMs, request.signal);
    const json = reply.body !== undefined && !NULL_BODY.has(reply.status);
    return new Response(json ? JSON.stringify(reply.body) : null, {
      status: reply.status,
      headers: { ...(json ? { "content-type": "application/json" } : {}), ...reply.headers },
    });
  }

  const mock: MockStore = {
    url,
    fetch: mockFetch,
    on(operation, handler) {
      if (!Object.hasOwn(mockOperations, operation)) {
        throw new TypeError(`mock.on(): ${JSON.stringify(operation)} is not an operation of the contract; use "METHOD /path/", e.g. "GET /users/{id}/".`);
      }
      if (typeof handler !== "function") throw new TypeError(`mock.on(${JSON.stringify(operation)}): the handler must be a function.`);
      handlers.set(operation, handler as unknown as MockHandler<OperationKey>);
      return mock;
    },
    get requests() {
      return requests;
    },
    reset() {
      handlers.clear();
      requests.length = 0;
    },
  };
  return mock;
}

const operationOf = (key: OperationKey) => {
  const [method, path] = key.split(" ") as [string, string];
  return { method, path };
};

/** The declared response a status falls under: `"200"`, else its range (`"5XX"`), else `"default"`. */
function declaredStatus(operation: MockOperation, status: number): string | undefined {
  return [String(status), `${String(status)[0]}XX`, "default"].find((candidate) => Object.hasOwn(operation.responses, candidate));
}

/** Throws a {@link MockContractError} unless `status` is declared and `body` matches its schema. */
function checkBody(key: OperationKey, operation: MockOperation, status: number, body: unknown, whose: string): void {
  const declared = declaredStatus(operation, status);
  if (declared === undefined) {
    throw new MockContractError(
      `${whose} reply has the status ${status}, which the contract does not declare for this operation ` +
        `(it declares ${Object.keys(operation.responses).join(", ")}); return a Response for an undeclared status.`,
      { operation: operationOf(key) },
    );
  }
  const validator = `${operation.operationId}_${declared}`;
  if (!operation.responses[declared]!.json || !hasValidator(validator)) return;
  if (body === undefined) {
    throw new MockContractError(`${whose} ${status} reply has no body; the contract declares a JSON body for it.`, { operation: operationOf(key) });
  }
  const problems = validate(validator, body, ["body"]);
  if (problems.length > 0) {
    throw new MockContractError(`${whose} ${status} reply breaks the contract: ${describeProblems(problems)}.`, { operation: operationOf(key) });
  }
}

/** A `Response` a handler returned: a declared status with a JSON body is checked too. */
async function checkedResponse(key: OperationKey, operation: MockOperation, response: Response): Promise<Response> {
  const declared = declaredStatus(operation, response.status);
  const isJson = /^application\/([\w.+-]+\+)?json\b/i.test(response.headers.get("content-type") ?? "");
  if (declared === undefined || !isJson || !operation.responses[declared]!.json) return response;
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new MockContractError(`the handler's ${response.status} Response is labelled JSON but is not valid JSON.`, { operation: operationOf(key) });
  }
  checkBody(key, operation, response.status, body, "the handler's");
  return response;
}

/** The contract's example of the first success response, checked against its own schema. */
function exampleResponse(key: OperationKey, operation: MockOperation): Response {
  const [status, facts] = Object.entries(operation.responses).find(([code]) => /^2\d\d$/.test(code))!;
  if (!facts.json) return new Response(null, { status: Number(status) });
  checkBody(key, operation, Number(status), facts.example, "the contract's example for the");
  return new Response(JSON.stringify(facts.example), { status: Number(status), headers: { "content-type": "application/json" } });
}

/** `work`, or the signal's reason as soon as the signal aborts (a timeout, the caller's abort). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
