/**
 * The raw response on success: an operation method's promise has `.withResponse()` and
 * `.asResponse()`, one request whichever is used (counted at a real server on 127.0.0.1), the
 * typed error for a non-2xx after the retries, the body still bounded, and the request id from
 * `x-request-id` or `request-id`, the same on the errors.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  InternalServerError,
  NotFoundError,
  ResponseTooLargeError,
  type ResponsePromise,
  type User,
  type WithResponse,
} from "../../src/index.js";
import { TEST_TOKEN, useFaultServer } from "../helpers/fault-server.js";

const server = useFaultServer();
const user = { id: 42, email: "ada@example.com" };

describe("withResponse()", () => {
  it("resolves the data, the response and the request id; awaiting the promise as well sends no second request", async () => {
    server().enqueue({ body: user, headers: { "x-request-id": "req_123" } });
    const store = server().client();
    const call = store.users.retrieve(42);
    expectTypeOf(call).toEqualTypeOf<ResponsePromise<User>>();
    const { data, response, requestId } = await call.withResponse();
    expectTypeOf(data).toEqualTypeOf<User>();
    expect(data).toEqual(user);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBe("req_123");
    expect(requestId).toBe("req_123");
    expect(await call).toEqual(user);
    expect(await call.withResponse()).toMatchObject({ data: user, requestId: "req_123" });
    expect(server().count("GET", "/users/42/")).toBe(1);
  });

  it("reads the request id from `request-id` when there is no `x-request-id`, and leaves it undefined when there is neither", async () => {
    server().enqueue({ body: user, headers: { "request-id": "abc-9" } }, { body: user });
    const store = server().client();
    expect((await store.users.retrieve(42).withResponse()).requestId).toBe("abc-9");
    const none: WithResponse<User> = await store.users.retrieve(42).withResponse();
    expect(none.requestId).toBeUndefined();
  });

  it("rejects with the typed error after the retries, carrying the same request id", async () => {
    const failure = { status: 503, body: { detail: "busy" }, headers: { "request-id": "r-503", "retry-after": "0" } };
    server().enqueue(failure, failure, failure);
    const store = server().client({ maxRetries: 2 });
    const error = await store.users
      .retrieve(42)
      .withResponse()
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).requestId).toBe("r-503");
    expect(server().count("GET", "/users/42/")).toBe(3);

    server().enqueue({ status: 404, body: { detail: "Not found." }, headers: { "x-request-id": "r-404" } });
    const notFound = await store.users
      .retrieve(7)
      .asResponse()
      .catch((thrown: unknown) => thrown);
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect((notFound as NotFoundError).requestId).toBe("r-404");
  });

  it("keeps the response size limit", async () => {
    server().enqueue({ body: { ...user, bio: "x".repeat(5_000) } });
    const store = server().client({ maxResponseBytes: 1_000 });
    await expect(store.users.retrieve(42).withResponse()).rejects.toBeInstanceOf(ResponseTooLargeError);
  });

  it("a request id that echoes the token is scrubbed as on the errors: a success and a failure give the same id", async () => {
    const rotated = "tok_rotated_0123456789abcdef";
    for (const [token, overrides] of [
      [TEST_TOKEN, {}],
      [rotated, { accessToken: () => rotated }],
    ] as const) {
      for (const [name, value] of [
        ["x-request-id", `rid-${token}`],
        ["request-id", `rid-${btoa(token)}`],
        ["x-request-id", `rid-${token.toUpperCase()}`],
      ] as const) {
        const headers = { [name]: value };
        server().enqueue({ body: user, headers }, { status: 404, body: { detail: "Not found." }, headers });
        const store = server().client(overrides);
        const success = await store.users.retrieve(42).withResponse();
        const failure = (await store.users.retrieve(7).catch((thrown: unknown) => thrown)) as NotFoundError;
        expect(failure).toBeInstanceOf(NotFoundError);
        // A base64 form may keep a character or two that also depend on the bytes around it.
        expect(success.requestId).toMatch(/^rid-\[REDACTED\]/);
        expect(failure.requestId).toBe(success.requestId);
        // The raw Response is the caller's own: its headers are as the server sent them.
        expect(success.response.headers.get(name)).toBe(value);
      }
    }
  });
});

describe("asResponse()", () => {
  it("resolves the 2xx response with its body unread, one request", async () => {
    server().enqueue({ body: user, headers: { "x-request-id": "req_raw" } });
    const store = server().client();
    const response = await store.users.retrieve(42).asResponse();
    expectTypeOf(response).toEqualTypeOf<Response>();
    expect(response.bodyUsed).toBe(false);
    expect(response.headers.get("x-request-id")).toBe("req_raw");
    expect(await response.json()).toEqual(user);
    expect(server().count("GET", "/users/42/")).toBe(1);
  });

  it("keeps the response size limit", async () => {
    server().enqueue({ body: { ...user, bio: "x".repeat(5_000) } });
    const store = server().client({ maxResponseBytes: 1_000 });
    await expect(store.users.retrieve(42).asResponse()).rejects.toBeInstanceOf(ResponseTooLargeError);
  });

  it("awaiting the promise as well gives the data, from the one request", async () => {
    server().enqueue({ body: user });
    const store = server().client();
    const call = store.users.retrieve(42);
    const response = await call.asResponse();
    expect(await call).toEqual(user);
    expect(await response.json()).toEqual(user);
    expect(server().count("GET", "/users/42/")).toBe(1);
  });

  it("is refused with a TypeError once the request is out (its body is read for the data)", async () => {
    server().enqueue({ body: user });
    const store = server().client();
    const call = store.users.retrieve(42);
    await call;
    expect(() => call.asResponse()).toThrow(/asResponse\(\) must be chained on the call/);
    expect(server().count("GET", "/users/42/")).toBe(1);
  });

  it("a refused call (a bad argument) has both too, and sends nothing", async () => {
    const store = server().client();
    // @ts-expect-error an unknown option
    const call = store.users.retrieve(42, { retries: 1 });
    await expect(call.withResponse()).rejects.toThrow(/unknown option "retries"/);
    // @ts-expect-error an unknown option
    await expect(store.users.retrieve(42, { retries: 1 }).asResponse()).rejects.toThrow(/unknown option "retries"/);
    expect(server().requests).toHaveLength(0);
  });
});
