/**
 * A plugin is code the client runs but does not trust with the token, nor with its calls'
 * fate: nothing a plugin is handed, its class included, reaches the token; the redaction it is
 * given matches the token whole only, so probing it tells nothing; a hook that never settles
 * cannot keep a caller's abort from ending the call, and an attempt a wrap held past the abort
 * is not sent; a wrap that resolves to something else, or a header it may not set, fails the
 * call naming that plugin. Requests are counted at the server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStoreAdminClient, type PluginCall, type PluginClient, type StoreAdminPlugin } from "../../src/index.js";
import { startFaultServer, type FaultServer } from "../helpers/fault-server.js";

const TOKEN = "sk_live_untrusted_Zq81Lx0pQ2vW7rT5nB3kY9";

let server: FaultServer;
beforeAll(async () => {
  server = await startFaultServer(() => ({ status: 200, body: { id: 1 } }));
});
afterAll(async () => {
  await server.close();
});

const clientWith = (...plugins: StoreAdminPlugin[]) =>
  createStoreAdminClient({ apiUrl: server.url, accessToken: TOKEN, maxRetries: 0, plugins });

/** Every function reachable from `value`: own and inherited properties, and its constructor's statics, called with `value`. */
function probe(value: object): string[] {
  const found: string[] = [];
  const seen = new Set<object>();
  for (
    let object: object | null = value;
    object && object !== Object.prototype;
    object = Object.getPrototypeOf(object)
  ) {
    for (const holder of [object, (object as { constructor?: object }).constructor]) {
      if (!holder || seen.has(holder)) continue;
      seen.add(holder);
      for (const key of Reflect.ownKeys(holder)) {
        const descriptor = Object.getOwnPropertyDescriptor(holder, key);
        const fn = descriptor?.value;
        if (typeof fn !== "function" || key === "constructor") continue;
        try {
          found.push(JSON.stringify(fn.call(holder, value)) ?? "");
        } catch {
          // A method that wants other arguments: nothing read.
        }
      }
    }
  }
  return found;
}

describe("what a plugin is handed", () => {
  it("no method of the call, the attempt, the setup client or their classes returns the token", async () => {
    const handed: object[] = [];
    const store = clientWith({
      name: "prober",
      setup: (client) => void handed.push(client),
      wrapCall: (call, next) => (handed.push(call), next()),
      wrapAttempt: (attempt, next) => (handed.push(attempt), next()),
    });
    await store.users.retrieve(1);
    expect(handed).toHaveLength(3);
    const call = handed[1] as PluginCall & { constructor: Record<string, unknown> };
    expect(call.constructor["secretsOf"]).toBeUndefined();
    for (const object of handed) for (const read of probe(object)) expect(read).not.toContain(TOKEN.slice(8, 20));
  });

  it("redact() matches the token whole only: a part of it, in any case or encoding, comes back unchanged", async () => {
    let client: PluginClient | undefined;
    let call: PluginCall | undefined;
    const store = clientWith({
      name: "oracle",
      setup: (c) => void (client = c),
      wrapCall: (c, next) => ((call = c), next()),
    });
    await store.users.retrieve(1);
    for (const redact of [client!.redact.bind(client), call!.redact.bind(call)]) {
      expect(redact(`token ${TOKEN} here`)).toBe("token [REDACTED] here");
      // The probes that would let a plugin grow a known prefix one character at a time.
      for (const part of [
        TOKEN.slice(0, 12),
        TOKEN.slice(5, 20),
        TOKEN.slice(0, -1),
        TOKEN.toUpperCase(),
        btoa(TOKEN.slice(0, 12)),
      ])
        expect(redact(`x ${part} y`)).toBe(`x ${part} y`);
    }
  });

  it("a token function's error quoting a token it handed out before reaches the caller and the plugins scrubbed", async () => {
    let calls = 0;
    const errors: unknown[] = [];
    const store = createStoreAdminClient({
      apiUrl: server.url,
      maxRetries: 0,
      accessToken: () => {
        if (calls++ === 0) return TOKEN;
        throw new Error(`refresh of ${TOKEN} failed`);
      },
      plugins: [
        {
          name: "watcher",
          wrapCall: (_call, next) =>
            next().catch((error) => {
              errors.push(error);
              throw error;
            }),
        },
      ],
    });
    await store.users.retrieve(1);
    const error = await store.users.retrieve(1).catch((thrown: unknown) => thrown);
    expect(errors).toEqual([error]);
    expect((error as Error).message).toMatch(/The accessToken function threw/);
    const cause = (error as Error).cause as Error;
    expect(cause.message).toBe("refresh of [REDACTED] failed");
  });
});

describe("a hook that never settles, and the caller's signal", () => {
  const never = () => new Promise<never>(() => undefined);

  it("wrapCall that never settles: the call rejects with the signal's reason, nothing is sent", async () => {
    const before = server.requests.length;
    const store = clientWith({ name: "stuck", wrapCall: never });
    const reason = new Error("caller gave up");
    const controller = new AbortController();
    const call = store.users.retrieve(1, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    await expect(call).rejects.toBe(reason);
    expect(server.requests.length).toBe(before);
  });

  it("wrapAttempt that holds the attempt past the abort, then hands on: rejected, and nothing is sent", async () => {
    const before = server.requests.length;
    const controller = new AbortController();
    let handedOn: Promise<unknown> | undefined;
    const store = clientWith({
      name: "late",
      wrapAttempt: (_attempt, next) =>
        new Promise((resolve) => {
          controller.signal.addEventListener("abort", () => {
            handedOn = next();
            resolve(handedOn);
          });
        }) as never,
    });
    const call = store.users.retrieve(1, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    await handedOn;
    expect(server.requests.length).toBe(before);
  });

  it("a hook that writes over the call's signal, then never settles: the caller's signal still ends the call", async () => {
    const before = server.requests.length;
    const store = clientWith({
      name: "unsignalling",
      wrapCall: (call) => {
        (call as { signal: AbortSignal | undefined }).signal = undefined;
        return never();
      },
    });
    await expect(store.users.retrieve(1, { signal: AbortSignal.timeout(100) })).rejects.toMatchObject({
      name: "TimeoutError",
    });
    expect(server.requests.length).toBe(before);
  });

  it("a next() a plugin kept past the call's end sends nothing: neither the attempt's nor the call's", async () => {
    const kept: Array<() => Promise<unknown>> = [];
    const fake = { response: new Response('{"id":1}', { status: 200 }), data: { id: 1 }, durationMs: 0 };
    const keepAttempt: StoreAdminPlugin = {
      name: "keep-attempt",
      wrapAttempt: async (_a, next) => (kept.push(next), fake),
    };
    const keepCall: StoreAdminPlugin = {
      name: "keep-call",
      wrapCall: async (_c, next) => (kept.push(next), { data: { id: 1 }, error: undefined, response: fake.response }),
    };
    for (const plugin of [keepAttempt, keepCall]) {
      const before = server.requests.length;
      await clientWith(plugin).users.retrieve(1);
      const late = await kept.pop()!().then(
        (value) => (value as { error?: Error }).error,
        (error: unknown) => error,
      );
      expect(late).toEqual(new TypeError("a plugin called next() after its call had ended; nothing was sent."));
      expect(server.requests.length).toBe(before);
    }
  });

  it("onAttemptEnd that never settles: the call rejects with the signal's reason after its one request", async () => {
    const before = server.requests.length;
    const store = clientWith({ name: "stuck-verdict", onAttemptEnd: never });
    const call = store.users.retrieve(1, { signal: AbortSignal.timeout(300) });
    await expect(call).rejects.toMatchObject({ name: "TimeoutError" });
    expect(server.requests.length).toBe(before + 1);
  });
});

describe("what a plugin returns, and the headers it sets", () => {
  it.each([
    ["undefined", undefined],
    ["null", null],
    ["a number", 42],
    ["an outcome whose error is null and response not one", { error: null, response: "x" }],
    ["an outcome whose response has no headers", { response: { status: 200, headers: null } }],
  ])("wrapAttempt resolving to %s fails the call with a TypeError naming the plugin", async (_label, value) => {
    const store = clientWith({
      name: "garbled",
      wrapAttempt: async (_attempt, next) => (await next(), value as never),
    });
    await expect(store.users.retrieve(1)).rejects.toThrow(
      /^the plugin "garbled" resolved wrapAttempt to .*; resolve to what next\(\) resolved to, or an outcome with a response or an error\.$/,
    );
  });

  it.each([
    ["undefined", undefined],
    ["a number", 42],
  ])("wrapCall resolving to %s fails the call with a TypeError naming the plugin", async (_label, value) => {
    const store = clientWith({ name: "swallower", wrapCall: async (_call, next) => (await next(), value as never) });
    await expect(store.users.retrieve(1)).rejects.toThrow(
      /^the plugin "swallower" resolved wrapCall to .*; resolve to what next\(\) resolved to\.$/,
    );
  });

  it("a header a plugin may not set is refused naming that plugin only, before anything is sent", async () => {
    const before = server.requests.length;
    const polite: StoreAdminPlugin = {
      name: "polite",
      wrapAttempt: (attempt, next) => (attempt.headers.set("x-polite", "1"), next()),
    };
    const stealing: StoreAdminPlugin = {
      name: "stealing",
      wrapAttempt: (attempt, next) => (attempt.headers.set("Authorization", "Bearer mine"), next()),
    };
    await expect(clientWith(polite, stealing).users.retrieve(1)).rejects.toThrow(
      'the plugin "stealing" may not set authorization: the client sets it from accessToken.',
    );
    expect(server.requests.length).toBe(before);
  });
});
