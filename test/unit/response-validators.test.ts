/**
 * generated/validators/responses.ts: per operation, the loader of its JSON response
 * validators, keyed by the contract's status key, compiled as responses are read and with
 * every error listed; and the testing kit's per-operation modules hand out the same validators
 * (one module, whoever loads it first).
 */
import { describe, expect, it } from "vitest";
import { mockOperations } from "../../generated/testing/operations.js";
import { responseValidators } from "../../generated/validators/responses.js";

describe("responseValidators", () => {
  it("has every operation the kit has, each keyed by its JSON responses' status keys", async () => {
    expect(Object.keys(responseValidators).sort()).toEqual(Object.keys(mockOperations).sort());
    const { operation } = await mockOperations["GET /users/{id}/"]();
    const json = Object.entries(operation.responses)
      .filter(([, facts]) => facts.json)
      .map(([status]) => status);
    expect(Object.keys(await responseValidators["GET /users/{id}/"]()).sort()).toEqual(json.sort());
    expect(json).toEqual(expect.arrayContaining(["200", "5XX"]));
  });

  it("the kit's module of an operation holds the very same validators (one copy)", async () => {
    for (const key of ["GET /users/{id}/", "POST /products/"] as const) {
      expect((await mockOperations[key]()).responses).toBe(await responseValidators[key]());
    }
  });

  it("validates as a response is read: read-only fields allowed, every problem listed", async () => {
    const { 200: user } = await responseValidators["GET /users/{id}/"]();
    expect(user!({ id: 1, orders_count: 3, date_joined: "2024-04-01T10:00:00Z", total_spent: "1.00" })).toBe(true);
    expect(user!({ id: "1", email: 5, tags: [1] })).toBe(false);
    expect(user!.errors!.filter((error) => error.keyword === "type").map((error) => error.instancePath)).toEqual([
      "/id",
      "/email",
      "/tags/0",
    ]);
  });
});
