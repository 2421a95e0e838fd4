/**
 * The contract tests' client against the Prism mock the global setup started (Prism serves
 * the contract's paths at its root, hence `apiUrl`), and checks of what it answered. To see
 * exactly what goes on the wire, use the test server of `fault-server.ts`.
 */
import { expect } from "vitest";
import { createStoreAdminClient, type StoreAdminClient } from "../../src/index.js";
import { TEST_TOKEN, type ClientOverrides } from "./fault-server.js";
import { prismUrl } from "./prism.js";

/** The version header value the contract allows (spec part 9), written out here on purpose. */
export const EXPECTED_API_VERSION = "2024-04-01";

/** The SDK's client against the Prism mock, with {@link TEST_TOKEN}. */
export function createTestClient(overrides: ClientOverrides = {}): StoreAdminClient {
  return createStoreAdminClient({ apiUrl: prismUrl(), accessToken: TEST_TOKEN, ...overrides });
}

/**
 * The data of a successful call, typed as the operation declares it. Fails the test, with
 * the error body, unless the call succeeded with `status`.
 *
 * The parameter is the call's own result type, so no caller casts: `NonNullable<R["data"]>`
 * of openapi-fetch's union is exactly the declared success body.
 */
export function expectOk<R extends { data?: unknown; error?: unknown; response: Response }>(
  result: R,
  status = 200,
): NonNullable<R["data"]> {
  expect(result.error, `unexpected error body (status ${result.response.status})`).toBeUndefined();
  expect(result.response.status).toBe(status);
  expect(result.data).toBeDefined();
  return result.data as NonNullable<R["data"]>;
}

/** One entry of Prism's `validation` list (the 422 it generates for an invalid request). */
export interface PrismValidationEntry {
  location: string[];
  message: string;
  code?: string | number;
}

/** The `validation` list of an error body, checked entry by entry (the contract's `ErrorBody` is open). */
export function validationOf(body: unknown): PrismValidationEntry[] {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return [];
  const list = (body as { validation?: unknown }).validation;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item): PrismValidationEntry[] => {
    if (item === null || typeof item !== "object") return [];
    const { location, message, code } = item as Record<string, unknown>;
    if (!Array.isArray(location) || typeof message !== "string") return [];
    return [
      {
        location: location.map(String),
        message,
        ...(typeof code === "string" || typeof code === "number" ? { code } : {}),
      },
    ];
  });
}
