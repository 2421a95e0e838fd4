/**
 * No operation method of our own contract returns `any` (test/kitchen-sink/ checks the same of
 * the kitchen-sink contract's methods, which include responses without content).
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { methodReturnTypes } from "../kitchen-sink/return-types.js";
import { operations } from "../../generated/operation-facts.js";

describe("the operation methods' return types", () => {
  it("are never any, over every generated method", () => {
    const returns = methodReturnTypes(fileURLToPath(new URL("../../generated/methods.ts", import.meta.url)));
    expect(returns).toHaveLength(Object.keys(operations).length);
    expect(returns.filter((r) => r.isAny).map((r) => `${r.name}: ${r.text}`)).toEqual([]);
    expect(returns.find((r) => r.name === "users.retrieve")?.text).toBe("ResponsePromise<User>");
  });
});
