/**
 * Invalid input that the types cannot (or, with a cast, do not) catch.
 *
 * 1. Values the contract rejects: sent, and answered by Prism with 422 and its `validation`
 *    list. The call returns `error` (status 422) naming the field, and `unwrap()` of the same
 *    call throws `UnprocessableEntityError` whose `validation` and message name it.
 *    Operations: updateUser, replaceUser, updateOrderLine, listUsers, createProductImage,
 *    createProduct, updateUserAddress.
 * 2. Path parameters that would change the endpoint (`..`, `.`, empty, missing): a TypeError
 *    naming the parameter, and nothing sent (the test server counts zero requests).
 *    Operations: updateOrderLine, listOrderFulfillmentOrders, getUser, updateUserAddress.
 * 3. Client options: a clear error naming the option, and nothing sent.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createStoreAdminClient,
  StoreAdminError,
  UnprocessableEntityError,
  unwrap,
  type StoreAdminClient,
} from "../../src/index.js";
import { createTestClient, type PrismValidationEntry, validationOf } from "../helpers/client.js";
import { type FaultServer, startFaultServer, TEST_TOKEN, useFaultServer } from "../helpers/fault-server.js";
import { rejection as rejectionOf } from "../helpers/outcome.js";

/** Whether a validation entry is about `field` of `where` (Prism puts a missing required field in the message). */
function namesField(entry: PrismValidationEntry, where: "body" | "query", field: string): boolean {
  if (entry.location[0] !== where) return false;
  return entry.location.slice(1).includes(field) || entry.message.includes(`'${field}'`);
}

// ─── 1. Values the contract rejects ─────────────────────────────────────────────────

/** What every client call resolves to (openapi-fetch's `{ data, error, response }`). */
type CallResult = { data?: unknown; error?: unknown; response: Response };

interface InvalidCase {
  /** What is wrong, for the test name. */
  what: string;
  operationId: string;
  method: string;
  path: string;
  where: "body" | "query";
  field: string;
  call: (store: StoreAdminClient) => Promise<CallResult>;
}

const TOO_LONG_NAME = "A".repeat(256);

const INVALID_CASES: readonly InvalidCase[] = [
  {
    what: "first_name of 256 characters (limit 255)",
    operationId: "updateUser",
    method: "PATCH",
    path: "/users/{id}/",
    where: "body",
    field: "first_name",
    // The types cannot express a length limit: no cast needed.
    call: (store) => store.PATCH("/users/{id}/", { params: { path: { id: 42 } }, body: { first_name: TOO_LONG_NAME } }),
  },
  {
    what: "first_name of 256 characters (limit 255)",
    operationId: "replaceUser",
    method: "PUT",
    path: "/users/{id}/",
    where: "body",
    field: "first_name",
    call: (store) =>
      store.PUT("/users/{id}/", {
        params: { path: { id: 42 } },
        body: { first_name: TOO_LONG_NAME, last_name: "Lindgren" },
      }),
  },
  {
    what: "a negative order line quantity (minimum 0)",
    operationId: "updateOrderLine",
    method: "PATCH",
    path: "/orders/{number}/lines/{lineId}/",
    where: "body",
    field: "quantity",
    call: (store) =>
      store.PATCH("/orders/{number}/lines/{lineId}/", {
        params: { path: { number: "100234", lineId: 3301 } },
        body: { quantity: -1, reason: "typo" },
      }),
  },
  {
    what: 'an unknown language code "xx" in the body',
    operationId: "updateUser",
    method: "PATCH",
    path: "/users/{id}/",
    where: "body",
    field: "language",
    call: (store) => store.PATCH("/users/{id}/", { params: { path: { id: 42 } }, body: { language: "xx" as never } }),
  },
  {
    what: 'an unknown language code "xx" as a list filter',
    operationId: "listUsers",
    method: "GET",
    path: "/users/",
    where: "query",
    field: "language",
    call: (store) => store.GET("/users/", { params: { query: { language: "xx" as never } } }),
  },
  {
    what: "display_order 2147483648 (maximum 2147483647)",
    operationId: "createProductImage",
    method: "POST",
    path: "/products/{id}/images/",
    where: "body",
    field: "display_order",
    call: (store) =>
      store.POST("/products/{id}/images/", {
        params: { path: { id: 1201 } },
        body: { src: "https://images.example.org/coffee-1kg.jpg", display_order: 2147483648 },
      }),
  },
  {
    what: "no title (required)",
    operationId: "createProduct",
    method: "POST",
    path: "/products/",
    where: "body",
    field: "title",
    call: (store) => store.POST("/products/", { body: { description: "A product without a title" } as never }),
  },
  {
    what: "no country (required)",
    operationId: "updateUserAddress",
    method: "PUT",
    path: "/users/{id}/addresses/{addressId}/",
    where: "body",
    field: "country",
    call: (store) =>
      store.PUT("/users/{id}/addresses/{addressId}/", {
        params: { path: { id: 42, addressId: 7 } },
        body: { line1: "Drottninggatan 12", line4: "Stockholm" } as unknown as {
          country: string;
          line1: string;
          line4: string;
        },
      }),
  },
];

describe("values the contract rejects come back as 422 naming the field", () => {
  let store: StoreAdminClient;
  beforeEach(() => {
    store = createTestClient();
  });

  for (const c of INVALID_CASES) {
    it(`${c.operationId}: ${c.what} → error, status 422, validation names ${c.where}.${c.field}`, async () => {
      const { data, error, response } = await c.call(store);
      expect(data).toBeUndefined();
      expect(response.status).toBe(422);
      const entries = validationOf(error);
      expect(entries.length, JSON.stringify(error)).toBeGreaterThan(0);
      expect(
        entries.some((entry) => namesField(entry, c.where, c.field)),
        JSON.stringify(entries),
      ).toBe(true);
    });

    it(`${c.operationId}: ${c.what} → unwrap() throws UnprocessableEntityError naming ${c.field}`, async () => {
      const thrown = await rejectionOf(unwrap(c.call(store)));
      expect(thrown).toBeInstanceOf(UnprocessableEntityError);
      const error = thrown as UnprocessableEntityError;
      expect(error.status).toBe(422);
      expect(error.operation).toEqual({ method: c.method, path: c.path });
      expect(
        error.validation.some((issue) => namesField(issue, c.where, c.field)),
        JSON.stringify(error.validation),
      ).toBe(true);
      expect(error.message).toContain(c.field);
      expect(error.message.startsWith(`[${c.method} ${c.path}] 422 `), error.message).toBe(true);
    });
  }
});

// ─── 2. Path parameters that would change the endpoint ──────────────────────────────

describe("path parameters that would change the endpoint are refused before sending", () => {
  let server: FaultServer;
  let tokenCalls: number;
  let store: StoreAdminClient;
  beforeEach(async () => {
    server = await startFaultServer();
    tokenCalls = 0;
    store = server.client({
      accessToken: () => {
        tokenCalls++;
        return TEST_TOKEN;
      },
    });
  });
  afterEach(async () => {
    await server.close();
  });

  async function expectRefused(call: Promise<unknown>, parameter: string): Promise<void> {
    const error = await rejectionOf(call);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain(`path parameter "${parameter}"`);
    expect((error as Error).message).toContain("not sent");
    expect(server.requests).toHaveLength(0);
    expect(tokenCalls, "the token was resolved for a request that is never sent").toBe(0);
  }

  const BAD_NUMBERS = [
    { label: '".."', value: ".." },
    { label: '"."', value: "." },
    { label: '"" (empty)', value: "" },
  ] as const;

  for (const { label, value } of BAD_NUMBERS) {
    it(`listOrderFulfillmentOrders: number ${label} throws a TypeError naming "number"; nothing sent`, async () => {
      await expectRefused(
        store.GET("/orders/{number}/fulfillment-orders/", { params: { path: { number: value } } }),
        "number",
      );
    });

    it(`updateOrderLine: number ${label} throws a TypeError naming "number"; nothing sent`, async () => {
      await expectRefused(
        store.PATCH("/orders/{number}/lines/{lineId}/", {
          params: { path: { number: value, lineId: 3301 } },
          body: { quantity: 1 },
        }),
        "number",
      );
    });
  }

  it("listOrderFulfillmentOrders: number missing from params.path throws naming it; nothing sent", async () => {
    await expectRefused(store.GET("/orders/{number}/fulfillment-orders/", { params: { path: {} as never } }), "number");
  });

  it("listOrderFulfillmentOrders: no params at all throws naming number; nothing sent", async () => {
    await expectRefused(store.GET("/orders/{number}/fulfillment-orders/", {} as never), "number");
  });

  it('updateOrderLine: lineId ".." (an integer parameter, cast) throws naming lineId; nothing sent', async () => {
    await expectRefused(
      store.PATCH("/orders/{number}/lines/{lineId}/", {
        params: { path: { number: "100234", lineId: ".." as never } },
        body: { quantity: 1 },
      }),
      "lineId",
    );
  });

  it('getUser: id ".." (cast) throws naming id; nothing sent', async () => {
    await expectRefused(store.GET("/users/{id}/", { params: { path: { id: ".." as never } } }), "id");
  });

  it("updateUserAddress: addressId missing throws naming addressId; nothing sent", async () => {
    await expectRefused(
      store.PUT("/users/{id}/addresses/{addressId}/", {
        params: { path: { id: 42 } as never },
        body: { country: "SE", line1: "Drottninggatan 12", line4: "Stockholm" },
      }),
      "addressId",
    );
  });

  it("listOrderFulfillmentOrders: dotted order numbers that are not . or .. are sent as one segment (control)", async () => {
    server.enqueue({ body: [] }, { body: [] });
    await store.GET("/orders/{number}/fulfillment-orders/", { params: { path: { number: "..." } } });
    await store.GET("/orders/{number}/fulfillment-orders/", { params: { path: { number: "2024.100234" } } });
    expect(server.requests.map((r) => r.path)).toEqual([
      "/orders/.../fulfillment-orders/",
      "/orders/2024.100234/fulfillment-orders/",
    ]);
  });
});

// ─── 3. Client options ──────────────────────────────────────────────────────────────

describe("client option errors name the option; nothing is sent", () => {
  const server = useFaultServer();

  function creationError(options: unknown): Error {
    let caught: unknown;
    try {
      createStoreAdminClient(options as never);
    } catch (error) {
      caught = error;
    }
    expect(caught, "createStoreAdminClient() accepted the options").toBeInstanceOf(TypeError);
    return caught as Error;
  }

  it("both baseUrl and apiUrl: TypeError naming both", () => {
    const error = creationError({ baseUrl: server().url, apiUrl: server().url, accessToken: TEST_TOKEN });
    expect(error.message).toMatch(/baseUrl/);
    expect(error.message).toMatch(/apiUrl/);
    expect(error.message).toMatch(/not both/);
    expect(server().requests).toHaveLength(0);
  });

  it("neither baseUrl nor apiUrl: TypeError naming both", () => {
    const error = creationError({ accessToken: TEST_TOKEN });
    expect(error.message).toMatch(/baseUrl/);
    expect(error.message).toMatch(/apiUrl/);
    expect(server().requests).toHaveLength(0);
  });

  it("an ftp:// apiUrl: TypeError naming apiUrl and the scheme", () => {
    const error = creationError({ apiUrl: server().url.replace("http:", "ftp:"), accessToken: TEST_TOKEN });
    expect(error.message).toMatch(/^apiUrl /);
    expect(error.message).toContain('"ftp:"');
    expect(server().requests).toHaveLength(0);
  });

  it("an ftp:// baseUrl: TypeError naming baseUrl", () => {
    const error = creationError({ baseUrl: "ftp://shop.example.com", accessToken: TEST_TOKEN });
    expect(error.message).toMatch(/^baseUrl /);
    expect(error.message).toMatch(/http\(s\)/);
  });

  it("a URL with user:pass@: TypeError naming the option, without echoing the password", () => {
    const error = creationError({
      apiUrl: server().url.replace("http://", "http://admin:s3cr3t-pw@"),
      accessToken: TEST_TOKEN,
    });
    expect(error.message).toMatch(/^apiUrl must not contain credentials/);
    expect(error.message).not.toContain("s3cr3t-pw");
    const viaBase = creationError({ baseUrl: "https://admin:s3cr3t-pw@shop.example.com", accessToken: TEST_TOKEN });
    expect(viaBase.message).toMatch(/^baseUrl must not contain credentials/);
    expect(viaBase.message).not.toContain("s3cr3t-pw");
    expect(server().requests).toHaveLength(0);
  });

  it("an empty accessToken: TypeError naming accessToken", () => {
    const error = creationError({ apiUrl: server().url, accessToken: "" });
    expect(error.message).toMatch(/^accessToken is an empty string/);
    expect(server().requests).toHaveLength(0);
  });

  it("an accessToken function that throws: the call rejects naming accessToken, with the cause; nothing sent", async () => {
    const store = server().client({
      accessToken: () => {
        throw new Error("token vault unreachable");
      },
    });
    const error = await rejectionOf(store.GET("/users/{id}/", { params: { path: { id: 42 } } }));
    expect(error).toBeInstanceOf(StoreAdminError);
    expect((error as Error).message).toContain("accessToken");
    expect((error as Error).message).toContain("not sent");
    expect(((error as Error).cause as Error | undefined)?.message).toBe("token vault unreachable");
    expect(server().requests).toHaveLength(0);
  });

  it("an async accessToken function that rejects: same, and nothing sent", async () => {
    const store = server().client({ accessToken: async () => Promise.reject(new Error("refresh failed")) });
    const error = await rejectionOf(store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 410 } } }));
    expect(error).toBeInstanceOf(StoreAdminError);
    expect((error as Error).message).toContain("accessToken");
    expect(server().requests).toHaveLength(0);
  });

  it('an accessToken function returning "": the call rejects with a TypeError naming accessToken(); nothing sent', async () => {
    const store = server().client({ accessToken: async () => "" });
    const error = await rejectionOf(store.GET("/users/{id}/", { params: { path: { id: 42 } } }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain("accessToken()");
    expect((error as Error).message).toContain("empty");
    expect(server().requests).toHaveLength(0);
  });

  it.each([
    ["plugin", "plugins"],
    ["timeout", "timeoutMs"],
    ["retryDelayMs", "maxRetries"],
  ])('a misspelt option ("%s" for %s): TypeError naming it and listing the options', (misspelt) => {
    const error = creationError({ apiUrl: server().url, accessToken: TEST_TOKEN, [misspelt]: 1 });
    expect(error.message).toBe(
      `createStoreAdminClient() has no option "${misspelt}"; it takes baseUrl, apiUrl, accessToken, headers, fetch, timeoutMs, maxRetries, maxResponseBytes, logger, plugins.`,
    );
    expect(server().requests).toHaveLength(0);
  });
});
