/**
 * The rate budget is a promise about where requests arrive. Three runs at `perSecond: 20`, one of
 * them with a middleware that holds its first request 400 ms between the budget and the wire (a
 * token refresh, a busy event loop), each against its own loopback server that notes when each
 * request arrives and when the client handed it to `fetch` (an `x-sent-at` header set by the
 * client's `fetch`):
 * - the send log: no window of 1,000 ms holds more than `perSecond`, the first included (the
 *   budget keeps `1000 + WINDOW_MARGIN_MS` between a send and the `perSecond`-th after it);
 * - at the server: no window of 1,000 ms holds more than `perSecond` once the margin is allowed
 *   for: the margin absorbs the arrival jitter (arrival − send) up to its size; a busy machine's
 *   jitter beyond it shortens the window checked by as much (on a quiet machine, the whole second).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createStoreAdminClient } from "../../src/index.js";
import { runBulk } from "../../src/bulk/index.js";
import { busiestWindow as busiest, windowAtServer } from "../helpers/windows.js";

const PER_SECOND = 20;
const ITEMS = 50;

async function oneRun(run: number, holdFirstMs: number): Promise<Array<{ sent: number; arrived: number }>> {
  const arrivals: Array<{ sent: number; arrived: number }> = [];
  const server = createServer((request, response) => {
    const arrived = performance.timeOrigin + performance.now();
    arrivals.push({ sent: Number(request.headers["x-sent-at"]), arrived });
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"id":1}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const client = createStoreAdminClient({
      apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      accessToken: "sk_test_budget_at_server",
      // The moment the request goes to the network, as the request carries it.
      fetch: (input, init) => {
        const request = new Request(input, init);
        request.headers.set("x-sent-at", String(performance.timeOrigin + performance.now()));
        return fetch(request);
      },
    });
    let held = false;
    client.use({
      async onRequest() {
        if (held || holdFirstMs === 0) return undefined;
        held = true;
        await new Promise((resolve) => setTimeout(resolve, holdFirstMs));
        return undefined;
      },
    });
    const report = await runBulk({
      client,
      runId: `budget-at-server-${run}`,
      items: Array.from({ length: ITEMS }, (_, i) => i + 1),
      key: String,
      concurrency: 8,
      rate: { perSecond: PER_SECOND },
      task: (id, { client: c, signal }) => c.GET("/users/{id}/", { params: { path: { id } }, signal }),
    });
    expect(report.done).toBe(ITEMS);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return arrivals;
}

describe("the budget where requests arrive", () => {
  it(`perSecond ${PER_SECOND}, three runs: no window over it in the send log nor, margin allowed for, at the server`, async () => {
    const runs = await Promise.all([oneRun(1, 400), oneRun(2, 0), oneRun(3, 0)]);
    for (const [i, arrivals] of runs.entries()) {
      const sent = arrivals.map((a) => a.sent);
      const arrived = arrivals.map((a) => a.arrived);
      const { jitter, tightest, windowMs } = windowAtServer(arrivals, PER_SECOND);
      console.info(
        `[budget ${PER_SECOND}/s, run ${i + 1}] send log: busiest 1000 ms window ${busiest(sent, 1000)}; ` +
          `server: busiest 1000 ms window ${busiest(arrived, 1000)}, arrival jitter ${jitter.toFixed(1)} ms, tightest span of the send log ${tightest.toFixed(1)} ms, busiest ${Math.round(windowMs)} ms window ${busiest(arrived, windowMs)}`,
      );
      expect(sent).toHaveLength(ITEMS);
      expect(busiest(sent, 1000), `run ${i + 1}: the send log's busiest window`).toBeLessThanOrEqual(PER_SECOND);
      expect(
        busiest(arrived, windowMs),
        `run ${i + 1}: the server's busiest window, margin allowed for`,
      ).toBeLessThanOrEqual(PER_SECOND);
      // The first second included: its first PER_SECOND + 1 requests span more than a second.
      const first = [...arrived].sort((a, b) => a - b);
      expect(first[PER_SECOND]! - first[0]!, `run ${i + 1}: the first second`).toBeGreaterThanOrEqual(windowMs);
    }
  }, 30_000);
});
