/**
 * Traces across the queue, with the real OpenTelemetry SDK on both sides: the producer (this
 * process: the in-memory exporter, the W3C propagator and the AsyncLocalStorage context manager
 * registered as an application does) adds items with `telemetry`; worker processes whose
 * client has `telemetry` print their finished spans. Each item's call must be a child of the
 * producer's `bulk.add` span, in its trace; a job's `trace` field that is not a trace context
 * must be ignored (the item runs once, in a new trace); the token must be in no span and nowhere
 * in Redis, with a server that echoes it back.
 */
import { join } from "node:path";
import { context, propagation, SpanKind } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBulkQueue } from "../../src/bulk/bullmq/index.js";
import type * as BullmqEntry from "../../src/bulk/bullmq/index.js";
import { carrierOf } from "../../src/bulk/bullmq/job-trace.js";
import { ensureBuilt, ROOT } from "../package/tarball.js";
import type { PrintedSpan, TestItem } from "./fixtures/worker.js";
import { until, useQueueEnvironment } from "./helpers/environment.js";
import { keysHolding } from "./helpers/redis-scan.js";
import type { WorkerProcess } from "./helpers/workers.js";

const TOKEN = "sk_live_trace_token_5e0c1d2a9b";
const env = useQueueEnvironment(TOKEN);

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(() => {
  context.disable();
  propagation.disable();
});

const byId = (item: TestItem): string => String(item.id);
const printed = (workers: readonly WorkerProcess[]): PrintedSpan[] =>
  workers.flatMap((worker) => worker.messages.flatMap((message) => (message.span ? [message.span] : [])));
const internal = (spans: readonly PrintedSpan[]): PrintedSpan[] =>
  spans.filter((span) => span.kind === SpanKind.INTERNAL);
const traceparentOf = (span: { traceId: string; spanId: string }): string => `00-${span.traceId}-${span.spanId}-01`;

/** The data of each job of `queue`, by key, as Redis holds it. */
async function jobData(queue: string, keys: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
  const redis = new Redis({ host: "127.0.0.1", port: env.redis.port });
  try {
    const data = await Promise.all(keys.map((key) => redis.hget(`bull:${queue}:key-${key}`, "data")));
    return new Map(keys.map((key, i) => [key, JSON.parse(data[i]!) as Record<string, unknown>]));
  } finally {
    redis.disconnect();
  }
}

/** Adds `items` with `bulk` inside an active span of the application's: `bulk.add` must be its child. */
async function addTraced(
  bulk: Pick<BullmqEntry.BulkQueue<TestItem>, "add">,
  items: TestItem[],
): Promise<{ outer: ReadableSpan; add: ReadableSpan }> {
  const outer = await tracerProvider.getTracer("app").startActiveSpan("import cards", async (span) => {
    expect(await bulk.add(items, { key: byId })).toBe(items.length);
    span.end();
    return span.spanContext().spanId;
  });
  const finished = exporter.getFinishedSpans();
  return {
    outer: finished.find((span) => span.spanContext().spanId === outer)!,
    add: finished.find((span) => span.name === "bulk.add" && span.parentSpanContext?.spanId === outer)!,
  };
}

/** Every INTERNAL span printed is a call of one item, a child of `add`; each CLIENT span's `traceparent` reached the server. */
function expectJoined(spans: readonly PrintedSpan[], add: ReadableSpan, calls: number): void {
  const { traceId, spanId } = add.spanContext();
  const callSpans = internal(spans);
  expect(callSpans).toHaveLength(calls);
  for (const call of callSpans)
    expect({ name: call.name, traceId: call.traceId, parentSpanId: call.parentSpanId }).toEqual({
      name: call.name,
      traceId,
      parentSpanId: spanId,
    });
  const attempts = spans.filter((span) => span.kind === SpanKind.CLIENT);
  expect(attempts).toHaveLength(calls);
  for (const attempt of attempts) expect(callSpans.map((call) => call.spanId)).toContain(attempt.parentSpanId);
  expect(env.server.requests.map((request) => request.traceparent).sort()).toEqual(attempts.map(traceparentOf).sort());
}

describe("what a worker takes from a job's `trace` field", () => {
  it("a traceparent (and tracestate) of strings within the W3C lengths; anything else, nothing", () => {
    const traceparent = `00-${"ab".repeat(16)}-${"cd".repeat(8)}-01`;
    expect(carrierOf({ traceparent })).toEqual({ traceparent });
    expect(carrierOf({ traceparent, tracestate: "a=1", baggage: "b=2" })).toEqual({ traceparent, tracestate: "a=1" });
    expect(carrierOf({ traceparent: "x".repeat(256) })).toEqual({ traceparent: "x".repeat(256) });
    expect(carrierOf({ traceparent, tracestate: "t".repeat(512) })).toEqual({
      traceparent,
      tracestate: "t".repeat(512),
    });
    for (const field of [
      undefined,
      null,
      42,
      traceparent,
      [traceparent],
      { traceparent: 5 },
      { traceparent: "x".repeat(257) },
      { traceparent, tracestate: 1 },
      { traceparent, tracestate: "t".repeat(513) },
    ]) {
      expect(carrierOf(field), JSON.stringify(field)?.slice(0, 80)).toEqual({});
    }
  });
});

describe("the queue's telemetry option", () => {
  it("is refused, named, when it is neither a boolean nor an object", () => {
    const connection = { host: "127.0.0.1", port: 1 };
    for (const [telemetry, got] of [
      ["yes", "string"],
      [1, "number"],
      [null, "null"],
    ] as const) {
      expect(() => createBulkQueue({ name: "ok", connection, telemetry: telemetry as never })).toThrow(
        `createBulkQueue(): telemetry must be true, false or { tracerProvider? }, got ${got}.`,
      );
    }
  });
});

describe("a trace across the queue", () => {
  it("each item's call in a worker process is a child of the producer's bulk.add span, in its trace; the token is in no span and nowhere in Redis", async () => {
    const { server } = env;
    server.reset();
    // The server echoes the token in every answer, header and body.
    server.answer(({ key }) => ({ body: { id: Number(key), echo: `Bearer ${TOKEN}` }, headers: { "x-echo": TOKEN } }));
    exporter.reset();
    const bulk = env.queue("trace-joined", { telemetry: { tracerProvider } });
    const items: TestItem[] = [
      { id: 1, method: "GET", gets: 1 },
      { id: 2, method: "GET" },
      { id: 3, method: "PATCH" },
      { id: 4, method: "POST" },
      { id: 5, method: "PUT" },
    ];
    const workers = await env.startWorkers("trace-joined", 2, { TRACE: "1" });
    const { outer, add } = await addTraced(bulk, items);
    await env.settled(bulk, items.length);
    const calls = items.length + 1;
    await until(() => internal(printed(workers)).length >= calls, 10_000, "the workers' call spans");
    await Promise.all(workers.map((worker) => worker.kill("SIGTERM")));

    // The producer's span: PRODUCER, a child of the span active at add(), with the run id and the count.
    expect(add.kind).toBe(SpanKind.PRODUCER);
    expect(add.spanContext().traceId).toBe(outer.spanContext().traceId);
    expect(add.attributes).toEqual({
      "store_admin.bulk.run_id": "trace-joined",
      "store_admin.bulk.added": items.length,
    });
    // One call per request at the server, each key once (item 1: two GETs); every call joined.
    expect(server.requests).toHaveLength(calls);
    expect([...server.countByKey()].sort()).toEqual([
      ["1", 2],
      ["2", 1],
      ["3", 1],
      ["4", 1],
      ["5", 1],
    ]);
    const spans = printed(workers);
    expectJoined(spans, add, calls);
    expect(workers.flatMap((worker) => worker.messages.filter((message) => message.error))).toEqual([]);

    // Each job's data: the key, the item and the add's trace context, nothing else.
    for (const [key, data] of await jobData("trace-joined", items.map(byId))) {
      expect(data, key).toEqual({
        key,
        item: items.find((item) => byId(item) === key),
        trace: { traceparent: traceparentOf(add.spanContext()) },
      });
    }
    expect(
      JSON.stringify([
        ...spans,
        ...exporter.getFinishedSpans().map((span) => ({ attributes: span.attributes, events: span.events })),
      ]),
    ).not.toContain(TOKEN);
    const redis = new Redis({ host: "127.0.0.1", port: env.redis.port });
    try {
      const scan = await keysHolding(redis, TOKEN);
      expect(scan.scanned).toBeGreaterThan(items.length);
      expect(scan.found).toEqual([]);
    } finally {
      redis.disconnect();
    }
  }, 60_000);

  it("the job data has `trace` with the producer's telemetry only; a worker without telemetry runs such jobs as before", async () => {
    const { server } = env;
    server.reset();
    const items: TestItem[] = [1, 2, 3].map((id) => ({ id, method: "GET" }));
    const plain = env.queue("trace-absent");
    await plain.add(items, { key: byId });
    for (const [key, data] of await jobData("trace-absent", items.map(byId)))
      expect(Object.keys(data).sort(), key).toEqual(["item", "key"]);

    const traced = env.queue("trace-untraced-worker", { telemetry: { tracerProvider } });
    const { add } = await addTraced(traced, items);
    for (const [key, data] of await jobData("trace-untraced-worker", items.map(byId)))
      expect(data.trace, key).toEqual({ traceparent: traceparentOf(add.spanContext()) });
    const workers = await env.startWorkers("trace-untraced-worker", 1);
    await env.settled(traced, items.length);
    await Promise.all(workers.map((worker) => worker.kill("SIGTERM")));
    expect(await traced.status()).toMatchObject({ done: 3, failed: 0, inDoubt: 0 });
    expect([...server.countByKey()].sort()).toEqual([
      ["1", 1],
      ["2", 1],
      ["3", 1],
    ]);
    // A client without telemetry sends no traceparent, and the worker printed no span and no error.
    expect(server.requests.map((request) => request.traceparent)).toEqual([undefined, undefined, undefined]);
    expect(workers[0]!.messages.filter((message) => !message.ready)).toEqual([]);
  }, 60_000);

  it("a `trace` field that is not a trace context is ignored: the item runs once, in a new trace; a valid one beside it is joined", async () => {
    const { server } = env;
    server.reset();
    const valid = { traceId: "ab".repeat(16), spanId: "cd".repeat(8) };
    const validParent = traceparentOf(valid);
    // What another producer, or anyone writing to Redis, may have put there.
    const garbage: unknown[] = [
      validParent,
      42,
      null,
      [validParent],
      { traceparent: 5 },
      { traceparent: "garbage-traceparent" },
      { traceparent: `00-${"0".repeat(32)}-${"0".repeat(16)}-01` },
      { traceparent: `${validParent}\r\nx-injected: 1` },
      { traceparent: `${validParent}-${"x".repeat(1_000_000)}` },
      { traceparent: validParent, tracestate: { evil: "value" } },
      { traceparent: validParent, tracestate: `evil=${"y".repeat(100_000)}` },
    ];
    const jobs = [
      { trace: { traceparent: validParent, tracestate: "vendor=ok" }, id: 100 },
      ...garbage.map((trace, i) => ({ trace, id: 101 + i })),
    ];
    const queue = new Queue("trace-garbage", { connection: { host: "127.0.0.1", port: env.redis.port } });
    try {
      await queue.addBulk(
        jobs.map(({ trace: field, id }) => ({
          name: "task",
          data: { key: String(id), item: { id, method: "GET" }, trace: field },
          opts: { jobId: `key-${id}` },
        })),
      );
    } finally {
      await queue.close();
    }
    const bulk = env.queue("trace-garbage");
    const workers = await env.startWorkers("trace-garbage", 1, { TRACE: "1" });
    await env.settled(bulk, jobs.length);
    await until(() => internal(printed(workers)).length >= jobs.length, 10_000, "the worker's call spans");
    await Promise.all(workers.map((worker) => worker.kill("SIGTERM")));

    expect(await bulk.status()).toMatchObject({ done: jobs.length, failed: 0, inDoubt: 0 });
    expect(server.requests).toHaveLength(jobs.length);
    expect([...server.countByKey().values()].every((count) => count === 1)).toBe(true);
    const spans = printed(workers);
    const callOf = (id: number): PrintedSpan =>
      internal(spans).find((span) =>
        spans.some(
          (attempt) =>
            attempt.parentSpanId === span.spanId && String(attempt.attributes["url.full"]).endsWith(`/users/${id}/`),
        ),
      )!;
    // The valid context: joined.
    expect(callOf(100)).toMatchObject({ traceId: valid.traceId, parentSpanId: valid.spanId });
    // Each garbage field: a root span of a new trace, whose own context went to the server.
    for (const { id } of jobs.slice(1)) {
      const call = callOf(id);
      expect({ id, parentSpanId: call.parentSpanId }).toEqual({ id, parentSpanId: undefined });
      expect(call.traceId).not.toBe(valid.traceId);
      expect(server.requests.find((request) => request.key === String(id))!.traceparent).toMatch(
        new RegExp(`^00-${call.traceId}-[0-9a-f]{16}-01$`),
      );
    }
    // Nothing of the garbage reached a span or the server.
    const seen = JSON.stringify([spans, server.requests]);
    for (const fragment of ["garbage", "x-injected", "xxxxxxxx", "yyyyyyyy", "evil"])
      expect(seen, fragment).not.toContain(fragment);
    expect(workers[0]!.messages.filter((message) => message.error)).toEqual([]);
  }, 60_000);

  it("the built package (dist/): a traced producer and a traced worker process join the trace", async () => {
    await ensureBuilt();
    const { server } = env;
    server.reset();
    exporter.reset();
    const built = (await import(join(ROOT, "dist", "src", "bulk", "bullmq", "index.js"))) as typeof BullmqEntry;
    const bulk = built.createBulkQueue<TestItem>({
      name: "trace-dist",
      connection: { host: "127.0.0.1", port: env.redis.port },
      telemetry: { tracerProvider },
    });
    try {
      const items: TestItem[] = [1, 2, 3].map((id) => ({ id, method: "GET" }));
      const workers = await env.startWorkers("trace-dist", 1, { TRACE: "1", SDK: "dist" });
      const { add } = await addTraced(bulk, items);
      await env.settled(bulk, items.length);
      await until(() => internal(printed(workers)).length >= items.length, 10_000, "the worker's call spans");
      await Promise.all(workers.map((worker) => worker.kill("SIGTERM")));
      expect([...server.countByKey()].sort()).toEqual([
        ["1", 1],
        ["2", 1],
        ["3", 1],
      ]);
      expectJoined(printed(workers), add, items.length);
    } finally {
      await bulk.close();
    }
  }, 120_000);
});
