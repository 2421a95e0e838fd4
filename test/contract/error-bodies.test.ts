/**
 * Error answers of the mock: the contract gives every error response an illustrated
 * example (the specification shows no error body), so Prism answers with it instead of a
 * body generated from the schema (which read like "detail: string."). The SDK hands the
 * body over as `error`, typed as the contract's `ErrorBody`, and `unwrap()` throws the
 * typed error for the status. An invalid request still gets Prism's 422 with its
 * `validation` list (test/contract/invalid-input.test.ts), because the contract declares
 * no 400 or 422 of its own.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  AuthenticationError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  unwrap,
  type ErrorBody,
} from "../../src/index.js";
import { createTestClient } from "../helpers/client.js";
import { TEST_TOKEN } from "../helpers/fault-server.js";
import { prismUrl } from "../helpers/prism.js";

const store = createTestClient({ maxRetries: 0 });

const CASES = [
  {
    code: 403,
    detail: "The access token does not hold the scope this operation requires.",
    error: PermissionDeniedError,
  },
  { code: 404, detail: "Not found.", error: NotFoundError },
  {
    code: 429,
    detail: "Request was throttled. Try again after the number of seconds in Retry-After.",
    error: RateLimitError,
  },
  { code: 500, detail: "The server could not complete the request.", error: InternalServerError },
] as const;

describe("error bodies of the mock are the contract's illustrated examples", () => {
  for (const c of CASES) {
    it(`Prefer: code=${c.code} → status ${c.code}, error.detail from the example, ${c.error.name} from unwrap()`, async () => {
      const result = await store.GET("/disputes/{id}/", {
        params: { path: { id: 615 } },
        headers: { Prefer: `code=${c.code}` },
      });
      expect(result.response.status).toBe(c.code);
      expect(result.data).toBeUndefined();
      expectTypeOf(result.error).toEqualTypeOf<ErrorBody | undefined>();
      expect(result.error?.detail).toBe(c.detail);
      await expect(unwrap(result)).rejects.toBeInstanceOf(c.error);
    });
  }

  it("a request without a token → 401 with the illustrated body, AuthenticationError", async () => {
    const response = await fetch(`${prismUrl()}/disputes/615/`, { headers: { "X-Store-API-Version": "2024-04-01" } });
    expect(response.status).toBe(401);
    const body = (await response.json()) as ErrorBody;
    expect(body.detail).toBe("The access token is missing, malformed, expired or revoked.");
    // Control: the same request with a token succeeds.
    const ok = await fetch(`${prismUrl()}/disputes/615/`, {
      headers: { "X-Store-API-Version": "2024-04-01", Authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
    await expect(
      unwrap(store.GET("/disputes/{id}/", { params: { path: { id: 615 } }, headers: { Prefer: "code=401" } })),
    ).rejects.toBeInstanceOf(AuthenticationError);
  });

  it("no error body of any operation reads like a generated placeholder (`…: string.`)", async () => {
    const bodies = await Promise.all(
      [401, 403, 404, 429, 500].map(
        async (code) =>
          (await store.GET("/users/{id}/", { params: { path: { id: 42 } }, headers: { Prefer: `code=${code}` } }))
            .error,
      ),
    );
    for (const body of bodies) {
      expect(typeof body?.detail).toBe("string");
      expect(body?.detail).not.toMatch(/string\.?$/);
    }
  });
});
