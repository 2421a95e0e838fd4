/**
 * `rateLimit()` on the MCP server's store client: the server's calls, whether an agent sends
 * many tool calls at once or one code-mode snippet fires many store calls together, never
 * exceed the plugin's bounds at the store. Over the official MCP client (in-memory transport),
 * arrivals timed where the store receives them.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { rateLimit } from "../../src/plugins/index.js";
import type { ReceivedRequest } from "../helpers/fault-server.js";
import { busiestWindow } from "../helpers/windows.js";
import { inMemoryMcp } from "./in-memory-fixture.js";

const TOKEN = "sk_live_mcp_rate_limit_0123456789";
const PER_SECOND = 4;
const CALLS = 10;

/** When each user's request arrived (ms, this process's clock), by path. */
const arrivals: Array<{ path: string; at: number }> = [];
let inFlight = 0;
let mostInFlight = 0;
const answer = (request: ReceivedRequest) => {
  arrivals.push({ path: request.path, at: performance.now() });
  mostInFlight = Math.max(mostInFlight, ++inFlight);
  setTimeout(() => inFlight--, 150);
  return { delayMs: 150, body: { id: Number(/\/users\/(\d+)\//.exec(request.path)?.[1]), email: "u@example.com" } };
};

const mcp = inMemoryMcp(answer, { token: TOKEN, name: "mcp-rate-limit-test" });
const storeWith = () => ({
  apiUrl: `${mcp.store.url}/api/admin`,
  accessToken: TOKEN,
  maxRetries: 0,
  plugins: [rateLimit({ perSecond: PER_SECOND, maxConcurrent: 2 })],
});

let perOperation: Client;
let code: Client;
beforeAll(async () => {
  perOperation = await mcp.connect({ store: storeWith() });
  code = await mcp.connect({ store: storeWith(), mode: "code" });
});

const timesOf = (from: number) => arrivals.slice(from).map((arrival) => arrival.at);

describe("rateLimit() on the MCP server's store client", () => {
  it(`${CALLS} tool calls sent at once: every one answered, at most ${PER_SECOND} in any second and 2 at once at the store`, async () => {
    const from = arrivals.length;
    mostInFlight = 0;
    const results = await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        perOperation.callTool({ name: "users_retrieve", arguments: { path: { id: i + 1 } } }),
      ),
    );
    expect(results.map((result) => result.isError ?? false)).toEqual(Array(CALLS).fill(false));
    const times = timesOf(from);
    expect(times).toHaveLength(CALLS);
    expect(busiestWindow(times, 1000)).toBeLessThanOrEqual(PER_SECOND);
    expect(mostInFlight).toBeLessThanOrEqual(2);
    // The bound is the plugin's, not an accident of timing: the calls took the time it sets.
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(
      Math.floor((CALLS - 1) / PER_SECOND) * 1000 - 50,
    );
  });

  it(`one code-mode execute firing ${CALLS} store calls together: the same bounds hold`, async () => {
    const from = arrivals.length;
    mostInFlight = 0;
    const result = await code.callTool(
      {
        name: "execute",
        arguments: {
          code: `const ids = Array.from({ length: ${CALLS} }, (_, i) => i + 1);
const users = await Promise.all(ids.map((id) => store.users.retrieve(id)));
return users.map((user) => user.id);`,
        },
      },
      undefined,
      { timeout: 60_000 },
    );
    const structured = result.structuredContent as { result?: unknown; calls?: unknown[] };
    expect(structured.result).toEqual(Array.from({ length: CALLS }, (_, i) => i + 1));
    const times = timesOf(from);
    expect(times).toHaveLength(CALLS);
    expect(busiestWindow(times, 1000)).toBeLessThanOrEqual(PER_SECOND);
    expect(mostInFlight).toBeLessThanOrEqual(2);
  });
});
