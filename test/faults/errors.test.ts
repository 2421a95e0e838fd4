/**
 * Hostile and broken responses become typed errors (never a hang or an unhandled
 * rejection), the token never leaves for another origin, and no error kind or log line
 * ever shows the token.
 */
import { inspect } from "node:util";
import createClient from "openapi-fetch";
import { describe, expect, it } from "vitest";
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  errorFromResponse,
  InternalServerError,
  InvalidResponseError,
  invalidJson,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RedirectError,
  StoreAdminError,
  TimeoutError,
  UnprocessableEntityError,
  type Operation,
} from "../../src/errors.js";
import { formatLogEvent, type RequestLogEvent } from "../../src/logger.js";
import { withRetry } from "../../src/retry.js";
import { withTimeout, type FetchLike } from "../../src/timeout.js";
import { apiRequest, closedPortUrl, useFaultServer, TEST_TOKEN } from "../helpers/fault-server.js";
import { recordingSleep, scriptedFetch } from "../helpers/scripted-fetch.js";

const server = useFaultServer();
const elsewhere = useFaultServer();

const USER: Operation = { method: "GET", path: "/users/{id}/" };
const NEXT_STEP_PROXY = "Something other than the API may have answered (a proxy, a login page): check baseUrl/apiUrl.";

function transport(events: RequestLogEvent[] = [], fetch: FetchLike = globalThis.fetch): FetchLike {
  return withRetry(withTimeout(fetch, 200), {
    sleep: recordingSleep().sleep,
    onAttempt: (event) => events.push(event),
    describe: (request) => ({ method: request.method, path: new URL(request.url).pathname.replace(/\/\d+\//g, "/{id}/") }),
  });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

describe("hostile 2xx responses", () => {
  it("invalid JSON: openapi-fetch's SyntaxError becomes an InvalidResponseError with invalidJson()", async () => {
    server().enqueue({ status: 200, headers: { "content-type": "application/json" }, body: '{"id": 1, "email": ' });
    const client = createClient({ baseUrl: server().url, fetch: transport() });
    const syntaxError = await rejection(client.GET("/users/1/" as never));
    expect(syntaxError).toBeInstanceOf(SyntaxError);
    const error = invalidJson(USER, syntaxError, new Response(null, { status: 200 }));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.status).toBe(200);
    expect(error.cause).toBeInstanceOf(Error);
    expect((error.cause as Error).name).toBe("SyntaxError");
    expect(error.message).toBe(
      `[GET /users/{id}/] 200 OK with a body that is not the declared JSON: it is not valid JSON. ${NEXT_STEP_PROXY}`,
    );
  });

  it("an HTML page on a 200 is an InvalidResponseError, not retried", async () => {
    server().enqueue({ status: 200, headers: { "content-type": "text/html; charset=utf-8" }, body: "<html>Log in</html>" });
    const error = await rejection(transport()(apiRequest(server().url, "GET", "/users/1/")));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).message).toBe(
      `[GET /users/{id}/] 200 OK with a body that is not the declared JSON: its content-type is text/html, not application/json. ${NEXT_STEP_PROXY}`,
    );
    expect(server().requests).toHaveLength(1);
  });

  it("an empty body where JSON was declared is an InvalidResponseError", async () => {
    server().enqueue({ status: 200, headers: { "content-type": "application/json" } });
    const error = await rejection(transport()(apiRequest(server().url, "POST", "/subscriptions/7/renew/")));
    expect((error as InvalidResponseError).message).toBe(
      `[POST /subscriptions/{id}/renew/] 200 OK with a body that is not the declared JSON: the body is empty. ${NEXT_STEP_PROXY}`,
    );
  });

  it("accepts application/problem+json and a body without a content type (tolerant responses)", async () => {
    server().enqueue({ status: 200, headers: { "content-type": "application/problem+json" }, body: "{}" }, { status: 200, body: "{}" });
    const fetch = transport();
    expect(await (await fetch(apiRequest(server().url, "GET", "/users/1/"))).json()).toEqual({});
    expect(await (await fetch(apiRequest(server().url, "GET", "/users/1/"))).json()).toEqual({});
  });

  it("a body cut off mid-stream is a ConnectionError that says the server got the request", async () => {
    server().enqueue({ status: 200, body: { id: 1, title: "Renewal order" }, truncate: true });
    const error = await rejection(transport()(apiRequest(server().url, "POST", "/subscriptions/7/renew/")));
    expect((error as ConnectionError).message).toBe(
      "[POST /subscriptions/{id}/renew/] the connection closed while the response body was being read; the server " +
        "received the request (UND_ERR_SOCKET: other side closed). It was not resent automatically: check whether it " +
        "took effect before calling again.",
    );
    expect(server().requests).toHaveLength(1);
  });
});

describe("redirects", () => {
  for (const [status, method] of [[301, "GET"], [302, "GET"], [303, "POST"], [307, "POST"], [308, "PUT"]] as const) {
    it(`a ${status} to another origin is not followed and the token never reaches it (${method})`, async () => {
      server().enqueue({ status, headers: { location: `${elsewhere().url}/collect?session=abc#frag` } });
      const error = await rejection(transport()(apiRequest(server().url, method, "/users/1/", { body: method === "GET" ? undefined : {} })));
      expect(error).toBeInstanceOf(RedirectError);
      expect((error as RedirectError).targetOrigin).toBe(elsewhere().url);
      expect((error as RedirectError).message).toBe(
        `[${method} /users/{id}/] ${status} redirect to ${elsewhere().url} was not followed, and the access token was ` +
          "not sent there. If the API has moved, update baseUrl/apiUrl.",
      );
      expect(server().requests).toHaveLength(1);
      expect(elsewhere().requests).toHaveLength(0);
    });
  }

  it("a same-origin redirect is not followed either", async () => {
    server().enqueue({ status: 301, headers: { location: "/api/admin/users/1/" } });
    const error = await rejection(transport()(apiRequest(server().url, "GET", "/users/1/")));
    expect((error as RedirectError).targetOrigin).toBe(server().url);
    expect(server().requests).toHaveLength(1);
  });
});

describe("errorFromResponse", () => {
  const headers = (entries: Record<string, string> = {}): Headers => new Headers(entries);
  const cases: Array<[number, unknown, new (...args: never[]) => ApiError, string]> = [
    [400, { detail: "cursor is malformed" }, BadRequestError, "400 Bad Request: cursor is malformed. Check the request parameters and body."],
    [401, { detail: "Invalid token." }, AuthenticationError, "401 Unauthorized: Invalid token. Check the access token: it is missing, malformed, expired or revoked."],
    [403, { detail: "Forbidden" }, PermissionDeniedError, '403 Forbidden: Forbidden. The access token lacks the scope "users:read" this operation requires: use a token that holds it.'],
    [404, { detail: "No User matches the given query." }, NotFoundError, "404 Not Found: No User matches the given query. Check the ids in the path."],
    [409, { message: "locked" }, ConflictError, "409 Conflict: locked. Fetch the resource again and retry with its current state."],
    [418, "I'm a teapot", ApiError, "418 Client Error: I'm a teapot."],
    [500, { error: { message: "db down" } }, InternalServerError, "500 Internal Server Error: db down. The server failed; try again later."],
    [502, "<!DOCTYPE html><html><body>Bad gateway</body></html>", InternalServerError, "502 Bad Gateway: the server sent an HTML page, not JSON. The server failed; try again later."],
  ];
  for (const [status, body, ErrorClass, message] of cases) {
    it(`maps ${status} to ${ErrorClass.name}`, () => {
      const error = errorFromResponse({ status, body, headers: headers({ "x-request-id": "req_1" }), operation: USER, scope: "users:read" });
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
        body,
        requestId: "req_1",
      });
    });
  }

  it("surfaces Prism's 422 validation list", () => {
    const body = {
      type: "https://stoplight.io/prism/errors#UNPROCESSABLE_ENTITY",
      title: "Invalid request",
      status: 422,
      detail: "Your request is not valid and no HTTP validation response was found in the spec, so Prism is generating this error for you.",
      validation: [
        { location: ["body"], severity: "Error", code: "required", message: "Request body must have required property 'title'" },
        { location: ["body", "ranking"], severity: "Error", code: "type", message: "Request body property ranking must be integer" },
      ],
    };
    const error = errorFromResponse({ status: 422, body, headers: headers(), operation: { method: "POST", path: "/products/" } });
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect((error as UnprocessableEntityError).validation).toEqual([
      { location: ["body"], severity: "Error", code: "required", message: "Request body must have required property 'title'" },
      { location: ["body", "ranking"], severity: "Error", code: "type", message: "Request body property ranking must be integer" },
    ]);
    expect(error.message).toBe(
      "[POST /products/] 422 Unprocessable Content: body: Request body must have required property 'title'; " +
        "body.ranking: Request body property ranking must be integer. Fix the fields named above.",
    );
  });

  it("gives a 429 its Retry-After, and a failed POST a warning not to resend blindly", () => {
    const limited = errorFromResponse({ status: 429, body: "", headers: headers({ "retry-after": "120" }), operation: USER });
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfterMs).toBe(120_000);
    expect(limited.message).toBe("[GET /users/{id}/] 429 Too Many Requests. Rate limited: retry after 120 s.");
    const failed = errorFromResponse({ status: 503, body: null, headers: headers(), operation: { method: "POST", path: "/subscriptions/{id}/renew/" } });
    expect(failed.message).toBe(
      "[POST /subscriptions/{id}/renew/] 503 Service Unavailable. The server failed; the request was not resent: check whether it took effect before calling again.",
    );
  });

  it("works without an operation", () => {
    expect(errorFromResponse({ status: 404, body: undefined, headers: headers() }).message).toBe("404 Not Found. Check the ids in the path.");
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
  const echo = (status: number, extra: Record<string, unknown> = {}) => (authorization: string) => ({
    status,
    body: { detail: `token ${authorization} rejected`, echo: { authorization }, ...extra },
  });

  it("no error kind and no log line shows the token, even when the server echoes it", async () => {
    const events: RequestLogEvent[] = [];
    const fetch = transport(events);
    const errors: unknown[] = [];
    const bearer = `Bearer ${TEST_TOKEN}`;

    // Every ApiError subclass, from a response whose body echoes the token.
    const echoed = [400, 401, 403, 404, 409, 418, 429, 500].map((status) => echo(status)(bearer));
    echoed.push(echo(422, { validation: [{ location: ["header", "authorization"], message: `bad value ${bearer}` }] })(bearer));
    for (const [index, fault] of echoed.entries()) {
      // 429 is retried whatever the method (3 attempts); the others here are answered once.
      server().enqueue(...Array.from({ length: fault.status === 429 ? 3 : 1 }, () => fault));
      const response = await fetch(apiRequest(server().url, index % 2 ? "POST" : "GET", "/users/1/"));
      const body: unknown = await response.json();
      // Half with the Response, half with only its headers: both find the token to scrub.
      errors.push(
        errorFromResponse({ status: response.status, body, headers: response.headers, operation: USER, ...(index % 2 ? { response } : {}) }),
      );
    }
    expect(errors.map((e) => (e as ApiError).name)).toEqual([
      "BadRequestError", "AuthenticationError", "PermissionDeniedError", "NotFoundError", "ConflictError",
      "ApiError", "RateLimitError", "InternalServerError", "UnprocessableEntityError",
    ]);
    expect((errors[1] as ApiError).body).toEqual({ detail: "token Bearer [REDACTED] rejected", echo: { authorization: "Bearer [REDACTED]" } });

    // TimeoutError, ConnectionError (reset, cut body, refused), InvalidResponseError (HTML, empty), RedirectError.
    server().enqueue({ hang: true }, { hang: true }, { hang: true });
    errors.push(await rejection(fetch(apiRequest(server().url, "GET", "/users/1/"))));
    server().enqueue({ destroy: true });
    errors.push(await rejection(fetch(apiRequest(server().url, "POST", "/users/1/"))));
    server().enqueue({ status: 200, body: { detail: bearer, padding: "x".repeat(50) }, truncate: true });
    errors.push(await rejection(fetch(apiRequest(server().url, "POST", "/users/1/"))));
    errors.push(await rejection(fetch(apiRequest(await closedPortUrl(), "GET", "/users/1/"))));
    server().enqueue({ status: 200, headers: { "content-type": "text/html" }, body: `<p>${bearer}</p>` });
    errors.push(await rejection(fetch(apiRequest(server().url, "GET", "/users/1/"))));
    server().enqueue({ status: 200, headers: { "content-type": "application/json" } });
    errors.push(await rejection(fetch(apiRequest(server().url, "GET", "/users/1/"))));
    server().enqueue({ status: 302, headers: { location: `${elsewhere().url}/?token=${TEST_TOKEN}` } });
    errors.push(await rejection(fetch(apiRequest(server().url, "GET", "/users/1/"))));

    // InvalidResponseError from a JSON body that openapi-fetch could not parse, quoting the token.
    server().enqueue({ status: 200, headers: { "content-type": "application/json" }, body: `${bearer} is not JSON` });
    const client = createClient({ baseUrl: server().url, fetch: fetch });
    const syntaxError = await rejection(client.GET("/users/1/" as never));
    errors.push(invalidJson(USER, syntaxError));

    // A runtime whose network error quotes the request headers.
    const leaky = scriptedFetch([
      { throws: new TypeError("fetch failed", { cause: Object.assign(new Error(`bad header Authorization: ${bearer}`), { code: "UND_ERR_INVALID_ARG" }) }) },
    ]);
    errors.push(await rejection(transport(events, leaky.fetch)(apiRequest(server().url, "POST", "/users/1/"))));

    expect(errors.map((e) => (e as Error).name).slice(9)).toEqual([
      "TimeoutError", "ConnectionError", "ConnectionError", "ConnectionError",
      "InvalidResponseError", "InvalidResponseError", "RedirectError", "InvalidResponseError", "ConnectionError",
    ]);
    expect(errors.every((e) => e instanceof StoreAdminError)).toBe(true);
    expect(errors.filter((e) => e instanceof TimeoutError || e instanceof ConnectionError).every((e) => (e as Error).cause === undefined || (e as Error).cause instanceof Error)).toBe(true);
    expect(String((errors[17] as Error).cause)).toBe("TypeError: fetch failed");
    expect(String(((errors[17] as Error).cause as Error).cause)).toBe("Error: bad header Authorization: Bearer [REDACTED]");

    expectNoToken(errors.flatMap(renderings));
    expect(events.length).toBeGreaterThan(errors.length);
    expectNoToken(events.flatMap((event) => [JSON.stringify(event), formatLogEvent(event)]));
    expect(elsewhere().requests).toHaveLength(0);
  });
});
