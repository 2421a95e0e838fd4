/**
 * The one loader of what loads on first use (src/core/load-once.ts, used by the MCP server's
 * contract checker, code mode's module and its server, and the telemetry plugin's instruments):
 * callers share one load, a loaded value is kept, and a failed load is not: the next call tries
 * again.
 */
import { trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { loadOnce } from "../../src/core/load-once.js";
import { createStoreAdminClient } from "../../src/index.js";
import { telemetry } from "../../src/plugins/index.js";

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

describe("the telemetry plugin's load", () => {
  it("fails the call whose load failed, and loads again on the next call", async () => {
    let requests = 0;
    let tracers = 0;
    // A tracer provider that is not ready the first time: the instruments' load fails with its error.
    const tracerProvider = {
      getTracer(...args: Parameters<ReturnType<typeof trace.getTracerProvider>["getTracer"]>) {
        if (++tracers === 1) throw new Error("tracer provider not ready");
        return trace.getTracerProvider().getTracer(...args);
      },
    };
    const store = createStoreAdminClient({
      apiUrl: "https://shop.example.com/api/admin",
      accessToken: "sk_test_load_once",
      maxRetries: 0,
      fetch: async () => (
        requests++, new Response(JSON.stringify({ id: 7 }), { headers: { "content-type": "application/json" } })
      ),
      plugins: [telemetry({ tracerProvider })],
    });
    await expect(store.GET("/users/{id}/", { params: { path: { id: 7 } } })).rejects.toThrow(
      "tracer provider not ready",
    );
    expect(requests).toBe(0);
    const { data } = await store.GET("/users/{id}/", { params: { path: { id: 7 } } });
    expect(data).toMatchObject({ id: 7 });
    expect(requests).toBe(1);
    expect(tracers).toBe(2);
    await store.GET("/users/{id}/", { params: { path: { id: 7 } } });
    expect(tracers).toBe(2);
  });
});
