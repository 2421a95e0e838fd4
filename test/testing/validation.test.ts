/**
 * Requests that break the contract, answered as the contract's mock server (Prism) answers
 * them: 422 with a `validation` list naming each field (read by the SDK's
 * UnprocessableEntityError), 401 for a missing or malformed bearer token, 400 for a wrong
 * version header, 415 for a body of the wrong media type. Nothing reaches a handler.
 */
import { describe, expect, it } from "vitest";
import { UnprocessableEntityError, unwrap } from "../../src/index.js";
import { mockedClient } from "./kit.js";

interface Entry {
  location: string[];
  severity: string;
  code: string;
  message: string;
}

/** The `validation` list of a problem body. */
function validationOf(error: unknown): Entry[] {
  expect(error, "a problem body").toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    status: expect.any(Number),
  });
  return (error as { validation?: Entry[] }).validation ?? [];
}

describe("422: a request that breaks the contract, each problem naming its field", () => {
  it("a missing required body field: location body.line4, code required", async () => {
    const { mock, store } = mockedClient();
    let handled = 0;
    mock.on("PUT /users/{id}/addresses/{addressId}/", () => {
      handled++;
      return { status: 200, body: { id: 7 } };
    });
    const { error, response } = await store.PUT("/users/{id}/addresses/{addressId}/", {
      params: { path: { id: 42, addressId: 7 } },
      body: { country: "SE", line1: "Drottninggatan 12" } as never,
    });
    expect(response.status).toBe(422);
    expect(validationOf(error)).toEqual([
      {
        location: ["body", "line4"],
        severity: "Error",
        code: "required",
        message: "must have required property 'line4'",
      },
    ]);
    expect(handled, "an invalid request never reaches the handler").toBe(0);
    expect(mock.requests.map((r) => r.status)).toEqual([422]);
  });

  it("out of range, too long, wrong type and an unknown field in one body: every problem is listed", async () => {
    const { store } = mockedClient();
    const { error, response } = await store.PATCH("/orders/{number}/lines/{lineId}/", {
      params: { path: { number: "100234", lineId: 3301 } },
      body: { quantity: -1, reason: 7, colour: "red" } as never,
    });
    expect(response.status).toBe(422);
    const entries = validationOf(error);
    expect(entries.map((e) => [e.location.join("."), e.code])).toEqual(
      expect.arrayContaining([
        ["body.quantity", "minimum"],
        ["body.reason", "type"],
        ["body.colour", "additionalProperties"],
      ]),
    );
  });

  it("a string over its maxLength", async () => {
    const { store } = mockedClient();
    const { error } = await store.PATCH("/users/{id}/", {
      params: { path: { id: 42 } },
      body: { first_name: "A".repeat(256) },
    });
    expect(validationOf(error)).toEqual([
      expect.objectContaining({ location: ["body", "first_name"], code: "maxLength" }),
    ]);
  });

  it("path and query parameters of the wrong type or outside their enum: location path.id, query.is_blocked, query.language", async () => {
    const { store } = mockedClient();
    const byPath = await store.GET("/users/{id}/", { params: { path: { id: "ada" as never } } });
    expect(byPath.response.status).toBe(422);
    expect(validationOf(byPath.error)).toEqual([
      expect.objectContaining({ location: ["path", "id"], code: "type", message: "must be integer" }),
    ]);

    const byQuery = await store.GET("/users/", {
      params: { query: { is_blocked: "maybe" as never, language: "xx" as never } },
    });
    expect(byQuery.response.status).toBe(422);
    const entries = validationOf(byQuery.error).map((e) => [e.location.join("."), e.code]);
    expect(entries).toEqual(
      expect.arrayContaining([
        ["query.is_blocked", "type"],
        ["query.language", "enum"],
      ]),
    );
  });

  it("a query parameter the contract does not declare, or an object where it declares a scalar: 422 naming it", async () => {
    const { mock, store } = mockedClient();
    const unknown = await store.GET("/users/", { params: { query: { bogus: "x", _method: "DELETE" } as never } });
    expect(unknown.response.status).toBe(422);
    expect(validationOf(unknown.error).map((e) => [e.location.join("."), e.code])).toEqual([
      ["query.bogus", "additionalProperties"],
      ["query._method", "additionalProperties"],
    ]);
    expect(validationOf(unknown.error)[0]!.message).toContain("it takes email, name");
    // openapi-fetch sends an object as `email[a]=x`: not the scalar the contract declares.
    const nested = await store.GET("/users/", { params: { query: { email: { a: "x" } } as never } });
    expect(nested.response.status).toBe(422);
    expect(validationOf(nested.error).map((e) => e.location.join("."))).toEqual(["query.email[a]"]);
    const none = await mock.fetch(`${mock.url}/users/42/?a[b]=1`, {
      headers: { authorization: "Bearer t", "x-store-api-version": "2024-04-01" },
    });
    expect(none.status).toBe(422);
    expect(JSON.stringify(await none.json())).toContain("is not a query parameter of GET /users/{id}/ (it takes none)");
  });

  it("unwrap() throws UnprocessableEntityError whose validation and message name the field", async () => {
    const { store } = mockedClient();
    const thrown = await unwrap(
      store.POST("/disputes/{id}/notes/", { params: { path: { id: 55 } }, body: {} as never }),
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(UnprocessableEntityError);
    const error = thrown as UnprocessableEntityError;
    expect(error.operation).toEqual({ method: "POST", path: "/disputes/{id}/notes/" });
    expect(error.validation).toEqual([expect.objectContaining({ location: ["body", "message"], code: "required" })]);
    expect(error.message).toContain("message");
  });

  it("an unknown operation: 422 naming it, and the methods the path does have", async () => {
    // The SDK's client refuses a template outside the contract before sending, so this is what
    // other code (a hand-written fetch, another client) gets from the kit.
    const { mock, store } = mockedClient();
    await expect(store.GET("/customers/" as never)).rejects.toThrow(/not an operation of the API contract/);
    expect(mock.requests, "the client sent nothing").toEqual([]);
    const headers = { authorization: "Bearer test-token", "x-store-api-version": "2024-04-01" };
    const unknownPath = await mock.fetch(`${mock.url}/customers/`, { headers });
    expect(unknownPath.status).toBe(422);
    expect(validationOf(await unknownPath.json())).toEqual([
      expect.objectContaining({ location: ["path"], message: "GET /customers/ is not an operation of the contract" }),
    ]);
    const wrongMethod = await mock.fetch(`${mock.url}/users/42/`, { method: "DELETE", headers });
    expect(wrongMethod.status).toBe(422);
    expect(validationOf(await wrongMethod.json())[0]?.message).toBe(
      "DELETE /users/42/ is not an operation of the contract; the contract has GET, PUT, PATCH /users/42/",
    );
    expect(mock.requests.map((r) => [r.method, r.path, r.operation])).toEqual([
      ["GET", "/customers/", undefined],
      ["DELETE", "/users/42/", undefined],
    ]);
  });

  it("a body that is not JSON, or no body where one is required", async () => {
    const { mock } = mockedClient();
    const headers = {
      authorization: "Bearer test-token",
      "x-store-api-version": "2024-04-01",
      "content-type": "application/json",
    };
    const broken = await mock.fetch(`${mock.url}/users/42/`, { method: "PATCH", headers, body: "{ is_blocked: true" });
    expect(broken.status).toBe(422);
    expect(validationOf(await broken.json())).toEqual([expect.objectContaining({ location: ["body"], code: "parse" })]);
    const empty = await mock.fetch(`${mock.url}/users/42/`, { method: "PATCH", headers });
    expect(validationOf(await empty.json())).toEqual([
      expect.objectContaining({ location: ["body"], code: "required" }),
    ]);
  });
});

describe("401, 400 and 415", () => {
  const VERSION = { "x-store-api-version": "2024-04-01" };

  it("401 with WWW-Authenticate: Bearer when the token is missing or malformed", async () => {
    const { mock } = mockedClient();
    for (const authorization of [undefined, "Basic dXNlcjpwYXNz", "Bearer", "Bearer  "]) {
      const response = await mock.fetch(`${mock.url}/users/42/`, {
        headers: authorization === undefined ? VERSION : { ...VERSION, authorization },
      });
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(await response.json()).toMatchObject({ status: 401, title: "Unauthorized" });
    }
    const ok = await mock.fetch(`${mock.url}/users/42/`, { headers: { ...VERSION, authorization: "Bearer anything" } });
    expect(ok.status).toBe(200);
  });

  it("400 naming header.x-store-api-version when the version header is wrong or missing", async () => {
    const { mock } = mockedClient();
    const auth = { authorization: "Bearer test-token" };
    const wrong = await mock.fetch(`${mock.url}/users/42/`, {
      headers: { ...auth, "X-Store-API-Version": "1999-01-01" },
    });
    expect(wrong.status).toBe(400);
    expect(validationOf(await wrong.json())).toEqual([
      expect.objectContaining({ location: ["header", "x-store-api-version"], code: "enum" }),
    ]);
    const missing = await mock.fetch(`${mock.url}/users/42/`, { headers: auth });
    expect(missing.status).toBe(400);
    expect(validationOf(await missing.json())).toEqual([
      expect.objectContaining({ location: ["header", "x-store-api-version"], code: "required" }),
    ]);
  });

  it("415 for JSON sent to the multipart upload", async () => {
    const { mock } = mockedClient();
    const response = await mock.fetch(`${mock.url}/tickets/attachments/`, {
      method: "POST",
      headers: { authorization: "Bearer test-token", ...VERSION, "content-type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({
      title: "Unsupported Media Type",
      detail: "POST /tickets/attachments/ takes multipart/form-data, not application/json.",
    });
  });

  it("the titles are RFC 9110's reason phrases, the SDK's own: 422 is Unprocessable Content", async () => {
    const { mock, store } = mockedClient();
    const response = await mock.fetch(`${mock.url}/users/x/`, {
      headers: { authorization: "Bearer test-token", ...VERSION },
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ title: "Unprocessable Content" });
    const upload = await store.POST("/tickets/attachments/", {
      body: {} as never,
      bodySerializer: () => "{}",
      headers: { "content-type": "application/json" },
    });
    expect(upload.response.status).toBe(415);
    await expect(unwrap(Promise.resolve(upload))).rejects.toThrow(
      /^\[POST \/tickets\/attachments\/\] 415 Unsupported Media Type: /,
    );
  });
});
