/**
 * src/core/options.ts: the one helper per kind of option check that the entries share, each
 * refusal worded `<name> must be <what it takes>, got <the value>.`, and the one list of the
 * unknown options a refusal names.
 */
import { describe, expect, it } from "vitest";
import {
  checkBoolean,
  checkFunction,
  checkMilliseconds,
  checkNumberOption,
  checkWholeNumber,
  mustBe,
  typeName,
  unknownOptions,
} from "../../src/core/options.js";

describe("option checks", () => {
  it("mustBe words the refusal, with the value shown as asked or not at all", () => {
    expect(() => mustBe("limit", "a whole number ≥ 1", "x")).toThrow(
      new TypeError("limit must be a whole number ≥ 1, got x."),
    );
    expect(() => mustBe("limit", "a whole number ≥ 1", "x", JSON.stringify)).toThrow(
      new TypeError('limit must be a whole number ≥ 1, got "x".'),
    );
    expect(() => mustBe("limit", "a whole number ≥ 1", undefined, JSON.stringify)).toThrow(
      new TypeError("limit must be a whole number ≥ 1, got undefined."),
    );
    expect(() => mustBe("task", "a function", 1, null)).toThrow(new TypeError("task must be a function."));
    expect(() => mustBe("attribute", "a string", null, typeName)).toThrow(
      new TypeError("attribute must be a string, got null."),
    );
  });

  it("each kind passes what it takes and undefined, and refuses the rest by name", () => {
    for (const ok of [undefined, 1, 7]) expect(() => checkWholeNumber("n", ok, 1)).not.toThrow();
    for (const bad of [0, 1.5, Number.NaN, "2", null])
      expect(() => checkWholeNumber("n", bad, 1)).toThrow(`n must be a whole number ≥ 1, got ${String(bad)}.`);
    for (const ok of [undefined, 0, 250, Infinity]) expect(() => checkMilliseconds("ms", ok)).not.toThrow();
    for (const bad of [-1, Number.NaN, "5"])
      expect(() => checkMilliseconds("ms", bad)).toThrow(
        `ms must be a number of milliseconds ≥ 0, got ${String(bad)}.`,
      );
    expect(() => checkMilliseconds("ms", -1, null)).toThrow(/^ms must be a number of milliseconds ≥ 0\.$/);
    expect(() => checkFunction("f", undefined)).not.toThrow();
    expect(() => checkFunction("f", undefined, "a function of the item", true)).toThrow(
      "f must be a function of the item.",
    );
    expect(() => checkFunction("f", 1)).toThrow(/^f must be a function\.$/);
    for (const ok of [undefined, true, false]) expect(() => checkBoolean("b", ok)).not.toThrow();
    expect(() => checkBoolean("b", "yes", JSON.stringify)).toThrow('b must be true or false, got "yes".');
    expect(() => checkNumberOption("t", 0, (n) => n > 0, "positive")).toThrow("t must be positive, got 0.");
  });

  it("unknownOptions names the own keys a list does not hold, in order, and no inherited one", () => {
    expect(unknownOptions({ a: 1, scope: 2, b: 3, tool: 4 }, ["a", "b"])).toEqual(["scope", "tool"]);
    expect(unknownOptions({ a: 1 }, ["a"])).toEqual([]);
    const inherited = Object.create({ polluted: true }) as object;
    expect(unknownOptions(inherited, [])).toEqual([]);
    expect(unknownOptions(JSON.parse('{"__proto__": 1}') as object, ["a"])).toEqual(["__proto__"]);
  });
});
