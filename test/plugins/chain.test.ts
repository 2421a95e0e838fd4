/**
 * The public hook chain from the sources, against a local server: no plugin is ever handed the
 * token (every object a recording plugin is given, serialized and inspected, across a success,
 * a 401, a 5xx retried, a thrown error and a refused redirect); headers a plugin sets are the
 * same on every attempt of a call; a plugin's verdict resends a POST after a 401 with a fresh
 * token (the refresh a partner app's OAuth plugin makes); a plugin that throws fails the call
 * with its error; the options that became plugins are refused, naming the plugin.
 */
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStoreAdminClient, RedirectError, ConnectionError, type StoreAdminPlugin } from "../../src/index.js";
import { startFaultServer, type FaultServer } from "../helpers/fault-server.js";

const TOKEN = "sk_live_chain_Zq81Lx0pQ2vW7rT5nB3kY9";

let server: FaultServer;
beforeAll(async () => {
  server = await startFaultServer();
});
afterAll(async () => {
  await server.close();
});

/** A plugin that keeps every object it is handed, and what each `next()` gave it. */
function recorder(): { plugin: StoreAdminPlugin; seen: unknown[] } {
  const seen: unknown[] = [];
  const plugin: StoreAdminPlugin = {
    name: "recorder",
    setup: (client) => void seen.push(client),
    async wrapCall(call, next) {
      seen.push(call);
      try {
        const result = await next();
        seen.push(result);
        return result;
      } catch (error) {
        seen.push(error);
        throw error;
      }
    },
    async wrapAttempt(attempt, next) {
      seen.push(attempt, attempt.headers, attempt.call.headers, attempt.url);
      const outcome = await next();
      seen.push(outcome);
      return outcome;
    },
    onAttemptEnd: (attempt, outcome, decision) => void seen.push(attempt, outcome, decision),
  };
  return { plugin, seen };
}

/** Every way a value can be read: JSON, and Node's inspection with hidden and symbol keys. */
const readable = (value: unknown): string => {
  let json = "";
  try {
    json = JSON.stringify(value, (_key, item: unknown) => (item instanceof Headers ? Object.fromEntries(item) : item));
  } catch {
    // A cycle: the inspection below still reads it.
  }
  return `${json}\n${inspect(value, { depth: 12, showHidden: true, getters: true })}`;
};

describe("no plugin is ever handed the token", () => {
  it("across a success, a 401, a 5xx retried, a thrown error and a refused redirect", async () => {
    const { plugin, seen } = recorder();
    const store = createStoreAdminClient({ apiUrl: server.url, accessToken: TOKEN, plugins: [plugin], maxRetries: 1 });
    server.enqueue({ status: 200, body: { id: 1 } });
    await store.users.retrieve(1);
    server.enqueue({ status: 401, body: { detail: "Invalid token." } });
    await expect(store.users.retrieve(1)).rejects.toThrow();
    server.enqueue({ status: 503, body: { detail: "busy" } }, { status: 200, body: { id: 1 } });
    await store.users.retrieve(1);
    server.enqueue({ destroy: true });
    await expect(store.users.retrieve(1, { maxRetries: 0 })).rejects.toBeInstanceOf(ConnectionError);
    server.enqueue({ status: 302, headers: { location: "https://elsewhere.example/" } });
    await expect(store.users.retrieve(1)).rejects.toBeInstanceOf(RedirectError);

    // Every request carried the token; nothing the plugin was handed holds it.
    expect(server.requests.slice(-6).every((request) => request.headers.authorization === `Bearer ${TOKEN}`)).toBe(
      true,
    );
    expect(seen.length).toBeGreaterThan(30);
    const text = seen.map(readable).join("\n");
    expect(text).toContain("/users/{id}/");
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(TOKEN.slice(0, 12));
    expect(text.toLowerCase()).not.toContain("bearer");
  });
});

describe("the hook chain", () => {
  it("a plugin's headers are the same on every attempt of a call; the token and version header cannot be set", async () => {
    let calls = 0;
    const tagging: StoreAdminPlugin = {
      name: "tagging",
      wrapCall(call, next) {
        call.headers.set("X-Call", `call-${++calls}`);
        return next();
      },
    };
    const store = createStoreAdminClient({ apiUrl: server.url, accessToken: TOKEN, plugins: [tagging] });
    server.enqueue({ status: 503 }, { status: 503 }, { status: 200, body: { id: 1 } });
    await store.users.retrieve(1);
    expect(server.requests.slice(-3).map((request) => request.headers["x-call"])).toEqual([
      "call-1",
      "call-1",
      "call-1",
    ]);

    const before = server.requests.length;
    const stealing = createStoreAdminClient({
      apiUrl: server.url,
      accessToken: TOKEN,
      plugins: [
        { name: "stealing", wrapCall: (call, next) => (call.headers.set("Authorization", "Bearer mine"), next()) },
      ],
    });
    await expect(stealing.users.retrieve(1)).rejects.toThrow(
      'the plugin "stealing" may not set authorization: the client sets it from accessToken.',
    );
    expect(server.requests.length).toBe(before);
  });

  it("after a 401, a plugin's verdict resends a POST once with a fresh token from the client's source", async () => {
    let issued = 0;
    const refreshed = new WeakSet<object>();
    const refreshOn401: StoreAdminPlugin = {
      name: "refresh-on-401",
      onAttemptEnd(attempt, outcome) {
        if (outcome.response?.status !== 401 || refreshed.has(attempt.call)) return;
        refreshed.add(attempt.call);
        return { retry: true, refreshToken: true };
      },
    };
    const store = createStoreAdminClient({
      apiUrl: server.url,
      accessToken: () => `sk_live_rotating_${++issued}_abcdefgh`,
      plugins: [refreshOn401],
    });
    server.enqueue({ status: 401, body: { detail: "expired" } }, { status: 201, body: { id: 9 } });
    const { response } = await store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 3 } } });
    expect(response.status).toBe(201);
    expect(server.requests.slice(-2).map((request) => [request.method, request.headers.authorization])).toEqual([
      ["POST", "Bearer sk_live_rotating_1_abcdefgh"],
      ["POST", "Bearer sk_live_rotating_2_abcdefgh"],
    ]);

    // A second 401 after the refresh is the caller's: sent twice in all, never a third time.
    server.enqueue({ status: 401, body: { detail: "expired" } }, { status: 401, body: { detail: "expired" } });
    const again = await store.POST("/subscriptions/{id}/renew/", { params: { path: { id: 3 } } });
    expect(again.response.status).toBe(401);
    expect(server.requests.slice(-2).map((request) => request.method)).toEqual(["POST", "POST"]);
  });

  it("a plugin that throws fails the call with its error; calling next() twice is refused", async () => {
    const failure = new Error("plugin says no");
    const before = server.requests.length;
    const throwing = createStoreAdminClient({
      apiUrl: server.url,
      accessToken: TOKEN,
      plugins: [
        {
          name: "no",
          wrapAttempt: () => {
            throw failure;
          },
        },
      ],
    });
    await expect(throwing.users.retrieve(1)).rejects.toBe(failure);
    const twice = createStoreAdminClient({
      apiUrl: server.url,
      accessToken: TOKEN,
      plugins: [{ name: "twice", wrapCall: async (_call, next) => (await next(), next()) }],
    });
    server.enqueue({ status: 200, body: { id: 1 } });
    await expect(twice.users.retrieve(1)).rejects.toThrow('the plugin "twice" called next() twice in wrapCall');
    expect(server.requests.length).toBe(before + 1);
  });

  it("refuses a plugins option that holds no plugin, naming the entry", () => {
    expect(() => createStoreAdminClient({ apiUrl: server.url, accessToken: TOKEN, plugins: [{} as never] })).toThrow(
      "plugins[0] must be a plugin",
    );
  });
});
