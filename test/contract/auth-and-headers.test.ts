/**
 * Authentication and the headers every request carries (spec parts 4, 5 and 9).
 *
 * - No token → 401 from Prism (raw `fetch`, and a client whose `fetch` strips the header),
 *   surfaced by `unwrap()` as `AuthenticationError`.
 * - Every operation of the contract, called through a client pointed at the test server
 *   with values made from the contract (test/helpers/contract-calls.ts), carries exactly
 *   `X-Store-API-Version: 2024-04-01` and `Authorization: Bearer <TEST_TOKEN>`.
 * - A caller cannot override either header; an async token function runs once per request.
 * - `baseUrl` is normalised to `{baseUrl}/api/admin/...`; `apiUrl` is used as is.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { operations } from "../../generated/operation-facts.js";
import { AuthenticationError, createStoreAdminClient, unwrap, type StoreAdminClient } from "../../src/index.js";
import { createTestClient, EXPECTED_API_VERSION, expectOk } from "../helpers/client.js";
import {
  type FaultServer,
  type ReceivedRequest,
  startFaultServer,
  TEST_TOKEN,
  useFaultServer,
} from "../helpers/fault-server.js";
import { prismUrl } from "../helpers/prism.js";
import { rejection as rejectionOf } from "../helpers/outcome.js";
import { callPathStyle, contractCalls } from "../helpers/contract-calls.js";

// ─── No token → 401 ─────────────────────────────────────────────────────────────────

describe("without a token, Prism answers 401 and unwrap() throws AuthenticationError", () => {
  it("raw fetch with the version header but no Authorization → 401; with a token → 200 (control)", async () => {
    const url = `${prismUrl()}/users/42/`;
    const anonymous = await fetch(url, { headers: { "X-Store-API-Version": EXPECTED_API_VERSION } });
    expect(anonymous.status).toBe(401);
    const body: unknown = await anonymous.json();
    const thrown = await rejectionOf(unwrap({ error: body, response: anonymous }));
    expect(thrown).toBeInstanceOf(AuthenticationError);
    expect((thrown as AuthenticationError).status).toBe(401);
    expect((thrown as AuthenticationError).message).toMatch(/^401 Unauthorized\b.*Check the access token/);

    const authorized = await fetch(url, {
      headers: { "X-Store-API-Version": EXPECTED_API_VERSION, Authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(authorized.status).toBe(200);
    await authorized.body?.cancel();
  });

  it("getUser through a client whose fetch strips Authorization → error 401, AuthenticationError, sent once", async () => {
    let attempts = 0;
    const store = createTestClient({
      fetch: (input, init) => {
        attempts++;
        const stripped = new Request(input, init);
        stripped.headers.delete("authorization");
        return fetch(stripped);
      },
    });
    const call = () => store.GET("/users/{id}/", { params: { path: { id: 42 } } });

    const { data, error, response } = await call();
    expect(data).toBeUndefined();
    expect(error).toBeDefined();
    expect(response.status).toBe(401);

    const thrown = await rejectionOf(unwrap(call()));
    expect(thrown).toBeInstanceOf(AuthenticationError);
    const authError = thrown as AuthenticationError;
    expect(authError.status).toBe(401);
    expect(authError.operation).toEqual({ method: "GET", path: "/users/{id}/" });
    expect(authError.scope).toBe("users:read");
    expect(authError.message).toMatch(/^\[GET \/users\/\{id\}\/\] 401 Unauthorized\b/);
    expect(authError.message).not.toContain(TEST_TOKEN);
    expect(attempts, "a 401 is not retried").toBe(2);
  });
});

// ─── The two headers on every operation ─────────────────────────────────────────────

function expectContentType(request: ReceivedRequest, mediaType: string | undefined): void {
  const contentType = request.headers["content-type"];
  if (mediaType === undefined) {
    expect(contentType).toBeUndefined();
    expect(request.body.length).toBe(0);
  } else if (mediaType === "application/json") {
    expect(contentType).toBe("application/json");
    expect(() => JSON.parse(request.body)).not.toThrow();
  } else if (mediaType === "multipart/form-data") {
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
  } else {
    expect(contentType).toContain(mediaType);
  }
}

describe("X-Store-API-Version and Authorization on every request of every operation", () => {
  const server = useFaultServer();

  it("the calls below are the operations generated/ has, once each", () => {
    expect(contractCalls.map((call) => call.key).sort()).toEqual(Object.keys(operations).sort());
  });

  for (const call of contractCalls) {
    it(`${call.operationId}: ${call.key} carries the version header and the bearer token, exactly`, async () => {
      await callPathStyle(server().client(), call);
      expect(server().requests).toHaveLength(1);
      const [request] = server().requests;
      expect(request?.method).toBe(call.method);
      const url = new URL(request!.url, "http://127.0.0.1");
      expect(url.pathname).toBe(call.url.pathname);
      expect(Object.fromEntries(url.searchParams)).toEqual(call.url.query);
      expect(request?.headers["x-store-api-version"]).toBe(EXPECTED_API_VERSION);
      expect(request?.headers.authorization).toBe(`Bearer ${TEST_TOKEN}`);
      expectContentType(request!, call.mediaType);
    });
  }
});

// ─── Callers cannot override the two headers ────────────────────────────────────────

describe("a caller's headers cannot set the version or the token", () => {
  const server = useFaultServer();

  it('getUser: per-request headers { "X-Store-API-Version": "1999-01-01" } are refused, and nothing is sent', async () => {
    await expect(
      server()
        .client()
        .GET("/users/{id}/", {
          params: { path: { id: 42 } },
          headers: { "X-Store-API-Version": "1999-01-01" },
        }),
    ).rejects.toThrow(
      new TypeError(
        `[GET /users/{id}/] the per-call headers may not set X-Store-API-Version: the client sends the version it was built for (${EXPECTED_API_VERSION}).`,
      ),
    );
    expect(server().requests).toHaveLength(0);
  });

  it("updateUser: client-wide headers, other spellings and params.header (cast) setting either header are refused", async () => {
    expect(() => server().client({ headers: { "x-store-api-version": "1999-01-01", "X-Trace": "kept" } })).toThrow(
      TypeError,
    );
    expect(() => server().client({ headers: { Authorization: "Bearer client-wide" } })).toThrow(
      /headers may not set Authorization/,
    );
    const store = server().client({ headers: { "X-Trace": "kept" } });
    const update = (init: object) =>
      store.PATCH("/users/{id}/", { params: { path: { id: 42 } }, body: { is_blocked: true }, ...init });
    await expect(update({ headers: { authorization: "Bearer per-request" } })).rejects.toThrow(TypeError);
    await expect(update({ headers: { "X-STORE-API-VERSION": "1999-01-01" } })).rejects.toThrow(TypeError);
    await expect(
      update({ params: { path: { id: 42 }, header: { "X-Store-API-Version": "1999-01-01" } as never } }),
    ).rejects.toThrow(TypeError);
    expect(server().requests).toHaveLength(0);
    await update({});
    const headers = server().requests[0]?.headers;
    expect(headers?.["x-store-api-version"]).toBe(EXPECTED_API_VERSION);
    expect(headers?.authorization).toBe(`Bearer ${TEST_TOKEN}`);
    // Other caller headers still go out.
    expect(headers?.["x-trace"]).toBe("kept");
  });
});

// ─── Token functions ────────────────────────────────────────────────────────────────

describe("an async accessToken function is called once per request, so tokens can rotate", () => {
  let server: FaultServer;
  let calls: number;
  let store: StoreAdminClient;
  beforeEach(async () => {
    server = await startFaultServer();
    calls = 0;
    store = server.client({
      accessToken: async () => {
        const n = ++calls;
        // Asynchronous like a real token store: concurrent requests overlap here.
        await new Promise((resolve) => setTimeout(resolve, 1));
        return `rotating-${n}`;
      },
    });
  });
  afterEach(async () => {
    await server.close();
  });

  it("getUser, updateUser, renewSubscription: three requests, three calls, three tokens in order", async () => {
    await store.GET("/users/{id}/", { params: { path: { id: 42 } } });
    await store.PATCH("/users/{id}/", { params: { path: { id: 42 } }, body: { is_blocked: false } });
    await store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 410 } } });
    expect(calls).toBe(3);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      "Bearer rotating-1",
      "Bearer rotating-2",
      "Bearer rotating-3",
    ]);
  });

  it("getGateway: five concurrent requests, five calls, five distinct tokens", async () => {
    await Promise.all(Array.from({ length: 5 }, () => store.GET("/gateways/{id}/", { params: { path: { id: 12 } } })));
    expect(calls).toBe(5);
    const tokens = server.requests.map((r) => r.headers.authorization);
    expect(new Set(tokens).size).toBe(5);
    expect(tokens.every((t) => /^Bearer rotating-[1-5]$/.test(t ?? ""))).toBe(true);
  });

  it("getDispute: a retried attempt (503, Retry-After: 0) reuses its call's token: one call, two attempts", async () => {
    server.enqueue({ status: 503, headers: { "retry-after": "0" }, body: { detail: "busy" } }, { body: { id: 615 } });
    const dispute = expectOk(await store.GET("/disputes/{id}/", { params: { path: { id: 615 } } }));
    expect(dispute.id).toBe(615);
    expect(calls).toBe(1);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer rotating-1", "Bearer rotating-1"]);
  });
});

// ─── baseUrl and apiUrl ─────────────────────────────────────────────────────────────

describe("baseUrl is normalised to {baseUrl}/api/admin; apiUrl is used as is", () => {
  const server = useFaultServer();

  const getUser = (store: StoreAdminClient) => store.GET("/users/{id}/", { params: { path: { id: 42 } } });

  it("getUser: baseUrl with and without trailing slashes, at the root and under a prefix", async () => {
    const cases = [
      [server().url, "/api/admin/users/42/"],
      [`${server().url}/`, "/api/admin/users/42/"],
      [`${server().url}//`, "/api/admin/users/42/"],
      [`${server().url}/shop`, "/shop/api/admin/users/42/"],
      [`${server().url}/shop/`, "/shop/api/admin/users/42/"],
    ] as const;
    for (const [baseUrl] of cases) {
      await getUser(createStoreAdminClient({ baseUrl, accessToken: TEST_TOKEN }));
    }
    expect(server().requests.map((r) => r.url)).toEqual(cases.map(([, path]) => path));
    for (const request of server().requests) {
      expect(request.headers["x-store-api-version"]).toBe(EXPECTED_API_VERSION);
      expect(request.headers.authorization).toBe(`Bearer ${TEST_TOKEN}`);
    }
  });

  it('getUser: baseUrl "https://shop.test/" addresses https://shop.test/api/admin/users/42/ (custom fetch, no network)', async () => {
    const urls: string[] = [];
    const store = createStoreAdminClient({
      baseUrl: "https://shop.test/",
      accessToken: TEST_TOKEN,
      fetch: async (input) => {
        urls.push(String(input));
        return new Response(JSON.stringify({ id: 42 }), { headers: { "content-type": "application/json" } });
      },
    });
    expect(expectOk(await getUser(store)).id).toBe(42);
    expect(urls).toEqual(["https://shop.test/api/admin/users/42/"]);
  });

  it("getUser: apiUrl is the API root itself, with or without a trailing slash (no /api/admin added)", async () => {
    await getUser(createStoreAdminClient({ apiUrl: server().url, accessToken: TEST_TOKEN }));
    await getUser(createStoreAdminClient({ apiUrl: `${server().url}/`, accessToken: TEST_TOKEN }));
    await getUser(createStoreAdminClient({ apiUrl: `${server().url}/proxy/admin/`, accessToken: TEST_TOKEN }));
    expect(server().requests.map((r) => r.url)).toEqual(["/users/42/", "/users/42/", "/proxy/admin/users/42/"]);
  });
});

// ─── Known bug, reported (not fixed here: src/ belongs to another engineer) ─────────

describe("per-call options cannot move a request to another origin or transport", () => {
  let home: FaultServer;
  let elsewhere: FaultServer;
  beforeEach(async () => {
    home = await startFaultServer();
    elsewhere = await startFaultServer();
  });
  afterEach(async () => {
    await Promise.all([home.close(), elsewhere.close()]);
  });

  // DESIGN.md: "The token never goes to any origin but the configured one." openapi-fetch 0.17
  // accepts `baseUrl` and `fetch` per request; the client refuses both before sending.
  it("getUser: a per-call baseUrl is refused and nothing reaches either server", async () => {
    const store = createStoreAdminClient({ baseUrl: home.url, accessToken: "sk_live_secret" });
    const call = store.GET("/users/{id}/", { baseUrl: elsewhere.url, params: { path: { id: 42 } } } as never);
    await expect(call).rejects.toThrow(TypeError);
    await expect(call).rejects.toThrow(
      "[GET /users/{id}/] unknown per-call option `baseUrl` (set it when creating the client); a call takes",
    );
    expect(elsewhere.requests).toEqual([]);
    expect(home.requests).toEqual([]);
  });

  it("getUser: a per-call fetch is refused, so retries, timeouts and the redirect guard always apply", async () => {
    const store = createStoreAdminClient({ baseUrl: home.url, accessToken: "sk_live_secret" });
    let called = 0;
    const sneaky = async () => {
      called++;
      return new Response("{}");
    };
    await expect(store.GET("/users/{id}/", { fetch: sneaky, params: { path: { id: 42 } } } as never)).rejects.toThrow(
      /unknown per-call option `fetch` \(set it when creating the client\)/,
    );
    expect(called).toBe(0);
    expect(home.requests).toEqual([]);
  });
});
