/**
 * The bulk command's redrawn progress line, at terminal widths and counts a quick run does not
 * reach (test/package/bulk-progress.test.ts runs the packed command in an 80-column terminal):
 * it fits `columns - 1`, keeps done, failed, the rate and the ETA while they fit at all, and
 * shows no rate or ETA before a call is sent.
 */
import { describe, expect, it } from "vitest";
import type { BulkProgress } from "../../src/bulk/types.js";
import { progressOutput } from "../../src/cli/progress.js";

/** The line drawn for `p` on a terminal `columns` wide. */
function drawn(p: BulkProgress, columns: number, sent = true): string {
  let text = "";
  progressOutput({ write: (chunk) => (text += chunk), terminal: true, columns }, () => sent).update(p);
  expect(text.startsWith("\r\x1b[2K")).toBe(true);
  return text.slice("\r\x1b[2K".length);
}

const columnsOf = (line: string): number => [...line].length;

const big: BulkProgress = {
  done: 1_234_567,
  failed: 23_456,
  skipped: 2_345_678,
  inDoubt: 1_234,
  inFlight: 8,
  perSecond: 1234.56,
  total: 9_999_999,
  etaMs: 3_600_000 * 12 + 34 * 60_000,
};

describe("the redrawn progress line", () => {
  it.each([80, 100, 120, 200])(
    "at %i columns, with seven-digit counts: fits, and keeps done, failed, in doubt, the rate and the ETA",
    (columns) => {
      const line = drawn(big, columns);
      expect(columnsOf(line)).toBeLessThanOrEqual(columns - 1);
      expect(line).toMatch(/done 1234567 · failed 23456 · .*(in )?doubt 1234 · 1234\.6\/s · ETA 12:34:00$/);
    },
  );

  it("at 200 columns: the full bar and every label in full", () => {
    expect(drawn(big, 200)).toBe(
      `[${"█".repeat(9)}${"░".repeat(15)}]  36% 3604935/9999999 · done 1234567 · failed 23456 · skipped 2345678 · in doubt 1234 · 1234.6/s · ETA 12:34:00`,
    );
  });

  it("at 80 columns, a resume's counts: the bar narrows, the counters stay whole", () => {
    const line = drawn(
      { done: 6, failed: 0, skipped: 794, inDoubt: 0, inFlight: 0, perSecond: 38, total: 800, etaMs: 0 },
      80,
    );
    expect(columnsOf(line)).toBeLessThanOrEqual(79);
    expect(line).toMatch(/^\[█+\] 100% 800\/800 · done 6 · failed 0 · skipped 794 · 38\.0\/s · ETA 0:00$/);
  });

  it("before a call is sent: no rate and no ETA, whatever the pace", () => {
    const line = drawn(
      { done: 0, failed: 6, skipped: 794, inDoubt: 0, inFlight: 0, perSecond: 1.7, total: 800, etaMs: 1000 },
      80,
      false,
    );
    expect(line).toMatch(/ · done 0 · failed 6 · skipped 794$/);
  });

  it("without a total: the count of keys ended, then the counters", () => {
    expect(drawn({ done: 3, failed: 1, skipped: 0, inDoubt: 0, inFlight: 2, perSecond: 2.5 }, 80)).toBe(
      "4 · done 3 · failed 1 · 2.5/s",
    );
  });

  it("on a terminal narrower than the counters: cut to fit", () => {
    const line = drawn(big, 30);
    expect(columnsOf(line)).toBeLessThanOrEqual(29);
    expect(line).toBe("done 1234567 · failed 23456");
  });

  it("plain lines (no terminal) show no rate before a call is sent either", () => {
    let text = "";
    const output = progressOutput({ write: (chunk) => (text += chunk), terminal: false }, () => false);
    output.update({
      done: 0,
      failed: 6,
      skipped: 794,
      inDoubt: 0,
      inFlight: 0,
      perSecond: 1.7,
      total: 800,
      etaMs: 1000,
    });
    expect(text).toBe("progress: done 0 · failed 6 · skipped 794 (800/800)\n");
  });
});
