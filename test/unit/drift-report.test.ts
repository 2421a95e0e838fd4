/**
 * Validator errors as drift reports (src/plugins/drift-report.ts): pointers with array indices
 * as `*` (found by walking the data, so an object's key made of digits stays), what the
 * contract allows, the type that came and never the value, one report where `anyOf` lists a
 * nullable reference, at most 10. The validators are compiled here as the generator compiles
 * them (Ajv 2020, allErrors, formats). And the set that makes the logger warn once per field.
 */
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { driftsOf, jsonType, locate, MAX_DRIFTS } from "../../src/plugins/drift-report.js";
import { firstWarning, MAX_WARNED } from "../../src/plugins/validate-responses.js";

const ajv = new Ajv2020.default({ allErrors: true, strict: false });
addFormats.default(ajv);

const user = {
  type: "object",
  required: ["id", "email"],
  properties: {
    id: { type: "integer" },
    email: { type: ["string", "null"], format: "email" },
    status: { enum: ["active", "blocked"] },
    code: { type: "string", pattern: "^[A-Z]{3}$", minLength: 3 },
    joined: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
    address: {
      anyOf: [{ type: "object", required: ["line1"], properties: { line1: { type: "string" } } }, { type: "null" }],
    },
    counts: { type: "object", additionalProperties: { type: "integer" } },
  },
};
const validate = ajv.compile({
  type: "object",
  required: ["results"],
  properties: { results: { type: "array", items: user } },
});

const driftsIn = (body: unknown) => {
  expect(validate(body)).toBe(false);
  return driftsOf(validate.errors!, body).drifts;
};

describe("drift reports", () => {
  it("star the index of every array item, so one field of many items is one pointer", () => {
    const body = {
      results: [
        { id: 1, email: null },
        { id: 2, email: 7 },
        { id: 3, email: 8 },
      ],
    };
    expect(driftsIn(body)).toEqual([{ pointer: "/results/*/email", expected: "string or null", received: "integer" }]);
  });

  it("keep an object's key made of digits (the data is walked, not the pointer's text)", () => {
    const body = { results: [{ id: 1, email: null, counts: { "2024": "many" } }] };
    expect(driftsIn(body)).toEqual([{ pointer: "/results/*/counts/2024", expected: "integer", received: "string" }]);
    expect(locate("/0/10", [{ "10": 1 }])).toEqual({ pointer: "/*/10", value: 1, found: true });
    expect(locate("/a~1b/~0c", { "a/b": { "~c": null } })).toEqual({ pointer: "/a~1b/~0c", value: null, found: true });
  });

  it("name the enum's values, a missing field, a null where none is allowed, a broken format, pattern or length", () => {
    const body = { results: [{ email: "not an address", status: "deleted", code: "ab", id: null }] };
    expect(driftsIn(body)).toEqual(
      expect.arrayContaining([
        { pointer: "/results/*/id", expected: "integer", received: "null" },
        { pointer: "/results/*/email", expected: 'format "email"', received: "string" },
        { pointer: "/results/*/status", expected: 'one of "active", "blocked"', received: "string" },
        { pointer: "/results/*/code", expected: "pattern ^[A-Z]{3}$", received: "string" },
        { pointer: "/results/*/code", expected: "minLength 3", received: "string" },
      ]),
    );
    expect(driftsIn({ results: [{ email: null }] })).toEqual([
      { pointer: "/results/*/id", expected: "required", received: "missing" },
    ]);
    expect(driftsIn({})).toEqual([{ pointer: "/results", expected: "required", received: "missing" }]);
  });

  it("never carry a value, only its type", () => {
    const secret = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
    const body = { results: [{ id: secret, email: secret, status: secret, code: secret, joined: secret }] };
    const drifts = driftsIn(body);
    expect(drifts.length).toBeGreaterThan(3);
    expect(JSON.stringify(drifts)).not.toContain("sk_live");
  });

  it("report a nullable reference that failed as one drift, and a deeper drift inside it as the deeper one only", () => {
    expect(driftsIn({ results: [{ id: 1, email: null, joined: 5 }] })).toEqual([
      { pointer: "/results/*/joined", expected: "string or null", received: "integer" },
    ]);
    expect(driftsIn({ results: [{ id: 1, email: null, address: {} }] })).toEqual([
      { pointer: "/results/*/address/line1", expected: "required", received: "missing" },
    ]);
  });

  it(`keep at most ${MAX_DRIFTS}`, () => {
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, { type: "string" }]));
    const wide = ajv.compile({ type: "object", properties: many });
    const body = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, i]));
    expect(wide(body)).toBe(false);
    // The rest are counted: the error's `moreDrifts`, the log event's too.
    expect(driftsOf(wide.errors!, body)).toEqual({ drifts: expect.any(Array), more: 30 - MAX_DRIFTS });
    expect(driftsOf(wide.errors!, body).drifts).toHaveLength(MAX_DRIFTS);
  });

  it("name JSON types", () => {
    expect([null, [], {}, "", 1, 1.5, true].map(jsonType)).toEqual([
      "null",
      "array",
      "object",
      "string",
      "integer",
      "number",
      "boolean",
    ]);
  });
});

describe("the warned set (src/plugins/validate-responses.ts)", () => {
  it(`remembers ${MAX_WARNED} drifts (operation, pointer, type received), forgetting the oldest first`, () => {
    const keys = Array.from({ length: MAX_WARNED }, (_, i) => `GET /users/ /results/*/f${i}`);
    expect(keys.map(firstWarning).every(Boolean)).toBe(true);
    expect(keys.map(firstWarning).some(Boolean), "each warned once").toBe(false);
    expect(firstWarning("GET /users/ /next")).toBe(true);
    // The oldest was forgotten to make room, and warns again; the newest is still remembered.
    expect(firstWarning(keys[0]!)).toBe(true);
    expect(firstWarning(keys.at(-1)!)).toBe(false);
  });
});
