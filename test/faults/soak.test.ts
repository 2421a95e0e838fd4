/**
 * Soak: 2,000 calls through the client (mixed GET, PUT, POST, PATCH, 25 at a time) against a
 * server that injects a fault into about 10 % of the requests it receives. Asserts that no
 * POST or PATCH is processed twice, that every idempotent call succeeds or fails with a typed
 * error within maxRetries + 1 attempts, and that nothing is left open afterwards.
 *
 * Faults are chosen by a hash of (call key, attempt number), so a run is the same whatever
 * the interleaving of the concurrent calls.
 */
import { expect, it } from "vitest";
import { createStoreAdminClient } from "../../src/client/client.js";
import { ApiError, StoreAdminError } from "../../src/core/errors.js";
import type { RequestLogEvent } from "../../src/core/logger.js";
import { unwrap } from "../../src/client/unwrap.js";
import { startFaultServer, TEST_TOKEN, type Fault, type ReceivedRequest } from "../helpers/fault-server.js";

const CALLS = 2_000;
const CONCURRENCY = 25;
const MAX_RETRIES = 2;
const FAULT_RATE = 0.1;

/** The injected faults, each with its share of the faulty requests. */
const FAULTS: Array<[name: string, share: number, fault: Fault]> = [
  ["429", 0.25, { status: 429, headers: { "retry-after": "0" }, body: { detail: "slow down" } }],
  ["503", 0.15, { status: 503, headers: { "retry-after": "0" } }],
  ["500", 0.1, { status: 500, body: { detail: "boom" } }],
  ["408", 0.05, { status: 408 }],
  ["reset", 0.15, { destroy: true }],
  ["truncated body", 0.15, { status: 200, body: { id: 0, padding: "x".repeat(64) }, truncate: true }],
  ["stalled body", 0.15, { status: 200, body: { id: 0, padding: "x".repeat(64) }, stallAfterHeaders: true }],
];

type Kind = "GET" | "PUT" | "POST renew" | "POST product" | "PATCH";
/** Call i's kind: 40 % GET, 25 % PUT, 15 % renew, 10 % product, 10 % PATCH. */
function kindOf(i: number): Kind {
  const slot = i % 20;
  return slot < 8 ? "GET" : slot < 13 ? "PUT" : slot < 16 ? "POST renew" : slot < 18 ? "POST product" : "PATCH";
}

/** The key that identifies a call on the server: its path, or the product title in the body. */
function keyOf(request: ReceivedRequest): string {
  return request.url === "/products/"
    ? `POST /products/ ${(JSON.parse(request.body) as { title: string }).title}`
    : `${request.method} ${request.url}`;
}

/**
 * A hash of a string to [0, 1): FNV-1a, then murmur3's finalizer so that keys differing only
 * in their last character land far apart. The same key and attempt get the same fault in every run.
 */
function unit(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return ((hash ^ (hash >>> 16)) >>> 0) / 2 ** 32;
}

function faultFor(key: string, attempt: number): [string, Fault] | undefined {
  if (unit(`fault ${key} ${attempt}`) >= FAULT_RATE) return undefined;
  let pick = unit(`kind ${key} ${attempt}`);
  for (const [name, share, fault] of FAULTS) {
    if ((pick -= share) < 0) return [name, fault];
  }
  return undefined;
}

it(`soak: ${CALLS} calls with ~${FAULT_RATE * 100} % faults, no duplicate creation, no leak`, {
  timeout: 120_000,
}, async () => {
  const baseline = openHandles();
  const receipts = new Map<string, string[]>(); // call key → what the server did with each receipt
  const server = await startFaultServer((request) => {
    const key = keyOf(request);
    const seen = receipts.get(key) ?? [];
    receipts.set(key, seen);
    const chosen = faultFor(key, seen.length + 1);
    seen.push(chosen?.[0] ?? "ok");
    return chosen?.[1] ?? { status: 200, body: { id: 1 } };
  });
  const events: RequestLogEvent[] = [];
  const store = createStoreAdminClient({
    apiUrl: server.url,
    accessToken: TEST_TOKEN,
    maxRetries: MAX_RETRIES,
    // Long enough that a busy machine does not time out healthy answers, short enough for the stalls.
    timeoutMs: 1_000,
    logger: (event) => events.push(event),
  });

  const call = (i: number): Promise<unknown> => {
    switch (kindOf(i)) {
      case "GET":
        return unwrap(store.GET("/users/{id}/", { params: { path: { id: i } } }));
      case "PUT":
        return unwrap(store.PUT("/users/{id}/", { params: { path: { id: i } }, body: { first_name: `n${i}` } }));
      case "POST renew":
        return unwrap(store.POST("/subscriptions/{id}/renew/", { params: { path: { id: i } } }));
      case "POST product":
        return unwrap(store.POST("/products/", { body: { title: `soak ${i}` } }));
      case "PATCH":
        return unwrap(store.PATCH("/gift-cards/{id}/", { params: { path: { id: i } }, body: { expired_at: null } }));
    }
  };

  const outcomes: Array<{ kind: Kind; error?: unknown }> = new Array(CALLS);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < CALLS; i = next++) {
        outcomes[i] = await call(i).then(
          () => ({ kind: kindOf(i) }),
          (error: unknown) => ({ kind: kindOf(i), error }),
        );
      }
    }),
  );
  await server.close();

  // Every call ended, successfully or with one of the SDK's typed errors.
  const failures = outcomes.filter((o) => "error" in o);
  expect(outcomes.filter(Boolean)).toHaveLength(CALLS);
  expect(failures.filter((o) => !(o.error instanceof StoreAdminError))).toEqual([]);

  // No POST or PATCH was processed twice: a second receipt only ever follows a 429, which
  // the server refuses before doing anything.
  const creating = [...receipts].filter(([key]) => key.startsWith("POST") || key.startsWith("PATCH"));
  const processedTwice = creating.filter(([, seen]) => seen.filter((s) => s !== "429").length > 1);
  const resentAfterOther = creating.filter(([, seen]) => seen.slice(0, -1).some((s) => s !== "429"));
  expect(processedTwice).toEqual([]);
  expect(resentAfterOther).toEqual([]);

  // Every call was received at most maxRetries + 1 times, and the logger saw each attempt.
  const attempts = [...receipts.values()].map((seen) => seen.length);
  expect(Math.max(...attempts)).toBeLessThanOrEqual(MAX_RETRIES + 1);
  expect(receipts.size).toBe(CALLS);
  expect(events).toHaveLength(server.requests.length);
  expect(Math.max(...events.map((e) => e.attempt))).toBeLessThanOrEqual(MAX_RETRIES + 1);

  // Nothing left open: no more sockets, servers or timers than before the soak.
  await until(() => Object.keys(leaked(baseline, openHandles())).length === 0);
  expect(leaked(baseline, openHandles())).toEqual({});

  const faultsInjected = [...receipts.values()].flat().filter((s) => s !== "ok").length;
  const retries = events.filter((e) => e.willRetry).length;
  const failedStatuses = failures.filter((o) => o.error instanceof ApiError).length;
  expect(server.requests.length).toBeGreaterThanOrEqual(CALLS);
  expect(faultsInjected / server.requests.length).toBeGreaterThan(0.05);
  expect(retries).toBeGreaterThan(0);
  console.info(
    `soak: ${CALLS} calls, ${server.requests.length} requests received, ${faultsInjected} faults injected, ` +
      `${retries} retries, ${failures.length} typed failures (${failedStatuses} ApiError), 0 POST/PATCH processed twice`,
  );
});

/** Counts of the process's active handles by kind (sockets, servers, timers). */
function openHandles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

/** The kinds of handle open now beyond the baseline, with how many more. */
function leaked(baseline: Record<string, number>, now: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(now)
      .map(([kind, count]) => [kind, count - (baseline[kind] ?? 0)] as const)
      .filter(([, extra]) => extra > 0),
  );
}

/** Waits (up to a generous bound) for sockets closed by the server to be closed on our side too. */
async function until(condition: () => boolean, attempts = 200): Promise<void> {
  for (let i = 0; i < attempts && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
}
