/**
 * How a rate budget is judged where requests arrive: the busiest sliding window of a list of
 * times, and the window a budget with a margin promises at a server given the jitter measured.
 */

/** The most times within any `windowMs` (a sliding window `[t, t + windowMs)`). */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while (sorted[j]! - sorted[i]! >= windowMs) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

/**
 * The window at the server within which the send log's spacing still holds, given the arrival
 * jitter (the spread of arrival − send): the tightest span of `perSecond + 1` consecutive sends
 * (the budget keeps it at 1,000 ms + its margin), less the jitter, and at most a second. On a
 * quiet machine that is the whole second; a busy one shortens it by what it added beyond the margin.
 */
export function windowAtServer(
  sends: ReadonlyArray<{ sent: number; arrived: number }>,
  perSecond: number,
): { jitter: number; tightest: number; windowMs: number } {
  const delays = sends.map((s) => s.arrived - s.sent);
  const jitter = Math.max(...delays) - Math.min(...delays);
  const sent = sends.map((s) => s.sent).sort((a, b) => a - b);
  let tightest = Infinity;
  for (let i = 0; i + perSecond < sent.length; i++) tightest = Math.min(tightest, sent[i + perSecond]! - sent[i]!);
  return { jitter, tightest, windowMs: Math.min(1000, tightest - jitter) };
}
