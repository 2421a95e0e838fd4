/**
 * openapi-fetch's middleware on our client, and what the client's `fetch` receives with and
 * without it: `fetch(url, init)` while no middleware is registered (openapi-fetch's Request
 * is a PlannedRequest), real `Request`s for middleware and `fetch` while any is.
 */
import { describe, expect, it } from "vitest";
import { createStoreAdminClient, type Middleware } from "../../src/index.js";

interface Call {
  input: unknown;
  init: RequestInit | undefined;
  request: Request;
}

/** A client whose fetch records how it was called and answers the next status (200 by default). */
function recordingClient(statuses: number[] = []) {
  const calls: Call[] = [];
  const store = createStoreAdminClient({
    apiUrl: "https://store.test/api/admin",
    accessToken: "tok_middleware",
    fetch: async (input, init) => {
      calls.push({ input, init, request: new Request(input, init) });
      const status = statuses.shift() ?? 200;
      return Response.json({ id: 42 }, { status, headers: status === 429 ? { "retry-after": "0" } : {} });
    },
  });
  return { store, calls };
}

const getUser = (store: ReturnType<typeof recordingClient>["store"]) =>
  store.GET("/users/{id}/", { params: { path: { id: 42 } } });

describe("the client's fetch", () => {
  it("without middleware, is called with the URL and an init carrying headers, signal and redirect: manual", async () => {
    const { store, calls } = recordingClient();
    await getUser(store);
    expect(calls).toHaveLength(1);
    const [{ input, init }] = calls as [Call];
    expect(input).toBe("https://store.test/api/admin/users/42/");
    expect(init?.method).toBe("GET");
    expect(init?.redirect).toBe("manual");
    expect(init?.signal).toBeInstanceOf(AbortSignal);
    const headers = new Headers(init?.headers);
    expect(headers.get("authorization")).toBe("Bearer tok_middleware");
    expect(headers.get("x-store-api-version")).toBe("2024-04-01");
  });

  it("with middleware, middleware sees a real Request with the client's headers, and so does fetch; after eject, (url, init) again", async () => {
    const { store, calls } = recordingClient();
    const seen: Request[] = [];
    const middleware: Middleware = {
      onRequest({ request }) {
        seen.push(request);
        request.headers.set("X-Trace", "t-1");
      },
    };
    store.use(middleware);
    await getUser(store);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(Request);
    expect(seen[0]!.headers.get("authorization")).toBe("Bearer tok_middleware");
    expect(seen[0]!.redirect).toBe("manual");
    expect(calls[0]!.input).toBeInstanceOf(Request);
    expect(calls[0]!.init).toBeUndefined();
    expect(calls[0]!.request.headers.get("x-trace")).toBe("t-1");

    store.eject(middleware);
    await getUser(store);
    expect(seen).toHaveLength(1);
    expect(typeof calls[1]!.input).toBe("string");
  });

  it("a per-call middleware gets a real Request too", async () => {
    const { store, calls } = recordingClient();
    let seen: unknown;
    await store.GET("/users/{id}/", {
      params: { path: { id: 42 } },
      middleware: [{ onRequest: ({ request }) => void (seen = request) }],
    });
    expect(seen).toBeInstanceOf(Request);
    expect(calls[0]!.input).toBeInstanceOf(Request);
  });

  it("middleware runs again for a retried attempt, and onResponse can replace the response", async () => {
    const { store, calls } = recordingClient([429, 200]);
    let requests = 0;
    store.use({
      onRequest() {
        requests++;
      },
      onResponse({ response }) {
        return response.status === 200 ? Response.json({ id: 7 }) : undefined;
      },
    });
    const { data } = await getUser(store);
    expect(calls).toHaveLength(2);
    expect(requests).toBe(2);
    expect(data?.id).toBe(7);
  });

  it("a middleware that throws before sending fails the call with its own error, nothing sent, not retried", async () => {
    let sent = 0;
    const events: unknown[] = [];
    const failing = createStoreAdminClient({
      apiUrl: "https://store.test/api/admin",
      accessToken: "tok_middleware",
      fetch: async () => {
        sent++;
        return Response.json({});
      },
      logger: (event) => events.push(event),
    });
    const boom = new Error("refused by policy");
    failing.use({
      onRequest() {
        throw boom;
      },
    });
    await expect(getUser(failing)).rejects.toBe(boom);
    expect(sent).toBe(0);
    expect(events).toHaveLength(0);
  });

  it("client.request() goes through the same pipeline: checks, headers and retries", async () => {
    const { store, calls } = recordingClient([429, 200]);
    const { data } = await store.request("get", "/users/{id}/", { params: { path: { id: 42 } } });
    expect(data?.id).toBe(42);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.request.headers.get("authorization")).toBe("Bearer tok_middleware");
    await expect(store.request("get", "/users/{id}/", { params: { path: { id: ".." } } } as never)).rejects.toThrow(
      /path parameter "id" must not be "\.\."/,
    );
    expect(calls).toHaveLength(2);
  });
});

describe("the query string", () => {
  // The client gives openapi-fetch its default query serializer once; a call's own still applies.
  const listWith = async (init: Record<string, unknown>) => {
    const { store, calls } = recordingClient();
    await store.GET("/users/", init as never);
    return String(calls[0]!.input);
  };

  it("is openapi-fetch's default form (arrays exploded), and a call's querySerializer options or function still apply", async () => {
    const query = { email: ["a@example.org", "b@example.org"], cursor: "c 1" };
    expect(await listWith({ params: { query } })).toBe(
      "https://store.test/api/admin/users/?email=a%40example.org&email=b%40example.org&cursor=c%201",
    );
    expect(await listWith({ params: { query }, querySerializer: { array: { style: "form", explode: false } } })).toBe(
      "https://store.test/api/admin/users/?email=a%40example.org,b%40example.org&cursor=c%201",
    );
    expect(await listWith({ params: { query }, querySerializer: () => "mine=1" })).toBe(
      "https://store.test/api/admin/users/?mine=1",
    );
    expect(await listWith({ params: { query: { cursor: "x" } } })).toBe("https://store.test/api/admin/users/?cursor=x");
  });
});
