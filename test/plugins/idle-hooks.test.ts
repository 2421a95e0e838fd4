/**
 * The SDK's own plugins (the 429 pause, the logger) run without the chain's guards, and not at
 * all while idle (src/client/plugin-chain.ts, `sdkPlugin`). What the guards gave a caller must
 * hold without them: the caller's signal ends a wait in the pause even when a plugin wrote over
 * the view's; a hook a plugin gains after the client was made runs; the caller's `params` reach
 * middleware as given; an aborted call ends on its abort before any later hook. Requests are
 * counted at the server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Middleware } from "openapi-fetch";
import { createStoreAdminClient, type StoreAdminPlugin } from "../../src/index.js";
import { startFaultServer, type FaultServer } from "../helpers/fault-server.js";

const TOKEN = "sk_live_idle_hooks_Hq2Lx8pQ0vW7rT5nB3kY9";

let server: FaultServer;
beforeAll(async () => {
  server = await startFaultServer(() => ({ status: 200, body: { id: 1 } }));
});
afterAll(async () => {
  await server.close();
});

const clientWith = (...plugins: StoreAdminPlugin[]) =>
  createStoreAdminClient({ apiUrl: server.url, accessToken: TOKEN, maxRetries: 0, plugins });

/** Resolves to `"still waiting"` after `ms`, unless `promise` settles first (then to how it settled). */
const within = (promise: Promise<unknown>, ms: number): Promise<string> =>
  Promise.race([
    promise.then(
      () => "resolved",
      (error: { name?: string }) => `rejected: ${error?.name}`,
    ),
    new Promise<string>((resolve) => setTimeout(() => resolve("still waiting"), ms)),
  ]);

describe("the SDK's plugins without the chain's guards", () => {
  it("a plugin that writes over call.signal: the caller's signal still ends a wait in the 429 pause, nothing sent", async () => {
    const store = clientWith({
      name: "unsignalling",
      wrapCall(call, next) {
        (call as { signal: AbortSignal | undefined }).signal = undefined;
        return next();
      },
    });
    server.enqueue({ status: 429, headers: { "retry-after": "30" }, body: { detail: "Slow down." } });
    const before = server.requests.length;
    await store.users.retrieve(1).catch(() => undefined); // the 429: the client's calls held 30 s
    const held = store.users.retrieve(1, { signal: AbortSignal.timeout(100) });
    expect(await within(held, 5_000)).toBe("rejected: TimeoutError");
    expect(server.requests.length - before).toBe(1); // the 429 only
  });

  it("a wrapCall a plugin gains after the client was made (in its setup, or later) runs on every call", async () => {
    let fromSetup = 0;
    let later = 0;
    const growing: StoreAdminPlugin & { wrapCall?: StoreAdminPlugin["wrapCall"] } = {
      name: "growing",
      setup() {
        growing.wrapCall = (_call, next) => (fromSetup++, next());
      },
    };
    const plain: StoreAdminPlugin & { wrapCall?: StoreAdminPlugin["wrapCall"] } = { name: "plain" };
    const store = clientWith(growing, plain);
    plain.wrapCall = (_call, next) => (later++, next());
    await store.users.retrieve(1);
    await store.users.retrieve(1);
    expect([fromSetup, later]).toEqual([2, 2]);
  });

  it("the caller's params reach middleware as given: an own __proto__ key is data, not the prototype", async () => {
    const seen: Array<{ injected: unknown; proto: unknown; own: boolean }> = [];
    const spy: Middleware = {
      onRequest({ params }) {
        const given = params as Record<string, unknown>;
        seen.push({
          injected: given["injected"],
          proto: Object.getPrototypeOf(given),
          own: Object.hasOwn(given, "__proto__"),
        });
        return undefined;
      },
    };
    const store = clientWith();
    const params = JSON.parse('{"path":{"id":1},"__proto__":{"injected":"yes"}}') as { path: { id: number } };
    const { data } = await store.GET("/users/{id}/", { params, middleware: [spy] });
    expect(data).toMatchObject({ id: 1 });
    expect(seen).toEqual([{ injected: undefined, proto: Object.prototype, own: true }]);
  });

  it("an aborted call ends on its abort: a verdict given at once after it is not asked for, nor any hook after", async () => {
    const heard: string[] = [];
    const abort = new AbortController();
    const store = createStoreAdminClient({
      apiUrl: server.url,
      accessToken: TOKEN,
      maxRetries: 0,
      // The caller gives up while the request is in flight.
      fetch: (input, init) => {
        const sent = globalThis.fetch(input, init);
        abort.abort(new Error("caller gave up"));
        return sent;
      },
      logger: () => void heard.push("logger"),
      plugins: [
        {
          name: "bad-verdict",
          onAttemptEnd() {
            heard.push("bad-verdict");
            return { retry: "yes" } as never;
          },
        },
      ],
    });
    await expect(store.users.retrieve(1, { signal: abort.signal })).rejects.toThrow("caller gave up");
    expect(heard).toEqual(["bad-verdict"]);
  });

  it("a 429 a middleware made, with nothing sent, holds no pause: the next call goes at once", async () => {
    const store = clientWith();
    const limiter: Middleware = {
      onRequest: () =>
        new Response(JSON.stringify({ detail: "local limit" }), {
          status: 429,
          headers: { "content-type": "application/json", "retry-after": "30" },
        }),
    };
    const { response } = await store.GET("/users/{id}/", { params: { path: { id: 5 } }, middleware: [limiter] });
    expect(response.status).toBe(429);
    expect(await within(store.users.retrieve(5), 5_000)).toBe("resolved");
    expect(server.count("GET", "/users/5/")).toBe(1);
  });
});
