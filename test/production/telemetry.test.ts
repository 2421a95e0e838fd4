/**
 * OpenTelemetry, with the real SDK: `@opentelemetry/sdk-trace-base` (in-memory exporter),
 * `@opentelemetry/sdk-metrics` (a reader collected by hand), the W3C propagator and the
 * AsyncLocalStorage context manager registered as an application does. Requests go to a real
 * server on 127.0.0.1, which records the `traceparent` of each attempt and echoes the token
 * back. Attribute names are checked against `@opentelemetry/semantic-conventions`, with and
 * without `@opentelemetry/instrumentation-undici` registered.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type DataPoint,
  type Histogram,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_RESEND_COUNT,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  ATTR_URL_SCHEME,
  METRIC_HTTP_CLIENT_REQUEST_DURATION,
} from "@opentelemetry/semantic-conventions";
import { ATTR_URL_TEMPLATE } from "@opentelemetry/semantic-conventions/incubating";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createStoreAdminClient,
  NotFoundError,
  type StoreAdminClient,
  type StoreAdminPlugin,
  type TelemetryOptions,
} from "../../src/index.js";
import { telemetry } from "../../src/plugins/index.js";
import { startFaultServer, TEST_TOKEN, type FaultServer } from "../helpers/fault-server.js";

/** A metric reader the test collects when it wants (no timer). */
class ManualReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override onForceFlush = async (): Promise<void> => undefined;
  protected override onShutdown = async (): Promise<void> => undefined;
}

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let reader: ManualReader;
let meterProvider: MeterProvider;
let server: FaultServer;
let contextManager: AsyncLocalStorageContextManager;

beforeAll(async () => {
  contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  // A server that echoes the token: in a header, in the body.
  server = await startFaultServer((request) => ({
    body: { id: 42, echo: request.headers.authorization },
    headers: { "x-echo": String(request.headers.authorization) },
  }));
});

afterAll(async () => {
  await server.close();
  context.disable();
  propagation.disable();
});

beforeEach(() => {
  exporter.reset();
  reader = new ManualReader();
  meterProvider = new MeterProvider({ readers: [reader] });
  server.requests.length = 0;
});

/** A client with the `telemetry()` plugin (`telemetry: true`: the global providers). */
const client = ({
  telemetry: option,
  ...overrides
}: Record<string, unknown> & { telemetry?: TelemetryOptions | true } = {}): StoreAdminClient =>
  createStoreAdminClient({
    apiUrl: server.url,
    accessToken: TEST_TOKEN,
    plugins: [telemetry(option === true ? {} : (option ?? { tracerProvider, meterProvider }))],
    ...overrides,
  } as Parameters<typeof createStoreAdminClient>[0]);

const spans = (kind: SpanKind): ReadableSpan[] => exporter.getFinishedSpans().filter((span) => span.kind === kind);

async function durationPoints(): Promise<Array<DataPoint<Histogram>>> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .filter((metric) => metric.descriptor.name === METRIC_HTTP_CLIENT_REQUEST_DURATION)
    .flatMap((metric) => metric.dataPoints as Array<DataPoint<Histogram>>);
}

/** The traceparent each request carried, and what it must be for `span`. */
const traceparentOf = (span: ReadableSpan): string =>
  `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;

describe("telemetry: spans", () => {
  it("one INTERNAL span per call, named after the method, with one CLIENT child per attempt carrying the conventions' attributes", async () => {
    const user = await client().users.retrieve(42);
    expect(user.id).toBe(42);
    const [internal, ...moreInternal] = spans(SpanKind.INTERNAL);
    const [attempt, ...moreClient] = spans(SpanKind.CLIENT);
    expect(moreInternal).toHaveLength(0);
    expect(moreClient).toHaveLength(0);
    expect(internal!.name).toBe("users.retrieve");
    expect(internal!.attributes).toEqual({
      "store_admin.operation_id": "getUser",
      "store_admin.api_version": "2024-04-01",
    });
    expect(internal!.status.code).toBe(SpanStatusCode.UNSET);
    expect(attempt!.name).toBe("GET /users/{id}/");
    expect(attempt!.parentSpanContext?.spanId).toBe(internal!.spanContext().spanId);
    const port = Number(new URL(server.url).port);
    expect(attempt!.attributes).toEqual({
      [ATTR_HTTP_REQUEST_METHOD]: "GET",
      [ATTR_SERVER_ADDRESS]: "127.0.0.1",
      [ATTR_SERVER_PORT]: port,
      [ATTR_URL_SCHEME]: "http",
      [ATTR_URL_FULL]: `${server.url}/users/42/`,
      [ATTR_URL_TEMPLATE]: "/users/{id}/",
      [ATTR_HTTP_RESPONSE_STATUS_CODE]: 200,
    });
    expect(server.requests[0]!.headers.traceparent).toBe(traceparentOf(attempt!));
  });

  it("network.protocol.version where the runtime records the protocol (a browser's resource timing), and none where it does not (Node's fetch)", async () => {
    // Node's fetch records a resource timing entry per request, with no protocol: the first test's span has no version.
    const entries = vi
      .spyOn(performance, "getEntriesByName")
      .mockImplementation((name) =>
        name === `${server.url}/users/42/` ? [{ nextHopProtocol: "h2" } as unknown as PerformanceEntry] : [],
      );
    try {
      await client().users.retrieve(42);
    } finally {
      entries.mockRestore();
    }
    const [attempt] = spans(SpanKind.CLIENT);
    expect(attempt!.attributes[ATTR_NETWORK_PROTOCOL_VERSION]).toBe("2");
    const [point] = await durationPoints();
    expect(point!.attributes[ATTR_NETWORK_PROTOCOL_VERSION]).toBe("2");
    exporter.reset();
    await client().users.retrieve(42);
    expect(spans(SpanKind.CLIENT)[0]!.attributes).not.toHaveProperty(ATTR_NETWORK_PROTOCOL_VERSION);
  });

  it("an attempt held by the client's pause after a 429 says how long it waited", async () => {
    const store = client();
    server.enqueue({ status: 429, headers: { "retry-after": "0.3" }, body: { detail: "Slow down." } });
    const first = store.users.retrieve(1, { maxRetries: 0 }).catch((error: unknown) => error);
    expect(await first).toMatchObject({ name: "RateLimitError" });
    exporter.reset();
    await store.users.retrieve(42);
    const [attempt] = spans(SpanKind.CLIENT);
    expect(attempt!.attributes["store_admin.rate_pause.waited_ms"]).toBeGreaterThan(0);
    exporter.reset();
    await store.users.retrieve(42);
    expect(spans(SpanKind.CLIENT)[0]!.attributes).not.toHaveProperty("store_admin.rate_pause.waited_ms");
  });

  it("a plugin's own wait before the attempt is no pause: the attribute counts the 429 pause's wait only", async () => {
    const slow: StoreAdminPlugin = {
      name: "slow",
      wrapAttempt: async (_attempt, next) => (await new Promise((resolve) => setTimeout(resolve, 30)), next()),
    };
    const store = createStoreAdminClient({
      apiUrl: server.url,
      accessToken: TEST_TOKEN,
      plugins: [slow, telemetry({ tracerProvider, meterProvider })],
    });
    exporter.reset();
    await store.users.retrieve(42);
    expect(spans(SpanKind.CLIENT)[0]!.attributes).not.toHaveProperty("store_admin.rate_pause.waited_ms");
  });

  it("a path-style call gets the operation's method name too, and the caller's active span is its parent", async () => {
    const outer = tracerProvider.getTracer("app").startSpan("sync job");
    await context.with(trace.setSpan(context.active(), outer), () =>
      client().GET("/users/{id}/", { params: { path: { id: 42 } } }),
    );
    outer.end();
    const [internal] = spans(SpanKind.INTERNAL).filter((span) => span.name !== "sync job");
    expect(internal!.name).toBe("users.retrieve");
    expect(internal!.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
  });

  it("a retried 503: a CLIENT span per attempt (resend count, error.type), the wait as an event, a traceparent per attempt", async () => {
    server.enqueue({ status: 503, body: { detail: "busy" }, headers: { "retry-after": "0" } });
    await client().users.retrieve(42);
    const [internal] = spans(SpanKind.INTERNAL);
    const [first, second] = spans(SpanKind.CLIENT);
    expect(spans(SpanKind.CLIENT)).toHaveLength(2);
    expect(first!.attributes[ATTR_ERROR_TYPE]).toBe("503");
    expect(first!.attributes[ATTR_HTTP_RESPONSE_STATUS_CODE]).toBe(503);
    expect(first!.status.code).toBe(SpanStatusCode.ERROR);
    expect(first!.attributes[ATTR_HTTP_REQUEST_RESEND_COUNT]).toBeUndefined();
    expect(second!.attributes[ATTR_HTTP_REQUEST_RESEND_COUNT]).toBe(1);
    expect(second!.status.code).toBe(SpanStatusCode.UNSET);
    expect(internal!.events.map((event) => [event.name, event.attributes])).toEqual([
      ["retry", { "store_admin.retry.delay_ms": 0, "http.response.header.retry-after": ["0"] }],
    ]);
    expect(internal!.status.code).toBe(SpanStatusCode.UNSET);
    expect(server.requests.map((request) => request.headers.traceparent)).toEqual([
      traceparentOf(first!),
      traceparentOf(second!),
    ]);
  });

  it("a failed call: status ERROR with error.type, the status code for a 4xx, the error's name when there is no response", async () => {
    server.enqueue({ status: 404, body: { detail: "Not found." } });
    await expect(client().users.retrieve(7)).rejects.toBeInstanceOf(NotFoundError);
    const [internal] = spans(SpanKind.INTERNAL);
    expect(internal!.status.code).toBe(SpanStatusCode.ERROR);
    expect(internal!.attributes[ATTR_ERROR_TYPE]).toBe("404");

    exporter.reset();
    server.enqueue({ destroy: true });
    await expect(client({ maxRetries: 0 }).users.retrieve(7)).rejects.toThrow();
    const [broken] = spans(SpanKind.INTERNAL);
    const [attempt] = spans(SpanKind.CLIENT);
    expect(broken!.attributes[ATTR_ERROR_TYPE]).toBe("ConnectionError");
    expect(attempt!.attributes[ATTR_ERROR_TYPE]).toBe("ConnectionError");
    expect(attempt!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("`telemetry: true` uses the global providers", async () => {
    trace.setGlobalTracerProvider(tracerProvider);
    try {
      await client({ telemetry: true }).users.retrieve(42);
      expect(spans(SpanKind.INTERNAL).map((span) => span.name)).toEqual(["users.retrieve"]);
    } finally {
      trace.disable();
    }
  });

  it("telemetry() with options of another shape is a TypeError naming them, and the client option is refused naming the plugin", async () => {
    expect(() => telemetry("yes" as never)).toThrow(
      /telemetry\(\) takes \{ tracerProvider\?, meterProvider\?, attributes\? \}/,
    );
    expect(() =>
      createStoreAdminClient({ apiUrl: server.url, accessToken: TEST_TOKEN, telemetry: true } as never),
    ).toThrow(/telemetry is no longer a client option: import \{ telemetry \} from "store-admin-sdk\/plugins"/);
    expect(server.requests).toHaveLength(0);
  });
});

describe("telemetry: the duration histogram", () => {
  it("one point per attempt, in seconds, with the conventions' attributes", async () => {
    server.enqueue({ status: 503, body: { detail: "busy" }, headers: { "retry-after": "0" } });
    await client().users.retrieve(42);
    const points = await durationPoints();
    expect(points.map((point) => point.value.count)).toEqual([1, 1]);
    const port = Number(new URL(server.url).port);
    const base = {
      [ATTR_HTTP_REQUEST_METHOD]: "GET",
      [ATTR_SERVER_ADDRESS]: "127.0.0.1",
      [ATTR_SERVER_PORT]: port,
      [ATTR_URL_SCHEME]: "http",
      [ATTR_URL_TEMPLATE]: "/users/{id}/",
    };
    expect(points.map((point) => point.attributes)).toEqual([
      { ...base, [ATTR_HTTP_RESPONSE_STATUS_CODE]: 503, [ATTR_ERROR_TYPE]: "503" },
      { ...base, [ATTR_HTTP_RESPONSE_STATUS_CODE]: 200 },
    ]);
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((m) => m.descriptor.name === METRIC_HTTP_CLIENT_REQUEST_DURATION);
    expect(metric!.descriptor.unit).toBe("s");
  });
});

describe("telemetry: the token", () => {
  it("appears in no attribute, event or metric, though the server echoes it", async () => {
    server.enqueue({
      status: 503,
      body: { detail: `bad ${TEST_TOKEN}` },
      headers: { "retry-after": "0", "x-echo": TEST_TOKEN },
    });
    await client().users.retrieve(42);
    server.enqueue({ status: 404, body: { detail: `no ${TEST_TOKEN}` } });
    await client()
      .users.retrieve(7)
      .catch(() => undefined);
    const recorded = JSON.stringify({
      spans: exporter
        .getFinishedSpans()
        .map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status })),
      metrics: (await reader.collect()).resourceMetrics,
    });
    expect(recorded).toContain("users.retrieve");
    expect(recorded).not.toContain(TEST_TOKEN);
  });
});

describe("telemetry: the token echoed where a recorded value comes from", () => {
  /** A token as a refresh function hands it out: the one the call carries, not one the client was created with. */
  const ROTATED = "tok_rotated_0123456789abcdef";
  /** The token as it is, upper-cased and in base64: none may be recorded. */
  const forms = (token: string): string[] => [token, token.toUpperCase(), btoa(token)];

  /** Everything the in-memory exporters hold, as JSON. */
  async function recorded(): Promise<string> {
    return JSON.stringify({
      spans: exporter.getFinishedSpans().map((span) => ({
        name: span.name,
        attributes: span.attributes,
        events: span.events,
        status: span.status,
        links: span.links,
      })),
      metrics: (await reader.collect()).resourceMetrics,
    });
  }

  for (const [label, token, overrides] of [
    ["a fixed token", TEST_TOKEN, {}],
    ["a token from a refresh function", ROTATED, { accessToken: async () => ROTATED }],
  ] as const) {
    it(`${label}: in a next cursor, Retry-After, x-request-id, an error body and a Location, it is recorded nowhere`, async () => {
      const store = client(overrides);
      // paginate() follows the cursors the server chose: the token, upper-cased, in base64.
      const page = (cursor: string | null) => ({
        body: {
          next: cursor === null ? null : `${server.url}/users/?cursor=${encodeURIComponent(cursor)}`,
          previous: null,
          results: [{ id: 1 }],
        },
      });
      server.enqueue(page(token), page(token.toUpperCase()), page(btoa(token)), page(null));
      const users = [];
      for await (const user of store.users.list()) users.push(user);
      expect(users).toHaveLength(4);
      expect(server.requests.map((request) => request.query.get("cursor"))).toEqual([
        null,
        token,
        token.toUpperCase(),
        btoa(token),
      ]);
      // The waits before retries, with the token in Retry-After (the retry event records the header).
      server.enqueue(
        { status: 429, body: { detail: "slow down" }, headers: { "retry-after": `0, ${token}` } },
        { status: 503, body: { detail: "busy" }, headers: { "retry-after": `0, ${btoa(token)}` } },
        { body: { id: 42 }, headers: { "x-request-id": `rid-${token}`, "request-id": token } },
      );
      await store.users.retrieve(42);
      // A failure whose body and request id carry it, and a redirect to it.
      server.enqueue({
        status: 404,
        body: { detail: `no ${token}` },
        headers: { "x-request-id": token.toUpperCase() },
      });
      await expect(store.users.retrieve(7)).rejects.toBeInstanceOf(NotFoundError);
      server.enqueue({ status: 302, headers: { location: `${server.url}/users/?cursor=${token}` } });
      await expect(store.users.retrieve(8)).rejects.toThrow();

      const all = await recorded();
      expect(spans(SpanKind.CLIENT)).toHaveLength(9);
      expect(spans(SpanKind.INTERNAL).flatMap((span) => span.events.map((event) => event.name))).toEqual([
        "retry",
        "retry",
      ]);
      expect(spans(SpanKind.CLIENT)[1]!.attributes[ATTR_URL_FULL]).toBe(`${server.url}/users/?cursor=[REDACTED]`);
      for (const form of forms(token)) expect(all).not.toContain(form);
    });
  }
});

describe("telemetry with @opentelemetry/instrumentation-undici registered", () => {
  let undici: UndiciInstrumentation;
  beforeEach(() => {
    undici = new UndiciInstrumentation();
    undici.setTracerProvider(tracerProvider);
    undici.setMeterProvider(meterProvider);
    undici.enable();
  });
  afterEach(() => undici.disable());

  it("the instrumentation sees the SDK's requests (the setup is live)", async () => {
    await fetch(`${server.url}/plain/`);
    expect(spans(SpanKind.CLIENT).map((span) => span.instrumentationScope.name)).toEqual([
      "@opentelemetry/instrumentation-undici",
    ]);
    exporter.reset();
  });

  it("one attempt still makes one CLIENT span (the SDK's) and one histogram point, and the SDK's traceparent", async () => {
    server.enqueue({ status: 503, body: { detail: "busy" }, headers: { "retry-after": "0" } });
    await client().users.retrieve(42);
    const client_ = spans(SpanKind.CLIENT);
    expect(client_.map((span) => [span.name, span.instrumentationScope.name])).toEqual([
      ["GET /users/{id}/", "store-admin-sdk"],
      ["GET /users/{id}/", "store-admin-sdk"],
    ]);
    expect(server.requests.map((request) => request.headers.traceparent)).toEqual(client_.map(traceparentOf));
    const points = await durationPoints();
    expect(points.map((point) => point.value.count)).toEqual([1, 1]);
  });
});

describe("telemetry: bulk runs", () => {
  it("a span per run with its id and counts; each item's call is its child", async () => {
    const { runBulk } = await import("../../src/bulk/index.js");
    server.enqueue({ body: { id: 1 } }, { status: 404, body: { detail: "Not found." } }, { body: { id: 3 } });
    const report = await runBulk({
      client: client(),
      runId: "nightly-7",
      items: [1, 2, 3],
      key: (id) => String(id),
      concurrency: 1,
      task: (id, { client: store }) => store.users.retrieve(id),
    });
    expect(report).toMatchObject({ done: 2, failed: 1 });
    const [run, ...others] = exporter.getFinishedSpans().filter((span) => span.name === "bulk.run");
    expect(others).toHaveLength(0);
    expect(run!.attributes).toEqual({
      "store_admin.bulk.run_id": "nightly-7",
      "store_admin.bulk.done": 2,
      "store_admin.bulk.failed": 1,
      "store_admin.bulk.skipped": 0,
      "store_admin.bulk.in_doubt": 0,
    });
    const calls = spans(SpanKind.INTERNAL).filter((span) => span.name === "users.retrieve");
    expect(calls).toHaveLength(3);
    for (const call of calls) expect(call.parentSpanContext?.spanId).toBe(run!.spanContext().spanId);
  });
});
