/**
 * The kit holds the test's own code to the contract: a misspelt or mistyped field of a
 * handler's reply is a compile error at that field (checked by `npm run typecheck`: each
 * `@ts-expect-error` below fails the type-check if it stops being an error); a handler that
 * throws is a bug in the test, reported as one and never retried; what is sent is what was
 * validated; recorded requests are typed by their operation; `servePages` applies the
 * query's equality filters; run-time messages name each field once.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { ConnectionError, type Schemas } from "../../src/index.js";
import { MockContractError, MockHandlerError, servePages, type RecordedRequest } from "../../src/testing/index.js";
import { mockedClient } from "./kit.js";
import { rejection as rejectionOf } from "../helpers/outcome.js";

describe("a handler's reply at compile time", () => {
  it("a field the contract lacks is an error at that field, at any depth; Response stays an escape hatch", () => {
    const { mock } = mockedClient();
    // @ts-expect-error `emial` is not a field of User ("emial is not in the contract").
    mock.on("GET /users/{id}/", ({ path }) => ({ status: 200, body: { id: path.id, emial: "x@y.z" } }));
    mock.on("GET /users/{id}/", ({ path }) => ({
      status: 200,
      // @ts-expect-error `lnie2` is not a field of an address; the error sits on this line, not on the reply.
      body: { id: path.id, addresses: [{ id: 7, line1: "Drottninggatan 12", lnie2: "" }] },
    }));
    mock.on("GET /users/{id}/", ({ path }) => ({
      status: 200,
      // @ts-expect-error `email` is a string: the error is at the field.
      body: { id: path.id, email: 5 },
    }));
    // Either branch of a handler is checked; a Response in the other branch does not switch the check off.
    mock.on("GET /users/{id}/", ({ path }) =>
      // @ts-expect-error `emial` again, beside a Response.
      path.id === 0 ? new Response(null, { status: 418 }) : { status: 200, body: { id: path.id, emial: "x" } },
    );
    // What compiles: declared fields, a 404 body, headers and delayMs, a Response, a reply held in a typed variable.
    mock.on("GET /users/{id}/", ({ path }) =>
      path.id === 0
        ? { status: 404, body: { detail: "No such customer." } }
        : { status: 200, body: { id: path.id, email: "a@b.c" }, headers: { etag: "1" }, delayMs: 0 },
    );
    mock.on("GET /users/{id}/", () => new Response(null, { status: 418 }));
    const user: Schemas["User"] = { id: 1, email: "ada@example.com" };
    mock.on("GET /users/{id}/", () => ({ status: 200, body: user }));
    mock.on("GET /users/", servePages([user], { pageSize: 1 }));
  });
});

describe("a handler that throws is a bug in the test", () => {
  it("MockHandlerError with the handler's error as cause (the same object), sent once, not retried even for a GET", async () => {
    const { mock, store } = mockedClient({ maxRetries: 2 });
    const bug = new RangeError("kaboom");
    mock.on("GET /stockrecords/{id}/", () => {
      throw bug;
    });
    const error = await rejectionOf(store.GET("/stockrecords/{id}/", { params: { path: { id: 9001 } } }));
    expect(error).toBeInstanceOf(MockHandlerError);
    expect(error).not.toBeInstanceOf(ConnectionError);
    expect((error as Error).cause).toBe(bug);
    expect((error as Error).message).toBe(
      "[GET /stockrecords/{id}/] the handler threw: RangeError: kaboom. To fail the request as a network error would, return Response.error().",
    );
    expect(
      mock.requests.map((r) => r.status),
      "one request, never answered, never retried",
    ).toEqual([undefined]);
  });

  it("an assertion failing inside a handler reaches the test as the cause, whatever was thrown", async () => {
    const { mock, store } = mockedClient();
    mock.on("PATCH /users/{id}/", ({ body }) => {
      expect(body.first_name).toBe("Ada");
      return { status: 200, body: { id: 1 } };
    });
    const error = await rejectionOf(
      store.PATCH("/users/{id}/", { params: { path: { id: 1 } }, body: { first_name: "Grace" } }),
    );
    expect(error).toBeInstanceOf(MockHandlerError);
    expect(((error as Error).cause as Error).message).toContain("expected 'Grace' to be 'Ada'");
    mock.on("PATCH /users/{id}/", () => {
      throw "a string";
    });
    const thrown = await rejectionOf(store.PATCH("/users/{id}/", { params: { path: { id: 1 } }, body: {} }));
    expect((thrown as Error).cause).toBe("a string");
  });
});

describe("recorded requests typed by their operation", () => {
  it("requestsTo(operation) types body and params; requests narrows on `operation`", async () => {
    const { mock, store } = mockedClient();
    mock.on("PATCH /users/{id}/", ({ path }) => ({ status: 200, body: { id: path.id } }));
    await store.PATCH("/users/{id}/", { params: { path: { id: 7 } }, body: { is_blocked: true, tags: ["vip"] } });
    await store.GET("/users/", { params: { query: { is_blocked: false } } });
    const [patch] = mock.requestsTo("PATCH /users/{id}/");
    expectTypeOf(patch!.body.is_blocked).toEqualTypeOf<boolean | undefined>();
    expectTypeOf(patch!.params.path.id).toEqualTypeOf<number>();
    expect(patch!.body).toEqual({ is_blocked: true, tags: ["vip"] });
    expect(patch!.params.path.id).toBe(7);
    const seen: string[] = [];
    for (const request of mock.requests as readonly RecordedRequest[]) {
      if (request.operation === "GET /users/") {
        expectTypeOf(request.params.query.is_blocked).toEqualTypeOf<boolean | undefined>();
        seen.push(`is_blocked=${String(request.params.query.is_blocked)}`);
      } else if (request.operation === "PATCH /users/{id}/") {
        // @ts-expect-error `emial` is not a field of the body PATCH /users/{id}/ takes.
        seen.push(String(request.body.emial));
      }
    }
    expect(seen).toEqual(["undefined", "is_blocked=false"]);
    expect(mock.requestsTo("GET /gift-cards/")).toEqual([]);
  });
});

describe("servePages applies the query's equality filters", () => {
  const users: Schemas["User"][] = [
    { id: 1, email: "a@example.org", accepts_marketing: false, language: "sv" },
    { id: 2, email: "b@example.org", accepts_marketing: true, language: "fi" },
    { id: 3, email: "c@example.org", accepts_marketing: true, language: "sv" },
    { id: 4, email: "d@example.org", accepts_marketing: true, language: "en" },
  ];

  it("a boolean and an enum filter, across pages; the links keep the filters", async () => {
    const { mock, store } = mockedClient();
    mock.on("GET /users/", servePages(users, { pageSize: 1 }));
    const ids: number[] = [];
    for await (const user of store.paginate("/users/", {
      params: { query: { accepts_marketing: true, language: "sv" } },
    }))
      ids.push(user.id);
    expect(ids).toEqual([3]);
    const marketing: number[] = [];
    for await (const user of store.paginate("/users/", { params: { query: { accepts_marketing: true } } }))
      marketing.push(user.id);
    expect(marketing).toEqual([2, 3, 4]);
    // Pages of one: three requests, each carrying the filter.
    expect(
      mock
        .requestsTo("GET /users/")
        .slice(1)
        .map((r) => r.params.query.accepts_marketing),
    ).toEqual([true, true, true]);
  });

  it("a parameter that names no field of the items (a search) is not applied", async () => {
    const { mock, store } = mockedClient();
    mock.on("GET /users/", servePages(users, { pageSize: 10 }));
    const { data } = await store.GET("/users/", { params: { query: { email: "nobody@example.org" } } });
    expect(data?.results?.map((u) => u.id)).toEqual([]);
    // `name` is a declared parameter (the store searches first and last names), not a field of User.
    const search = await store.GET("/users/", { params: { query: { name: "a" } } });
    expect(search.data?.results?.map((u) => u.id)).toEqual([1, 2, 3, 4]);
  });
});

describe("what is sent is what was validated", () => {
  it("id: Infinity is refused, naming the field (JSON would send null)", async () => {
    const { mock, store } = mockedClient();
    mock.on("GET /users/{id}/", () => ({ status: 200, body: { id: Infinity } }));
    const error = await rejectionOf(store.GET("/users/{id}/", { params: { path: { id: 1 } } }));
    expect(error).toBeInstanceOf(MockContractError);
    expect((error as Error).message).toBe(
      "[GET /users/{id}/] the handler's 200 reply has body.id = Infinity, which JSON cannot carry (it would be sent as null).",
    );
    mock.on("GET /users/{id}/", () => ({ status: 200, body: { id: 1, addresses: [{ id: NaN }] } }));
    expect(
      ((await rejectionOf(store.GET("/users/{id}/", { params: { path: { id: 1 } } }))) as Error).message,
    ).toContain("body.addresses.0.id = NaN");
  });

  it("a body whose toJSON changes it is validated as serialized, and sent as validated", async () => {
    const { mock, store } = mockedClient();
    const sneaky = { id: 1, email: "a@b.c", toJSON: () => ({ id: "one" }) };
    mock.on("GET /users/{id}/", () => ({ status: 200, body: sneaky as unknown as Schemas["User"] }));
    const error = await rejectionOf(store.GET("/users/{id}/", { params: { path: { id: 1 } } }));
    expect((error as Error).message).toBe(
      "[GET /users/{id}/] the handler's 200 reply breaks the contract: body.id: must be integer.",
    );
    const honest = { id: 1, toJSON: () => ({ id: 2, email: "x@y.z" }) };
    mock.on("GET /users/{id}/", () => ({ status: 200, body: honest as unknown as Schemas["User"] }));
    expect((await store.GET("/users/{id}/", { params: { path: { id: 1 } } })).data).toEqual({ id: 2, email: "x@y.z" });
  });

  it("a Response with a JSON body and no content-type is validated", async () => {
    const { mock, store } = mockedClient();
    mock.on("GET /disputes/{id}/", () => {
      const response = new Response(new TextEncoder().encode(JSON.stringify({ id: "55" })), { status: 200 });
      expect(response.headers.get("content-type")).toBeNull();
      return response;
    });
    const error = await rejectionOf(store.GET("/disputes/{id}/", { params: { path: { id: 55 } } }));
    expect(error).toBeInstanceOf(MockContractError);
    expect((error as Error).message).toContain("the handler's 200 reply breaks the contract: body.id: must be integer");
  });

  it("an undeclared 2xx Response (203) must match a declared success body; one that does passes", async () => {
    const { mock, store } = mockedClient();
    mock.on("GET /users/{id}/", () => Response.json({ id: "not a number" }, { status: 203 }));
    const error = await rejectionOf(store.GET("/users/{id}/", { params: { path: { id: 1 } } }));
    expect(error).toBeInstanceOf(MockContractError);
    expect((error as Error).message).toBe(
      "[GET /users/{id}/] the handler's Response has the status 203, which the contract does not declare; the client reads a 2xx as data, so its body must match a declared success response (200): body.id: must be integer.",
    );
    mock.on("GET /users/{id}/", () => Response.json({ id: 1 }, { status: 203 }));
    const { data, response } = await store.GET("/users/{id}/", { params: { path: { id: 1 } } });
    expect([response.status, data]).toEqual([203, { id: 1 }]);
  });

  it.each([Infinity, 3e9, -1, Number.NaN])(
    "delayMs: %s is refused with a clear error, before any wait",
    async (delayMs) => {
      const { mock, store } = mockedClient();
      mock.on("GET /gateways/{id}/", () => ({ status: 200, body: { id: 3 }, delayMs }));
      const error = await rejectionOf(store.GET("/gateways/{id}/", { params: { path: { id: 3 } } }));
      expect(error).toBeInstanceOf(MockHandlerError);
      expect((error as Error).message).toBe(
        `[GET /gateways/{id}/] the handler's delayMs is ${String(delayMs)}; it must be a number of milliseconds from 0 to 2147483647 (the longest a timer waits). To never answer, return a promise that never settles.`,
      );
      expect(mock.requests).toHaveLength(1);
    },
  );
});

describe("a 429 reply without Retry-After", () => {
  it("gets `Retry-After: 0`, so the client retries at once; one the handler sets is kept", async () => {
    const { mock, store } = mockedClient();
    let calls = 0;
    mock.on("GET /gift-cards/", () =>
      ++calls === 1
        ? { status: 429, body: { detail: "Slow down." } }
        : { status: 200, body: { next: null, previous: null, results: [] } },
    );
    const { response } = await store.GET("/gift-cards/");
    expect(response.status).toBe(200);
    expect(mock.requests.map((r) => r.status)).toEqual([429, 200]);

    const direct = (headers: Record<string, string>) => {
      mock.on("GET /gift-cards/", () => ({ status: 429, body: { detail: "Slow down." }, headers }));
      return mock.fetch(`${mock.url}/gift-cards/`, {
        headers: { authorization: "Bearer t", "x-store-api-version": "2024-04-01" },
      });
    };
    expect((await direct({})).headers.get("retry-after")).toBe("0");
    expect((await direct({ "Retry-After": "120" })).headers.get("retry-after")).toBe("120");
  });
});

describe("run-time messages name each field once, with the contract's expectation", () => {
  it("a value that matches no branch of an anyOf: one entry, `must be object or null`", async () => {
    const { mock, store } = mockedClient();
    mock.on("GET /stockrecords/{id}/", () => ({
      status: 200,
      body: JSON.parse('{"id":9001,"location":5}') as Schemas["StockRecord"],
    }));
    const error = await rejectionOf(store.GET("/stockrecords/{id}/", { params: { path: { id: 9001 } } }));
    expect((error as Error).message).toBe(
      "[GET /stockrecords/{id}/] the handler's 200 reply breaks the contract: body.location: must be object or null.",
    );
  });

  it("a field of an object branch that is wrong is named, not the branches", async () => {
    const { mock, store } = mockedClient();
    mock.on("GET /stockrecords/{id}/", () => ({
      status: 200,
      body: JSON.parse('{"id":9001,"location":{"id":"x"}}') as Schemas["StockRecord"],
    }));
    const error = await rejectionOf(store.GET("/stockrecords/{id}/", { params: { path: { id: 9001 } } }));
    expect((error as Error).message).toBe(
      "[GET /stockrecords/{id}/] the handler's 200 reply breaks the contract: body.location.id: must be integer.",
    );
  });
});
