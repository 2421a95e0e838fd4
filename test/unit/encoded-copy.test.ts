/**
 * scripts/encode.ts's encodedCopy: the one walk over a contract that encodes its text for
 * openapi-typescript's doc comments (scripts/generate.ts) and the reference's Markdown
 * (scripts/docs.ts).
 */
import { describe, expect, it } from "vitest";
import { docText, encodedCopy, untrustedMarkdown } from "../../scripts/encode.js";

describe("encodedCopy", () => {
  it("encodes what `encode` picks at any depth, keeps what it returns as is, and leaves the original alone", () => {
    const doc = {
      info: { description: "<b>x</b>" },
      paths: { "/a/": { get: { description: "<i>", examples: [{ description: "<u>" }] } } },
      list: [{ description: "<s>" }],
    };
    const before = structuredClone(doc);
    const copy = encodedCopy(doc, (key, value) =>
      key === "description" && typeof value === "string"
        ? untrustedMarkdown(value)
        : key === "examples"
          ? value
          : undefined,
    );
    expect(copy).toEqual({
      info: { description: "&lt;b>x&lt;/b>" },
      paths: { "/a/": { get: { description: "&lt;i>", examples: [{ description: "<u>" }] } } },
      list: [{ description: "&lt;s>" }],
    });
    expect(doc).toEqual(before);
  });

  it("keeps a __proto__ key a key, and null and scalars as they are", () => {
    const doc = JSON.parse('{"__proto__": {"description": "a */ b"}, "n": null, "k": 1}') as unknown;
    const copy = encodedCopy(doc, (key, value) =>
      key === "description" && typeof value === "string" ? docText(value) : undefined,
    ) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, "__proto__")).toBe(true);
    expect(copy["__proto__"]).toEqual({ description: docText("a */ b") });
    expect(copy.n).toBeNull();
    expect(copy.k).toBe(1);
  });
});
