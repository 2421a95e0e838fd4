/**
 * The in-process rate budget's edges that the server-side tests do not reach: a wait ends with
 * its signal's reason, waiters are served in order, and a bad rate is refused.
 */
import { describe, expect, it } from "vitest";
import { rateBudget } from "../../src/bulk/index.js";

describe("rateBudget", () => {
  it("ends a wait (here a 60 s pause) with the signal's reason, leaving the others queued in order", async () => {
    const budget = rateBudget({ perSecond: 1000 });
    await budget.pauseUntil(Date.now() + 60_000);
    const first = new AbortController();
    const second = new AbortController();
    const order: string[] = [];
    const a = budget.acquire(first.signal).then(
      () => order.push("a"),
      (reason: unknown) => order.push(`a: ${String(reason)}`),
    );
    const b = budget.acquire(second.signal).then(
      () => order.push("b"),
      (reason: unknown) => order.push(`b: ${String(reason)}`),
    );
    second.abort("stop b");
    first.abort("stop a");
    await Promise.all([a, b]);
    expect(order).toEqual(["b: stop b", "a: stop a"]);
    await expect(budget.acquire(AbortSignal.abort("already"))).rejects.toBe("already");
  });

  it("serves waiters in the order they came", async () => {
    const budget = rateBudget({ perSecond: 50 });
    const order: number[] = [];
    await Promise.all(Array.from({ length: 6 }, (_, i) => budget.acquire().then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it.each([0, -1, Number.POSITIVE_INFINITY, Number.NaN])("refuses perSecond %s", (perSecond) => {
    expect(() => rateBudget({ perSecond })).toThrow(/rate.perSecond must be a positive number/);
  });
});
