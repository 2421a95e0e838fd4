/**
 * Every operation of the contract through the SDK's client against the kit, with no handler:
 * each valid call gets its first success response with the contract's example as the body,
 * and the mock records the request under its operation with converted parameters. The calls
 * are made from the contract (test/helpers/contract-calls.ts).
 */
import { describe, expect, it } from "vitest";
import { operations } from "../../generated/operation-facts.js";
import type { OperationKey } from "../../generated/operations.js";
import { mockOperations } from "../../generated/testing/operations.js";
import { callPathStyle, contractCalls } from "../helpers/contract-calls.js";
import { mockedClient } from "./kit.js";

/** Each operation's facts, from its module (the kit loads one on the operation's first request). */
const loaded = Object.fromEntries(
  await Promise.all(
    Object.entries(mockOperations).map(async ([key, load]) => [key, (await load()).operation] as const),
  ),
);
const factsOf = (key: OperationKey) => loaded[key]!;

describe("every operation against the kit, without a handler", () => {
  it("calls each of the contract's operations, as generated/ has them", () => {
    expect(contractCalls.map((call) => call.key).sort()).toEqual(Object.keys(operations).sort());
  });

  for (const call of contractCalls) {
    const { key, path } = call;
    it(`${factsOf(key).operationId} (${key}) answers its first 2xx with the contract's example`, async () => {
      const { mock, store } = mockedClient();
      const { data, error, response } = await callPathStyle(store, call);
      const [status, facts] = Object.entries(factsOf(key).responses).find(([code]) => /^2\d\d$/.test(code))!;
      expect(error, JSON.stringify(error)).toBeUndefined();
      expect(response.status).toBe(Number(status));
      // The client hands a single fulfillment order over as a list (see src/client/request.ts).
      const expected = operations[key].singleOrList && !Array.isArray(facts.example) ? [facts.example] : facts.example;
      expect(facts.built, `${key}: add a response example to the contract`).toBeFalsy();
      expect(facts.example, `${key}: add a response example to the contract`).toBeInstanceOf(Object);
      expect(data).toEqual(expected);
      if (operations[key].paginated) expect(data).toMatchObject({ results: expect.any(Array) });

      const [method, template] = key.split(" ");
      expect(mock.requests).toHaveLength(1);
      expect(mock.requests[0]).toMatchObject({ method, path: template, operation: key, status: Number(status) });
      expect(mock.requests[0]!.params.path).toEqual(path);
      expect(mock.requests[0]!.headers["authorization"]).toBe("Bearer test-token");
    });
  }
});
