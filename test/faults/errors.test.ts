/**
 * Hostile and broken responses become typed errors through the client (never a hang or an
 * unhandled rejection), the token never leaves for another origin, and no error kind or
 * log line ever shows the token.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { buildClient } from "../../src/client/client.js";
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  errorFromResponse,
  InternalServerError,
  InvalidResponseError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RedirectError,
  StoreAdminError,
  TimeoutError,
  UnprocessableEntityError,
  type Operation,
} from "../../src/core/errors.js";
import { formatLogEvent, type RequestLogEvent } from "../../src/core/logger.js";
import type { FetchLike } from "../../src/core/call-types.js";
import type { StoreAdminClient } from "../../src/core/types.js";
import { closedPortUrl, useFaultServer, TEST_TOKEN } from "../helpers/fault-server.js";
import { recordingSleep, scriptedFetch } from "../helpers/scripted-fetch.js";
import { rejection } from "../helpers/outcome.js";

const server = useFaultServer();
const elsewhere = useFaultServer();

const USER: Operation = { method: "GET", path: "/users/{id}/" };
const RENEW: Operation = { method: "POST", path: "/subscriptions/{id}/renew/" };
const NEXT_STEP_PROXY = "A proxy or login page may have answered: check baseUrl/apiUrl.";

/** The client as callers make it (2 retries), with a short timeout and the waits recorded, not slept. */
function client(
  events: RequestLogEvent[] = [],
  options: { apiUrl?: string; fetch?: FetchLike } = {},
): StoreAdminClient {
  return buildClient(
    {
      apiUrl: server().url,
      accessToken: TEST_TOKEN,
      timeoutMs: 300,
      maxRetries: 2,
      logger: (event) => events.push(event),
      ...options,
    },
    { sleep: recordingSleep().sleep, random: () => 0 },
  );
}

const getUser = (store: StoreAdminClient) => store.GET("/users/{id}/", { params: { path: { id: 1 } } });
const renew = (store: StoreAdminClient) => store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 7 } } });

/** A response whose body is a stream that records whether anyone read or cancelled it. */
function watchedBody(
  text: string,
  init: ResponseInit,
): { response: Response; pulls: () => number; cancelled: () => boolean } {
  let pulls = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        pulls++;
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { response: new Response(stream, init), pulls: () => pulls, cancelled: () => cancelled };
}

describe("hostile 2xx responses", () => {
  it("invalid JSON: openapi-fetch's SyntaxError becomes an InvalidResponseError, not retried", async () => {
    server().enqueue(
      { status: 200, headers: { "content-type": "application/json" }, body: '{"id": 1, "email": ' },
      { status: 200, body: { id: 1 } },
    );
    const events: RequestLogEvent[] = [];
    const error = await rejection(getUser(client(events)));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).status).toBe(200);
    expect((error as InvalidResponseError).operation).toEqual(USER);
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(((error as Error).cause as Error).name).toBe("SyntaxError");
    expect((error as Error).message).toBe(
      `[GET /users/{id}/] 200 OK with a body that is not the declared JSON: it is not valid JSON. ${NEXT_STEP_PROXY}`,
    );
    expect(server().requests).toHaveLength(1);
    expect(events.map((e) => [e.attempt, e.willRetry, e.error?.name])).toEqual([[1, false, "InvalidResponseError"]]);
  });

  it("invalid JSON without a Content-Length (a streamed body) is an InvalidResponseError too", async () => {
    const scripted = scriptedFetch([
      {
        respond: () =>
          watchedBody('{"id": 1, "email": ', { status: 200, headers: { "content-type": "application/json" } }).response,
      },
    ]);
    const error = await rejection(getUser(client([], { apiUrl: "http://127.0.0.1:9", fetch: scripted.fetch })));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toBe(
      `[GET /users/{id}/] 200 OK with a body that is not the declared JSON: it is not valid JSON. ${NEXT_STEP_PROXY}`,
    );
    expect(scripted.log).toEqual(["GET /users/1/ → 200"]);
  });

  it("an HTML page on a 200 is an InvalidResponseError, not retried", async () => {
    server().enqueue(
      { status: 200, headers: { "content-type": "text/html; charset=utf-8" }, body: "<html>Log in</html>" },
      { status: 200, body: { id: 1 } },
    );
    const error = await rejection(getUser(client()));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).status).toBe(200);
    expect((error as InvalidResponseError).message).toBe(
      `[GET /users/{id}/] 200 OK with a body that is not the declared JSON: its content-type is text/html, not application/json. ${NEXT_STEP_PROXY}`,
    );
    expect(server().requests).toHaveLength(1);
  });

  it("an HTML page on a 200 is refused from its headers: its body is never read, only cancelled", async () => {
    const page = watchedBody("<html>Log in</html>", { status: 200, headers: { "content-type": "text/html" } });
    const scripted = scriptedFetch([{ respond: () => page.response }, { respond: () => new Response("{}") }]);
    const error = await rejection(getUser(client([], { apiUrl: "http://127.0.0.1:9", fetch: scripted.fetch })));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(page.pulls()).toBe(0);
    expect(page.cancelled()).toBe(true);
    expect(scripted.log).toEqual(["GET /users/1/ → 200"]);
  });

  it("an empty body where JSON was declared is an InvalidResponseError", async () => {
    server().enqueue(
      { status: 200, headers: { "content-type": "application/json" } },
      { status: 200, body: { id: 7 } },
    );
    const error = await rejection(renew(client()));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).message).toBe(
      `[POST /subscriptions/{id}/renew/] 200 OK with a body that is not the declared JSON: the body is empty. ${NEXT_STEP_PROXY}`,
    );
    expect(server().requests).toHaveLength(1);
  });

  it("an empty body is an InvalidResponseError for a GET too, with or without a Content-Length, and is not retried", async () => {
    server().enqueue(
      { status: 200, headers: { "content-type": "application/json" } },
      { status: 200, body: { id: 1 } },
    );
    const error = await rejection(getUser(client()));
    expect((error as InvalidResponseError).message).toBe(
      `[GET /users/{id}/] 200 OK with a body that is not the declared JSON: the body is empty. ${NEXT_STEP_PROXY}`,
    );
    expect(server().requests).toHaveLength(1);

    const scripted = scriptedFetch([
      { respond: () => watchedBody("", { status: 200, headers: { "content-type": "application/json" } }).response },
      { respond: () => new Response("{}") },
    ]);
    const streamed = await rejection(getUser(client([], { apiUrl: "http://127.0.0.1:9", fetch: scripted.fetch })));
    expect(streamed).toBeInstanceOf(InvalidResponseError);
    expect((streamed as InvalidResponseError).message).toBe((error as InvalidResponseError).message);
    expect(scripted.log).toEqual(["GET /users/1/ → 200"]);
  });

  it("accepts application/problem+json and a body without a content type (tolerant responses)", async () => {
    server().enqueue(
      { status: 200, headers: { "content-type": "application/problem+json" }, body: "{}" },
      { status: 200, body: "{}" },
    );
    const store = client();
    for (const contentType of ["application/problem+json", null]) {
      const { data, error, response } = await getUser(store);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(contentType);
      expect(error).toBeUndefined();
      expect(data).toEqual({});
    }
    expect(server().requests).toHaveLength(2);
    expect(server().requests.map((r) => r.url)).toEqual(["/users/1/", "/users/1/"]);
  });

  it("a body cut off mid-stream is a ConnectionError that says the server got the request", async () => {
    server().enqueue(
      { status: 200, body: { id: 1, title: "Renewal order" }, truncate: true },
      { status: 200, body: { id: 1 } },
    );
    const error = await rejection(renew(client()));
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).requestSent).toBe("yes");
    expect((error as ConnectionError).message).toBe(
      "[POST /subscriptions/{id}/renew/] the connection broke while the body was read; the server had the request " +
        "(UND_ERR_SOCKET: other side closed). It was not resent: check whether it took effect before calling again.",
    );
    expect(server().requests).toHaveLength(1);
  });
});

describe("redirects", () => {
  const CALLS = [
    [301, "GET", "/users/{id}/", "/users/1/", getUser],
    [302, "GET", "/users/{id}/", "/users/1/", getUser],
    [303, "POST", "/subscriptions/{id}/renew/", "/subscriptions/7/renew/", renew],
    [
      307,
      "POST",
      "/products/",
      "/products/",
      (store: StoreAdminClient) => store.POST("/products/", { body: { title: "Mug" } }),
    ],
    [
      308,
      "PUT",
      "/users/{id}/",
      "/users/1/",
      (store: StoreAdminClient) =>
        store.PUT("/users/{id}/", { params: { path: { id: 1 } }, body: { first_name: "Ada" } }),
    ],
  ] as const;
  for (const [status, method, template, path, call] of CALLS) {
    it(`a ${status} to another origin is not followed and the token never reaches it (${method} ${template})`, async () => {
      server().enqueue({ status, headers: { location: `${elsewhere().url}/collect?session=abc#frag` } });
      const error = await rejection(call(client()));
      expect(error).toBeInstanceOf(RedirectError);
      expect((error as RedirectError).status).toBe(status);
      expect((error as RedirectError).targetOrigin).toBe(elsewhere().url);
      expect((error as RedirectError).message).toBe(
        `[${method} ${template}] ${status} redirect to ${elsewhere().url} was not followed; the token was not sent there. ` +
          "If the API moved, update baseUrl/apiUrl.",
      );
      expect(server().requests).toHaveLength(1);
      expect(server().count(method, path)).toBe(1);
      expect(server().requests[0]?.headers.authorization).toBe(`Bearer ${TEST_TOKEN}`);
      expect(elsewhere().requests).toHaveLength(0);
    });
  }

  it("a same-origin redirect is not followed either", async () => {
    server().enqueue({ status: 301, headers: { location: "/api/admin/users/1/" } });
    const error = await rejection(getUser(client()));
    expect(error).toBeInstanceOf(RedirectError);
    expect((error as RedirectError).targetOrigin).toBe(server().url);
    expect(server().requests).toHaveLength(1);
  });
});

describe("errorFromResponse", () => {
  const headers = (entries: Record<string, string> = {}): Headers => new Headers(entries);
  const cases: Array<[number, unknown, new (...args: never[]) => ApiError, string]> = [
    [
      400,
      { detail: "cursor is malformed" },
      BadRequestError,
      "400 Bad Request: cursor is malformed. Check the parameters and body.",
    ],
    [
      401,
      { detail: "Invalid token." },
      AuthenticationError,
      "401 Unauthorized: Invalid token. Check the access token: it is missing, malformed, expired or revoked.",
    ],
    [
      403,
      { detail: "Forbidden" },
      PermissionDeniedError,
      '403 Forbidden: Forbidden. The access token lacks the scope "users:read" this operation requires: use a token that holds it.',
    ],
    [
      404,
      { detail: "No User matches the given query." },
      NotFoundError,
      "404 Not Found: No User matches the given query. Check the ids in the path, and that baseUrl (or apiUrl) is the store's API address.",
    ],
    [
      409,
      { message: "locked" },
      ConflictError,
      "409 Conflict: locked. Fetch the resource and retry with its current state.",
    ],
    [418, "I'm a teapot", ApiError, "418 Client Error: I'm a teapot."],
    [
      500,
      { error: { message: "db down" } },
      InternalServerError,
      "500 Internal Server Error: db down. The server failed; try again later.",
    ],
    [
      502,
      "<!DOCTYPE html><html><body>Bad gateway</body></html>",
      InternalServerError,
      '502 Bad Gateway: the server sent an HTML page, not JSON ("Bad gateway"). The server failed; try again later.',
    ],
  ];
  for (const [status, body, ErrorClass, message] of cases) {
    it(`maps ${status} to ${ErrorClass.name}`, () => {
      const error = errorFromResponse({
        status,
        body,
        headers: headers({ "x-request-id": "req_1" }),
        operation: USER,
        scope: "users:read",
      });
      expect(error).toBeInstanceOf(ErrorClass);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toBeInstanceOf(StoreAdminError);
      expect(error.name).toBe(ErrorClass.name);
      expect(error.message).toBe(`[GET /users/{id}/] ${message}`);
      expect(error.requestId).toBe("req_1");
      expect(JSON.parse(JSON.stringify(error))).toEqual({
        name: ErrorClass.name,
        message: error.message,
        operation: USER,
        status,
        scope: "users:read",
        requiredScopes: [["users:read"]],
        body,
        requestId: "req_1",
      });
    });
  }

  // OpenAPI's security: alternatives (any one suffices), each a set of scopes all needed; none at all is no authentication.
  const requirements: Array<[string, string[][], string, string | undefined]> = [
    [
      "one scope",
      [["users:read"]],
      'The access token lacks the scope "users:read" this operation requires: use a token that holds it.',
      "users:read",
    ],
    [
      "two scopes together",
      [["users:read", "users:write"]],
      'The access token lacks the scopes this operation requires ("users:read" and "users:write"): use a token that holds all of them.',
      undefined,
    ],
    [
      "either of two scopes",
      [["users:read"], ["admin"]],
      'The access token lacks the scopes this operation requires ("users:read" or "admin"): use a token that holds one of these.',
      undefined,
    ],
    [
      "two together, or a third",
      [["a", "b"], ["c"]],
      'The access token lacks the scopes this operation requires ("a" and "b", or "c"): use a token that holds one of these.',
      undefined,
    ],
    [
      "no scope",
      [[]],
      "The store refused the request, though this operation requires no particular scope: the token may be revoked or barred from this resource.",
      undefined,
    ],
    [
      "no authentication",
      [],
      "The store refused the request, though this operation requires no authentication: the token may be revoked or barred from this resource.",
      undefined,
    ],
  ];
  for (const [what, requiredScopes, advice, scope] of requirements) {
    it(`says in a 403 what an operation needing ${what} requires, and keeps it in requiredScopes`, () => {
      const error = errorFromResponse({
        status: 403,
        body: { detail: "Forbidden" },
        headers: headers(),
        operation: USER,
        requiredScopes,
      });
      expect(error).toBeInstanceOf(PermissionDeniedError);
      expect(error.message).toBe(`[GET /users/{id}/] 403 Forbidden: Forbidden. ${advice}`);
      expect(error.requiredScopes).toEqual(requiredScopes);
      expect(error.scope).toBe(scope);
    });
  }

  it("surfaces Prism's 422 validation list", () => {
    const body = {
      type: "https://stoplight.io/prism/errors#UNPROCESSABLE_ENTITY",
      title: "Invalid request",
      status: 422,
      detail:
        "Your request is not valid and no HTTP validation response was found in the spec, so Prism is generating this error for you.",
      validation: [
        {
          location: ["body"],
          severity: "Error",
          code: "required",
          message: "Request body must have required property 'title'",
        },
        {
          location: ["body", "ranking"],
          severity: "Error",
          code: "type",
          message: "Request body property ranking must be integer",
        },
      ],
    };
    const error = errorFromResponse({
      status: 422,
      body,
      headers: headers(),
      operation: { method: "POST", path: "/products/" },
    });
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect((error as UnprocessableEntityError).validation).toEqual([
      {
        location: ["body"],
        severity: "Error",
        code: "required",
        message: "Request body must have required property 'title'",
      },
      {
        location: ["body", "ranking"],
        severity: "Error",
        code: "type",
        message: "Request body property ranking must be integer",
      },
    ]);
    expect(error.message).toBe(
      "[POST /products/] 422 Unprocessable Content: body: Request body must have required property 'title'; " +
        "body.ranking: Request body property ranking must be integer. Fix the fields named above.",
    );
  });

  it("gives a 429 its Retry-After, and a failed POST a warning not to resend blindly", () => {
    const limited = errorFromResponse({
      status: 429,
      body: "",
      headers: headers({ "retry-after": "120" }),
      operation: USER,
    });
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfterMs).toBe(120_000);
    expect(limited.message).toBe("[GET /users/{id}/] 429 Too Many Requests. Rate limited: retry after 120 s.");
    const failed = errorFromResponse({
      status: 503,
      body: null,
      headers: headers(),
      operation: { method: "POST", path: "/subscriptions/{id}/renew/" },
    });
    expect(failed.message).toBe(
      "[POST /subscriptions/{id}/renew/] 503 Service Unavailable. The server failed; the request was not resent: check whether it took effect before calling again.",
    );
  });

  it("works without an operation", () => {
    expect(errorFromResponse({ status: 404, body: undefined, headers: headers() }).message).toBe(
      "404 Not Found. Check the ids in the path, and that baseUrl (or apiUrl) is the store's API address.",
    );
  });
});

describe("token safety", () => {
  /** Everything a caller might print or ship of an error, down its cause chain. */
  function renderings(error: unknown): string[] {
    const texts = [String(error), inspect(error, { depth: 10 }), JSON.stringify(error)];
    for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 10; depth++) {
      texts.push(cause.message, cause.toString(), String(cause), cause.stack ?? "", JSON.stringify(cause));
      cause = cause.cause;
    }
    return texts;
  }

  function expectNoToken(texts: string[]): void {
    for (const text of texts) {
      expect(text).not.toContain(TEST_TOKEN);
      expect(text).not.toMatch(/Bearer sk_/);
    }
  }

  /** A server that echoes the Authorization header wherever it can: body, message, Location. */
  const echo =
    (status: number, extra: Record<string, unknown> = {}) =>
    (authorization: string) => ({
      status,
      body: { detail: `token ${authorization} rejected`, echo: { authorization }, ...extra },
    });

  it("no error kind and no log line shows the token, even when the server echoes it", async () => {
    const events: RequestLogEvent[] = [];
    const store = client(events);
    const errors: unknown[] = [];
    const bearer = `Bearer ${TEST_TOKEN}`;

    // Every ApiError subclass, from a response whose body echoes the token.
    const echoed = [400, 401, 403, 404, 409, 418, 429, 500].map((status) => echo(status)(bearer));
    echoed.push(
      echo(422, { validation: [{ location: ["header", "authorization"], message: `bad value ${bearer}` }] })(bearer),
    );
    for (const [index, fault] of echoed.entries()) {
      // 429 is retried whatever the method (3 attempts); the others here are answered once
      // (the 500 goes to a POST, which is not retried).
      server().enqueue(...Array.from({ length: fault.status === 429 ? 3 : 1 }, () => fault));
      const { error: body, response } = index % 2 ? await renew(store) : await getUser(store);
      expect(response.status).toBe(fault.status);
      // Half with the Response, half with only its headers: both find the token to scrub.
      errors.push(
        errorFromResponse({
          status: response.status,
          body,
          headers: response.headers,
          operation: index % 2 ? RENEW : USER,
          ...(index % 2 ? { response } : {}),
        }),
      );
    }
    expect(server().requests).toHaveLength(11);
    expect(errors.map((e) => (e as ApiError).name)).toEqual([
      "BadRequestError",
      "AuthenticationError",
      "PermissionDeniedError",
      "NotFoundError",
      "ConflictError",
      "ApiError",
      "RateLimitError",
      "InternalServerError",
      "UnprocessableEntityError",
    ]);
    expect((errors[0] as ApiError).body).toEqual({
      detail: "token Bearer [REDACTED] rejected",
      echo: { authorization: "Bearer [REDACTED]" },
    });
    expect((errors[1] as ApiError).body).toEqual({
      detail: "token Bearer [REDACTED] rejected",
      echo: { authorization: "Bearer [REDACTED]" },
    });

    // TimeoutError, ConnectionError (reset, cut body, refused), InvalidResponseError (HTML, empty), RedirectError.
    server().enqueue({ hang: true }, { hang: true }, { hang: true });
    errors.push(await rejection(getUser(store)));
    server().enqueue({ destroy: true });
    errors.push(await rejection(renew(store)));
    server().enqueue({ status: 200, body: { detail: bearer, padding: "x".repeat(50) }, truncate: true });
    errors.push(await rejection(renew(store)));
    errors.push(await rejection(getUser(client(events, { apiUrl: await closedPortUrl() }))));
    server().enqueue({ status: 200, headers: { "content-type": "text/html" }, body: `<p>${bearer}</p>` });
    errors.push(await rejection(getUser(store)));
    server().enqueue({ status: 200, headers: { "content-type": "application/json" } });
    errors.push(await rejection(getUser(store)));
    server().enqueue({ status: 302, headers: { location: `${elsewhere().url}/?token=${TEST_TOKEN}` } });
    errors.push(await rejection(getUser(store)));

    // InvalidResponseError from a JSON body that openapi-fetch could not parse, quoting the token.
    server().enqueue({ status: 200, headers: { "content-type": "application/json" }, body: `${bearer} is not JSON` });
    errors.push(await rejection(getUser(store)));

    // A runtime whose network error quotes the request headers.
    const leaky = scriptedFetch([
      {
        throws: new TypeError("fetch failed", {
          cause: Object.assign(new Error(`bad header Authorization: ${bearer}`), { code: "UND_ERR_INVALID_ARG" }),
        }),
      },
    ]);
    errors.push(await rejection(renew(client(events, { fetch: leaky.fetch }))));
    expect(leaky.log).toEqual([`POST /subscriptions/7/renew/ → throws TypeError: fetch failed`]);

    expect(errors.map((e) => (e as Error).name).slice(9)).toEqual([
      "TimeoutError",
      "ConnectionError",
      "ConnectionError",
      "ConnectionError",
      "InvalidResponseError",
      "InvalidResponseError",
      "RedirectError",
      "InvalidResponseError",
      "ConnectionError",
    ]);
    expect(errors.every((e) => e instanceof StoreAdminError)).toBe(true);
    expect(
      errors
        .filter((e) => e instanceof TimeoutError || e instanceof ConnectionError)
        .every((e) => (e as Error).cause === undefined || (e as Error).cause instanceof Error),
    ).toBe(true);
    expect(((errors[16] as Error).cause as Error).name).toBe("SyntaxError");
    expect(String((errors[17] as Error).cause)).toBe("TypeError: fetch failed");
    expect(String(((errors[17] as Error).cause as Error).cause)).toBe(
      "Error: bad header Authorization: Bearer [REDACTED]",
    );

    expectNoToken(errors.flatMap(renderings));
    expect(events.length).toBeGreaterThan(errors.length);
    expectNoToken(events.flatMap((event) => [JSON.stringify(event), formatLogEvent(event)]));
    expect(elsewhere().requests).toHaveLength(0);
  });
});
