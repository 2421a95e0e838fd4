/**
 * Handlers: typed from the contract (checked by `npm run typecheck`: the `@ts-expect-error`
 * lines below fail the type-check if they stop being errors), given converted parameters,
 * and held to the contract at run time. Scripted faults are plain handlers: a status with
 * `retry-after`, a late answer, a thrown error.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { ConflictError, ConnectionError, TimeoutError, unwrap, type Schemas } from "../../src/index.js";
import { MockContractError } from "../../src/testing/index.js";
import { mockedClient } from "./kit.js";
import { rejection as rejectionOf } from "../helpers/outcome.js";

describe("typed handlers", () => {
  it("receive path and query parameters converted as their schemas say, and their reply reaches the client", async () => {
    const { mock, store } = mockedClient();
    mock.on("GET /users/{id}/", ({ path, headers, operation }) => {
      expectTypeOf(path.id).toEqualTypeOf<number>();
      expect(path.id).toBe(42);
      expect(operation).toBe("GET /users/{id}/");
      expect(headers["x-store-api-version"]).toBe("2024-04-01");
      return { status: 200, body: { id: path.id, email: "ada@example.com" } };
    });
    mock.on("GET /users/", ({ query }) => {
      expectTypeOf(query.is_blocked).toEqualTypeOf<boolean | undefined>();
      expect(query).toEqual({ is_blocked: false, language: "sv" });
      return { status: 200, body: { next: null, previous: null, results: [] } };
    });
    const { data } = await store.GET("/users/{id}/", { params: { path: { id: 42 } } });
    expect(data).toEqual({ id: 42, email: "ada@example.com" });
    const list = await store.GET("/users/", { params: { query: { is_blocked: false, language: "sv" } } });
    expect(list.data?.results).toEqual([]);
    expect(mock.requests.map((r) => r.params)).toEqual([
      { path: { id: 42 }, query: {} },
      { path: {}, query: { is_blocked: false, language: "sv" } },
    ]);
  });

  it("receive the JSON body as sent", async () => {
    const { mock, store } = mockedClient();
    mock.on("PATCH /users/{id}/", ({ path, body }) => {
      expect(body).toEqual({ is_blocked: true, tags: ["vip"] });
      return { status: 200, body: { id: path.id, is_blocked: body.is_blocked ?? false } };
    });
    const { data } = await store.PATCH("/users/{id}/", {
      params: { path: { id: 7 } },
      body: { is_blocked: true, tags: ["vip"] },
    });
    expect(data).toEqual({ id: 7, is_blocked: true });
    expect(mock.requests[0]?.body).toEqual({ is_blocked: true, tags: ["vip"] });
  });

  it("are checked at compile time: a wrong body type, an undeclared status and an unknown operation do not compile", () => {
    const { mock } = mockedClient();
    // @ts-expect-error `id` of a User is a number, not a string.
    mock.on("GET /users/{id}/", () => ({ status: 200, body: { id: "42" } }));
    // @ts-expect-error getUser declares no 418 response.
    mock.on("GET /users/{id}/", () => ({ status: 418, body: {} }));
    // @ts-expect-error `email` of a User is a string.
    mock.on("PATCH /users/{id}/", ({ path }) => ({ status: 200, body: { id: path.id, email: 5 } }));
    // @ts-expect-error `path.id` of getUser is a number, so `.toUpperCase()` does not exist.
    mock.on("GET /users/{id}/", ({ path }) => ({ status: 200, body: { id: 1, email: path.id.toUpperCase() } }));
    // An unknown operation is a compile error and, at run time, a TypeError naming it.
    // @ts-expect-error "GET /customers/" is not an operation of the contract.
    expect(() => mock.on("GET /customers/", () => new Response())).toThrow(
      /"GET \/customers\/" is not an operation of the contract/,
    );
    // A declared error status takes the contract's error body.
    mock.on("GET /users/{id}/", () => ({ status: 404, body: { detail: "No such customer." } }));
    const user: Schemas["User"] = { id: 1, email: "ada@example.com" };
    mock.on("GET /users/{id}/", () => ({ status: 200, body: user }));
  });
});

describe("a handler's reply that breaks the contract fails the call, naming the operation and the field", () => {
  it("a body of the wrong shape (as a fixture loaded from JSON could be): MockContractError, sent once, not retried", async () => {
    const { mock, store } = mockedClient();
    const fixture: unknown = JSON.parse('{ "id": 42, "email": 5, "addresses": [{ "id": "seven" }] }');
    mock.on("GET /users/{id}/", () => ({ status: 200, body: fixture as Schemas["User"] }));
    const error = await rejectionOf(store.GET("/users/{id}/", { params: { path: { id: 42 } } }));
    expect(error).toBeInstanceOf(MockContractError);
    expect((error as Error).message).toBe(
      "[GET /users/{id}/] the handler's 200 reply breaks the contract: body.addresses.0.id: must be integer; body.email: must be string or null.",
    );
    expect(mock.requests).toHaveLength(1);
  });

  it("a status the operation does not declare, as a reply object", async () => {
    const { mock, store } = mockedClient();
    mock.on("POST /subscriptions/{id}/renew/", () => ({ status: 409, body: {} }) as never);
    const error = await rejectionOf(store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 410 } } }));
    expect(error).toBeInstanceOf(MockContractError);
    expect((error as Error).message).toContain(
      "[POST /subscriptions/{id}/renew/] the handler's reply has the status 409",
    );
  });

  it("a Response with a declared status and a JSON body is checked too", async () => {
    const { mock, store } = mockedClient();
    mock.on("GET /disputes/{id}/", () => Response.json({ id: "55" }));
    const error = await rejectionOf(store.GET("/disputes/{id}/", { params: { path: { id: 55 } } }));
    expect(error).toBeInstanceOf(MockContractError);
    expect((error as Error).message).toContain(
      "[GET /disputes/{id}/] the handler's 200 reply breaks the contract: body.id: must be integer",
    );
  });

  it("a Response with a status the contract does not declare passes as it is (any status is scriptable)", async () => {
    const { mock, store } = mockedClient();
    mock.on("POST /subscriptions/{id}/renew/", () =>
      Response.json({ detail: "Already renewed today." }, { status: 409 }),
    );
    const { error, response } = await store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 410 } } });
    expect(response.status).toBe(409);
    expect(error).toEqual({ detail: "Already renewed today." });
  });
});

describe("scripted faults", () => {
  it("429 with Retry-After, then 200: the client waits and retries; the mock counts two requests", async () => {
    const { mock, store } = mockedClient();
    let calls = 0;
    mock.on("GET /gift-cards/", () =>
      ++calls === 1
        ? { status: 429, body: { detail: "Slow down." }, headers: { "retry-after": "1" } }
        : { status: 200, body: { next: null, previous: null, results: [{ id: 88, balance: "35.00" }] } },
    );
    const { data, response } = await store.GET("/gift-cards/");
    expect(response.status).toBe(200);
    expect(data?.results?.[0]?.balance).toBe("35.00");
    expect(mock.requests.map((r) => r.status)).toEqual([429, 200]);
  });

  it("a 409 Response from a handler becomes the SDK's ConflictError under unwrap()", async () => {
    const { mock, store } = mockedClient();
    mock.on(
      "POST /disputes/{id}/resolve/",
      () =>
        new Response(JSON.stringify({ detail: "Already resolved." }), {
          status: 409,
          headers: { "content-type": "application/json" },
        }),
    );
    const error = await rejectionOf(
      unwrap(store.POST("/disputes/{id}/resolve/", { params: { path: { id: 55 } }, body: { resolution: "won" } })),
    );
    expect(error).toBeInstanceOf(ConflictError);
  });

  it("a late answer (delayMs) runs into the client's timeout", async () => {
    const { mock, store } = mockedClient({ timeoutMs: 100, maxRetries: 0 });
    mock.on("GET /gateways/{id}/", () => ({ status: 200, body: { id: 3 }, delayMs: 60_000 }));
    const error = await rejectionOf(store.GET("/gateways/{id}/", { params: { path: { id: 3 } } }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(mock.requests).toHaveLength(1);
    expect(mock.requests[0]?.status, "never answered").toBeUndefined();
  });

  it("a handler that waits itself is cut off by the caller's abort", async () => {
    const { mock, store } = mockedClient();
    mock.on("GET /gateways/{id}/", () => new Promise(() => undefined));
    const controller = new AbortController();
    const call = store.GET("/gateways/{id}/", { params: { path: { id: 3 } }, signal: controller.signal });
    setTimeout(() => controller.abort(new Error("caller gave up")), 20);
    expect(await rejectionOf(call)).toEqual(new Error("caller gave up"));
  });

  it("Response.error() is a network failure: ConnectionError, a POST sent once, a GET retried", async () => {
    const { mock, store } = mockedClient({ maxRetries: 1 });
    mock.on("POST /subscriptions/{id}/renew/", () => Response.error());
    const post = await rejectionOf(store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 410 } } }));
    expect(post).toBeInstanceOf(ConnectionError);
    expect(mock.requests).toHaveLength(1);

    mock.reset();
    let calls = 0;
    mock.on("GET /stockrecords/{id}/", () => (++calls === 1 ? Response.error() : { status: 200, body: { id: 9001 } }));
    const { data } = await store.GET("/stockrecords/{id}/", { params: { path: { id: 9001 } } });
    expect(data).toEqual({ id: 9001 });
    expect(mock.requests.map((r) => r.status)).toEqual([undefined, 200]);
  });
});
