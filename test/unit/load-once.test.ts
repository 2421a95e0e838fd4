/**
 * The one loader of what loads on first use (src/core/load-once.ts, used by the MCP server's
 * contract checker, code mode's module and its TypeScript checker): callers share one load, a
 * loaded value is kept, and a failed load is not: the next call tries again.
 */
import { describe, expect, it } from "vitest";
import { loadOnce } from "../../src/core/load-once.js";

describe("loadOnce", () => {
  it("shares one load between concurrent and later callers", async () => {
    let loads = 0;
    const load = loadOnce(async () => ({ n: ++loads }));
    const [a, b] = await Promise.all([load(), load()]);
    const c = await load();
    expect(loads).toBe(1);
    expect(a).toBe(b);
    expect(c).toBe(a);
  });

  it("after a failed load, hands the error to those waiting on it, and loads again on the next call", async () => {
    let loads = 0;
    const load = loadOnce(async () => {
      loads++;
      if (loads === 1) throw new Error("chunk missing");
      return "loaded";
    });
    const waiting = [load(), load()];
    for (const call of waiting) await expect(call).rejects.toThrow("chunk missing");
    expect(loads).toBe(1);
    await expect(load()).resolves.toBe("loaded");
    await expect(load()).resolves.toBe("loaded");
    expect(loads).toBe(2);
  });
});
