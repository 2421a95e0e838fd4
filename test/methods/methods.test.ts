/**
 * The operation methods (`store.users.retrieve(42)`) at run time: each sends its
 * operation's request (method, path, query, body), against the testing kit (which records it
 * and validates it against the contract) and against Prism (which validates it, answering 2xx
 * only to a valid request; a recording `fetch` shows what went on the wire). Results are the
 * data or a typed error, lists are async iterables that follow cursors, and bad arguments are
 * refused with nothing sent. The calls are made from the contract (test/helpers/contract-calls.ts).
 */
import { describe, expect, inject, it } from "vitest";
import { methodTable, type MethodRow } from "../../generated/method-table.js";
import { operations } from "../../generated/operation-facts.js";
import { mockOperations } from "../../generated/testing/operations.js";
import {
  createStoreAdminClient,
  NotFoundError,
  PermissionDeniedError,
  type StoreAdminClient,
} from "../../src/index.js";
import { deriveClient } from "../../src/client/client.js";
import { attachMethods } from "../../src/client/methods.js";
import { servePages } from "../../src/testing/index.js";
import { mockedClient, TEST_TOKEN } from "../testing/kit.js";
import { contractCalls, formFileFields, formTextFields } from "../helpers/contract-calls.js";

const all = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};

/** Each operation's call, from the contract. */
const CALLS = new Map(contractCalls.map((call) => [call.key, call]));

/** Calls the method of `name` with the operation's values; a list method's iterable is walked to the end. */
function callMethod(store: StoreAdminClient, [name, key, rest]: MethodRow): Promise<unknown> {
  const call = CALLS.get(key)!;
  const args = [
    ...Object.values(call.path),
    ...(rest.startsWith("body") ? [call.body] : []),
    ...(rest.endsWith("query") ? [call.query] : []),
  ];
  const parts = name.split(".");
  const resource = methodOf(store, parts.slice(0, -1).join(".")) as Record<string, (...args: unknown[]) => unknown>;
  const result = resource[parts.at(-1)!]!(...args);
  return operations[key].paginated ? all(result as AsyncIterable<unknown>) : (result as Promise<unknown>);
}

/** `"users.addresses.update"` → the method on `store`. */
function methodOf(store: StoreAdminClient, name: string): unknown {
  return name
    .split(".")
    .filter(Boolean)
    .reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], store);
}

describe("the method table", () => {
  it("has one method per operation of the contract, each reachable on the client", () => {
    expect(methodTable.map((row) => row[1]).sort()).toEqual(Object.keys(operations).sort());
    expect([...CALLS.keys()].sort()).toEqual(Object.keys(operations).sort());
    const { store } = mockedClient();
    for (const [name] of methodTable) expect(typeof methodOf(store, name), name).toBe("function");
  });
});

describe("every method against the testing kit", () => {
  for (const row of methodTable) {
    const [name, key] = row;
    const expected = CALLS.get(key)!;
    it(`${name}() sends ${key} with its parameters and body, and resolves to the data`, async () => {
      const { mock, store } = mockedClient();
      const result = await callMethod(store, row);
      const [method, template] = key.split(" ");
      expect(mock.requests).toHaveLength(1);
      const request = mock.requests[0]!;
      expect(request).toMatchObject({ method, path: template, operation: key });
      expect(request.status, `answered ${request.status}`).toBeGreaterThanOrEqual(200);
      expect(request.status).toBeLessThan(300);
      expect(request.params.path).toEqual(expected.path);
      expect(request.params.query).toEqual(expected.query);
      if (expected.mediaType === "multipart/form-data") {
        const form = request.body as Record<string, unknown>;
        expect(formTextFields(form)).toEqual(formTextFields(expected.body));
        for (const field of formFileFields(expected.body)) expect(form[field], field).toBeInstanceOf(Blob);
      } else expect(request.body).toEqual(expected.body);

      // The data itself, not `{ data, error, response }`: the contract's example (the items, for a list).
      const [, facts] = Object.entries((await mockOperations[key]()).operation.responses).find(([code]) =>
        /^2\d\d$/.test(code),
      )!;
      expect(facts.built, `${key}: add a response example to the contract`).toBeFalsy();
      const example = facts.example as { results?: unknown[] };
      const data = operations[key].paginated
        ? example.results
        : operations[key].singleOrList && !Array.isArray(example)
          ? [example]
          : example;
      expect(result).toEqual(data);
    });
  }
});

describe("every method against Prism", () => {
  for (const row of methodTable) {
    const [name, key] = row;
    it(`${name}() sends ${key}, which Prism validates`, async () => {
      const sent: Request[] = [];
      const store = createStoreAdminClient({
        apiUrl: inject("prismUrl"),
        accessToken: TEST_TOKEN,
        fetch: (input, init) => {
          const request = new Request(input, init);
          sent.push(request.clone());
          return globalThis.fetch(request);
        },
      });
      // Prism answers an invalid request with 4xx, which the method would throw.
      await callMethod(store, row);
      const expected = CALLS.get(key)!;
      expect(sent).toHaveLength(1);
      const url = new URL(sent[0]!.url);
      expect(sent[0]!.method).toBe(expected.method);
      expect(url.pathname).toBe(expected.url.pathname);
      expect(Object.fromEntries(url.searchParams)).toEqual(expected.url.query);
      if (expected.mediaType === "multipart/form-data") {
        const form = await sent[0]!.formData();
        expect(Object.fromEntries([...form].filter(([, v]) => typeof v === "string"))).toEqual(
          formTextFields(expected.body),
        );
        for (const field of formFileFields(expected.body)) expect(form.get(field), field).toBeInstanceOf(Blob);
      } else if (expected.body === undefined) expect(await sent[0]!.text()).toBe("");
      else expect(JSON.parse(await sent[0]!.text())).toEqual(expected.body);
    });
  }
});

describe("what a method returns and throws", () => {
  it("a list method follows the cursors to the last page, one request per page", async () => {
    const { mock, store } = mockedClient();
    const users = Array.from({ length: 5 }, (_, i) => ({ id: i + 1, email: `u${i + 1}@example.org` }));
    mock.on("GET /users/", servePages(users, { pageSize: 2 }));
    const seen = await all(store.users.list({ is_blocked: false }));
    expect(seen.map((user) => user.id)).toEqual([1, 2, 3, 4, 5]);
    expect(mock.requests).toHaveLength(3);
    expect(mock.requestsTo("GET /users/").map((r) => r.params.query.is_blocked)).toEqual([false, false, false]);
  });

  it("leaving a list loop early stops fetching", async () => {
    const { mock, store } = mockedClient();
    mock.on(
      "GET /users/{id}/notes/",
      servePages(
        Array.from({ length: 6 }, (_, i) => ({ id: i + 1, message: `n${i}` })),
        { pageSize: 2 },
      ),
    );
    for await (const note of store.users.notes.list(42)) if (note.id === 1) break;
    expect(mock.requests).toHaveLength(1);
  });

  it("an error status throws the typed error naming the operation and its scope", async () => {
    const { mock, store } = mockedClient();
    mock.on("GET /users/{id}/", () => ({ status: 404, body: { detail: "Not found." } }));
    mock.on("POST /disputes/{id}/resolve/", () => ({ status: 403, body: { detail: "no" } }));
    const missing = await store.users.retrieve(404).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).message).toContain("GET /users/{id}/");
    const denied = await store.disputes.resolve(1).catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(PermissionDeniedError);
    expect((denied as PermissionDeniedError).message).toContain("disputes:write");
    // The optional body of resolve is left out, not sent as `undefined`.
    expect(mock.requests[1]!.body).toBeUndefined();
  });

  it("per-call options reach the call: headers are sent, maxRetries bounds the attempts, signal aborts", async () => {
    const { mock, store } = mockedClient();
    mock.on("GET /gateways/{id}/", () => ({ status: 503, body: { detail: "down" } }));
    await expect(store.gateways.retrieve(3, { maxRetries: 0, headers: { "X-Trace": "t-1" } })).rejects.toMatchObject({
      status: 503,
    });
    expect(mock.requests).toHaveLength(1);
    expect(mock.requests[0]!.headers["x-trace"]).toBe("t-1");
    const aborted = new AbortController();
    aborted.abort(new Error("stop"));
    await expect(store.users.retrieve(42, { signal: aborted.signal })).rejects.toThrow();
    expect(mock.requests).toHaveLength(1);
  });

  it("options left undefined are as if not given", async () => {
    const { mock, store } = mockedClient();
    await store.users.retrieve(42, {
      signal: undefined,
      timeoutMs: undefined,
      maxRetries: undefined,
      headers: undefined,
    });
    expect(mock.requests).toHaveLength(1);
  });
});

describe("bad arguments are refused, naming what is wrong, with nothing sent", () => {
  const refusals: Array<[string, (store: StoreAdminClient) => unknown, RegExp]> = [
    [
      "an unknown option",
      (s) => (s.users.retrieve as Function)(42, { params: { path: { id: 1 } } }),
      /users\.retrieve\(\): unknown option "params"/,
    ],
    ["a misspelt option", (s) => (s.users.retrieve as Function)(42, { singal: null }), /unknown option "singal"/],
    ["options that are not an object", (s) => (s.users.retrieve as Function)(42, "fast"), /options must be an object/],
    [
      "too many arguments",
      (s) => (s.users.retrieve as Function)(42, {}, {}),
      /takes at most 2 arguments \(id, options\), got 3/,
    ],
    ["a missing path parameter", (s) => (s.users.retrieve as Function)(), /path parameter "id" is missing/],
    [
      "a path parameter that would change the path",
      (s) => s.orders.fulfillmentOrders.list(".."),
      /path parameter "number" must not be "\.\."/,
    ],
  ];
  for (const [what, call, message] of refusals) {
    it(what, async () => {
      const { mock, store } = mockedClient();
      await expect(Promise.resolve().then(() => call(store))).rejects.toThrow(message);
      expect(mock.requests).toHaveLength(0);
    });
  }

  it("a list method refuses an unknown option when called, before any request", () => {
    const { mock, store } = mockedClient();
    expect(() => (store.users.list as Function)({}, { cursor: "x" })).toThrow(
      /users\.list\(\): unknown option "cursor"/,
    );
    expect(mock.requests).toHaveLength(0);
  });
});

describe("the resources follow the client they are read on", () => {
  it("a client derived with another transport sends through that transport", async () => {
    const { mock, store } = mockedClient();
    const seen: string[] = [];
    const derived = Object.create(store, {
      GET: {
        value: (path: string, init: unknown) => (seen.push(path), store.GET(path as "/users/{id}/", init as never)),
      },
    }) as StoreAdminClient;
    await derived.users.retrieve(42);
    expect(seen).toEqual(["/users/{id}/"]);
    expect(mock.requests).toHaveLength(1);
    // The original's resources are its own.
    await store.users.retrieve(42);
    expect(seen).toHaveLength(1);
  });

  it("a client derived after the original's resources were used still sends through its own transport", async () => {
    const { mock, store } = mockedClient();
    await store.users.addresses.update(42, 7, { country: "SE", line1: "Drottninggatan 12", line4: "Stockholm" });
    const seen: string[] = [];
    const derived = Object.create(store, {
      PUT: {
        value: (path: string, init: unknown) => (seen.push(path), store.PUT(path as "/users/{id}/", init as never)),
      },
    }) as StoreAdminClient;
    await derived.users.addresses.update(42, 7, { country: "SE", line1: "Drottninggatan 12", line4: "Stockholm" });
    expect(seen).toEqual(["/users/{id}/addresses/{addressId}/"]);
    expect(mock.requests).toHaveLength(2);
    expect(derived.users).not.toBe(store.users);
  });

  it("attachMethods gives any object holding GET/POST/… and paginate the methods", async () => {
    const { mock, store } = mockedClient();
    const copy = attachMethods({
      GET: store.GET,
      PUT: store.PUT,
      POST: store.POST,
      PATCH: store.PATCH,
      paginate: store.paginate,
    });
    expect(await copy.users.retrieve(42)).toMatchObject({ id: expect.any(Number) });
    expect(await all(copy.giftCards.list())).not.toHaveLength(0);
    expect(mock.requests.map((r) => r.operation)).toEqual(["GET /users/{id}/", "GET /gift-cards/"]);
  });

  it("a copy spread from the client carries no resources bound to the original", async () => {
    const { mock, store } = mockedClient();
    await store.users.retrieve(42); // the resource now exists on `store`
    const seen: string[] = [];
    const copy = {
      ...store,
      GET: (path: string, init: unknown) => (seen.push(path), store.GET(path as "/users/{id}/", init as never)),
    };
    expect("users" in copy).toBe(false);
    const attached = attachMethods(copy);
    await attached.users.retrieve(42);
    expect(seen).toEqual(["/users/{id}/"]);
    expect(mock.requests).toHaveLength(2);
  });

  it("a client from deriveClient (the bulk runner's) has methods that send through its transport and wait on its gate", async () => {
    const { mock, store } = mockedClient();
    const methods: string[] = [];
    let gates = 0;
    const derived = deriveClient(store, {
      fetch: (fetch) => (input, init) => (
        methods.push(input instanceof Request ? input.method : String(init?.method)), fetch(input, init)
      ),
      beforeAttempt: () => (gates++, undefined),
    });
    await derived.users.retrieve(42);
    await derived.giftCards.update(7, { expired_at: null });
    expect(await all(derived.users.list())).not.toHaveLength(0);
    expect(methods.slice(0, 2)).toEqual(["GET", "PATCH"]);
    expect(methods.length).toBe(mock.requests.length);
    expect(gates).toBe(mock.requests.length);
    // The original's methods do not go through the derived transport.
    await store.users.retrieve(42);
    expect(methods.length).toBe(mock.requests.length - 1);
  });

  it("a resource object is made once per client", () => {
    const { store } = mockedClient();
    expect(store.users).toBe(store.users);
    expect(store.users.addresses).toBe(store.users.addresses);
    expect(mockedClient().store.users).not.toBe(store.users);
  });
});
