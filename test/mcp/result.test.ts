/**
 * How a tool's answer is shaped (src/mcp/tool-call.ts), run in process: a resource over the cap
 * is cut on a code point, never between the two halves of a surrogate pair.
 */
import { describe, expect, it } from "vitest";
import { resultOf } from "../../src/mcp/tool-call.js";
import { toolNamed } from "../../src/mcp/tool-list.js";
import { clip } from "../../src/core/redact.js";

/** A high surrogate not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe("cutting a result over the cap", () => {
  it("never leaves half of a surrogate pair, whatever the cap", () => {
    const tool = toolNamed("users_retrieve")!;
    // 😀 is two UTF-16 units and four UTF-8 bytes: some cap in any run of four lands inside one.
    const data = { id: 1, first_name: "😀".repeat(2_000) };
    for (let cap = 1_024; cap < 1_040; cap++) {
      const text = resultOf(tool, data, 0, cap, (t) => t).content[0]!.text;
      expect(text, `cap ${cap}`).toContain("\n[cut: the result is");
      expect(LONE_SURROGATE.test(text), `cap ${cap}`).toBe(false);
      expect(Buffer.byteLength(text), `cap ${cap}`).toBeLessThanOrEqual(cap);
    }
  });

  it("clip() of outside text does not either", () => {
    for (let max = 1; max < 6; max++) expect(LONE_SURROGATE.test(clip("a😀😀😀😀", [], max)), `max ${max}`).toBe(false);
  });
});
