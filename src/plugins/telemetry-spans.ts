/**
 * OpenTelemetry traces and metrics, for the `telemetry()` plugin (telemetry.ts) and the bulk
 * queue's `telemetry` option; this module imports `@opentelemetry/api`, an optional peer
 * dependency, on demand. The shape follows the stable HTTP client semantic
 * conventions and their retry example (https://opentelemetry.io/docs/specs/semconv/http/http-spans/):
 *
 * - one INTERNAL span per logical call, named after the operation's method (`users.retrieve`),
 *   with its `operationId` and the API version; a wait before a retry is an event on it;
 * - one CLIENT span per attempt, its child, named `GET /users/{id}/`, with the conventions'
 *   attributes, and the W3C `traceparent` of that span on the attempt's request;
 * - the histogram `http.client.request.duration` (seconds), one point per attempt.
 *
 * Nothing the SDK records holds a body or a request header. Every recorded string that a
 * server or a URL can put text in (`url.full` with the cursor a server chose, `server.address`,
 * `error.type`, the `Retry-After` of the retry event, clipped and without control characters)
 * goes through the SDK's one redaction (core/redact.ts) with every token the client's source
 * handed out, as the errors and log events do, so no token is in an attribute, event or metric.
 * The `attributes` option's fixed attributes are on every span, event and metric point.
 */
import type * as OpenTelemetry from "@opentelemetry/api";
import type { Attributes, Histogram, Span } from "@opentelemetry/api";
import { spanNames } from "../../generated/span-names.js";
import type { clip as clipText, redact as redactText, ContractDrift, TelemetryOptions } from "#shared";

/** What the call lifecycle (request.ts) tells the telemetry of one call. */
export interface CallTelemetry {
  /**
   * Sends one attempt's request (`send`) under its CLIENT span, with its `traceparent`; `attempt`
   * counts from 1. `secrets` (the token the call carries) are scrubbed from what the call records.
   * `pausedMs`: how long the attempt waited in the client's pause after a 429 (0: it did not).
   */
  attempt<Sent>(
    attempt: number,
    request: { url: string; method: string; headers: Headers },
    secrets: readonly string[],
    send: () => Promise<Sent>,
    pausedMs: number,
  ): Promise<Sent>;
  /** Ends the attempt's span (when one was started): the response whose body was read, or what the attempt threw. */
  attemptEnd(response: Response | undefined, error: unknown): void;
  /** The wait before the next attempt, and the server's `Retry-After` when it sent one. */
  retry(delayMs: number, retryAfter: string | null | undefined): void;
  /** A 2xx body that does not match the contract (`validateResponses()`): its drifts as events on the call's span, one count. */
  drift(drifts: readonly ContractDrift[]): void;
  /** Attributes a plugin added to the call (`call.attributes`): on the call's span, and on the attempts from now on. */
  add(attributes: Attributes): void;
  /** Ends the call's span when `result` settles (an error status or a rejection is a failure); returns `result`. */
  end<Result extends { response: Response }>(result: Promise<Result>): Promise<Result>;
}

/** What the bulk runner tells the telemetry of one run. */
export interface RunTelemetry {
  /** Runs `task` with the run's span active: the calls it makes are the span's children. */
  within<Result>(task: () => Result): Result;
  /** Ends the run's span with its counts when `report` settles; returns `report`. */
  end<Report extends { done: number; failed: number; skipped: number; inDoubt: number }>(
    report: Promise<Report>,
  ): Promise<Report>;
}

/** What the bulk queue's `add()` tells the telemetry (bulk/bullmq/job-trace.ts says what jobs carry of it). */
export interface AddTelemetry {
  /** The trace context of the add's span, as the registered propagator writes it (`traceparent`, …). */
  carrier: Record<string, string>;
  /** Ends the add's span with the number of items read when `count` settles; returns `count`. */
  end(count: Promise<number>): Promise<number>;
}

/** The telemetry of one client. */
export interface ClientTelemetry {
  call(method: string, path: string): CallTelemetry;
  /** A bulk run's span (`bulk.run`), a child of the span active when the run starts. */
  bulkRun(runId: string): RunTelemetry;
  /** A bulk queue's `add()`: a PRODUCER span (`bulk.add`), a child of the span active when it starts. */
  bulkAdd(queue: string): AddTelemetry;
  /**
   * Runs `task` in the context that `carrier` holds (a job's trace, from another process): its
   * calls join that trace. The registered propagator reads the carrier; what it finds invalid
   * leaves the active context as it is.
   */
  withRemote<Result>(carrier: Record<string, string>, task: () => Result): Result;
}

/** The module name, out of bundlers' sight: an application that does not install it still bundles (it is never loaded then). */
const API_MODULE = "@opentelemetry/api";

/**
 * The key `@opentelemetry/core`'s `suppressTracing()` sets (`createContextKey` makes
 * `Symbol.for` keys, so this is the same key without depending on core): an instrumentation of
 * the platform's fetch (`@opentelemetry/instrumentation-undici`) makes no span of its own for
 * an attempt this module already traces, and leaves its `traceparent` alone.
 */
const SUPPRESS_TRACING = "OpenTelemetry SDK Context Key SUPPRESS_TRACING";

/** The attempt span's attribute for its wait in the client's pause after a 429, in milliseconds (set only when it waited). */
const PAUSED_MS = "store_admin.rate_pause.waited_ms";

/** The most characters of a `Retry-After` the retry event records: an HTTP date is 29. */
const MAX_RETRY_AFTER = 100;

/** The conventions' advice for `http.client.request.duration`, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/**
 * Whether something instruments Node's fetch (undici) below us: then its histogram point for
 * the attempt cannot be suppressed from outside (suppression covers spans only), and this
 * module records none of its own, so that an attempt still has one point. Only Node has the
 * channel; it is looked up without importing a Node module.
 */
function undiciInstrumented(): boolean {
  const process = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process;
  const channels = process?.getBuiltinModule?.("node:diagnostics_channel") as
    | { hasSubscribers?(name: string): boolean }
    | undefined;
  return channels?.hasSubscribers?.("undici:request:create") === true;
}

/** What a client's telemetry works with once `@opentelemetry/api` is loaded. */
interface Instruments {
  readonly api: typeof OpenTelemetry;
  readonly about: { sdkVersion: string; apiVersion: string };
  readonly tracer: OpenTelemetry.Tracer;
  /** The duration histogram, one point per attempt. */
  readonly duration: Histogram;
  /** The context key that tells an instrumentation of fetch below us not to trace the attempt again. */
  readonly suppressed: symbol;
  readonly redact: (text: string, secrets?: readonly string[]) => string;
  readonly clip: (text: string, secrets: readonly string[] | undefined, max?: number) => string;
  readonly meter: OpenTelemetry.Meter;
  /** The `attributes` option: on every span, event and metric point. */
  readonly attributes: Attributes;
}

/**
 * The telemetry of a client created with `telemetry: option`.
 * @throws TypeError for an option of another shape; Error naming the package when `@opentelemetry/api` cannot be loaded.
 */
export async function createTelemetry(
  option: TelemetryOptions | true,
  about: { sdkVersion: string; apiVersion: string },
  { clip, redact }: { clip: typeof clipText; redact: typeof redactText },
): Promise<ClientTelemetry> {
  if (option !== true && (typeof option !== "object" || option === null)) {
    throw new TypeError(
      `telemetry must be true or { tracerProvider?, meterProvider?, attributes? }, got ${typeof option}; no request was sent.`,
    );
  }
  let api: typeof OpenTelemetry;
  try {
    api = (await import(/* @vite-ignore */ /* webpackIgnore: true */ API_MODULE)) as typeof OpenTelemetry;
  } catch (cause) {
    throw new Error(
      "The telemetry option needs the package @opentelemetry/api (1.x): install it beside store-admin-sdk.",
      { cause },
    );
  }
  const instruments = instrumentsOf(api, option === true ? {} : option, about, redact, clip);
  const { context, propagation } = api;
  return {
    bulkRun: (runId) => bulkRunTelemetry(instruments, runId),
    bulkAdd: (queue) => bulkAddTelemetry(instruments, queue),
    withRemote: (carrier, task) => context.with(propagation.extract(context.active(), carrier), task),
    call: (method, path) => callTelemetry(instruments, method, path),
  };
}

function instrumentsOf(
  api: typeof OpenTelemetry,
  options: TelemetryOptions,
  about: Instruments["about"],
  redact: Instruments["redact"],
  clip: Instruments["clip"],
): Instruments {
  const { trace, metrics, ValueType, createContextKey } = api;
  const tracer = (
    (options.tracerProvider as OpenTelemetry.TracerProvider | undefined) ?? trace.getTracerProvider()
  ).getTracer("store-admin-sdk", about.sdkVersion);
  const meter = (
    (options.meterProvider as OpenTelemetry.MeterProvider | undefined) ?? metrics.getMeterProvider()
  ).getMeter("store-admin-sdk", about.sdkVersion);
  const duration: Histogram = meter.createHistogram("http.client.request.duration", {
    description: "Duration of HTTP client requests.",
    unit: "s",
    valueType: ValueType.DOUBLE,
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  return {
    api,
    about,
    tracer,
    duration,
    suppressed: createContextKey(SUPPRESS_TRACING),
    redact,
    clip,
    meter,
    attributes: { ...(options.attributes as Attributes | undefined) },
  };
}

/** ERROR with `error.type`: a status code, or an error's name (a middleware's or a custom fetch's error names itself). */
function failed(
  t: Instruments,
  span: Span,
  attributes: Attributes,
  errorType: string,
  secrets: readonly string[] = [],
): void {
  attributes["error.type"] = t.redact(errorType, secrets);
  span.setAttribute("error.type", attributes["error.type"]);
  span.setStatus({ code: t.api.SpanStatusCode.ERROR });
}

/** Ends `span` when `result` settles: ERROR with `error.type` for a rejection or an error status. */
function settle<Result>(
  t: Instruments,
  span: Span,
  result: Promise<Result>,
  onResult: (settled: Result) => void,
  secrets = (): readonly string[] => [],
): Promise<Result> {
  return result.then(
    (settled) => {
      onResult(settled);
      span.end();
      return settled;
    },
    (error: unknown) => {
      failed(t, span, {}, errorName(error), secrets());
      span.end();
      throw error;
    },
  );
}

function bulkRunTelemetry(t: Instruments, runId: string): RunTelemetry {
  const { context, trace, SpanKind } = t.api;
  const parent = context.active();
  const span = t.tracer.startSpan(
    "bulk.run",
    { kind: SpanKind.INTERNAL, attributes: { ...t.attributes, "store_admin.bulk.run_id": runId } },
    parent,
  );
  const runContext = trace.setSpan(parent, span);
  return {
    within: (task) => context.with(runContext, task),
    end: (report) =>
      settle(t, span, report, ({ done, failed: failedCount, skipped, inDoubt }) =>
        span.setAttributes({
          "store_admin.bulk.done": done,
          "store_admin.bulk.failed": failedCount,
          "store_admin.bulk.skipped": skipped,
          "store_admin.bulk.in_doubt": inDoubt,
        }),
      ),
  };
}

function bulkAddTelemetry(t: Instruments, queue: string): AddTelemetry {
  const { context, trace, propagation, SpanKind } = t.api;
  const parent = context.active();
  const span = t.tracer.startSpan(
    "bulk.add",
    { kind: SpanKind.PRODUCER, attributes: { ...t.attributes, "store_admin.bulk.run_id": queue } },
    parent,
  );
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(parent, span), carrier);
  return {
    carrier,
    end: (count) => settle(t, span, count, (added) => span.setAttribute("store_admin.bulk.added", added)),
  };
}

/** One attempt in flight: its CLIENT span, the attributes its histogram point gets, and when it started. */
interface Attempt {
  span: Span;
  attributes: Attributes;
  startedMs: number;
  url: string;
}

const setHeader = { set: (headers: Headers, key: string, value: string) => headers.set(key, value) };

/** A logical call's INTERNAL span (named after the operation), and a CLIENT span per attempt. */
function callTelemetry(t: Instruments, method: string, path: string): CallTelemetry {
  const { context, trace } = t.api;
  const [name, operationId] = spanNames[`${method === "HEAD" ? "GET" : method} ${path}`] ?? [
    `${method} ${path}`,
    undefined,
  ];
  const parent = context.active();
  const span = t.tracer.startSpan(
    name,
    {
      kind: t.api.SpanKind.INTERNAL,
      attributes: {
        ...t.attributes,
        "store_admin.operation_id": operationId,
        "store_admin.api_version": t.about.apiVersion,
      },
    },
    parent,
  );
  const callContext = trace.setSpan(parent, span);
  let current: Attempt | undefined;
  // The token of the call's attempts, known from its first (a token function is called per call).
  let secrets: readonly string[] = [];
  // Plugins' attributes of this call, on every attempt after they were added.
  let added: Attributes = {};
  return {
    attempt(attempt, request, callSecrets, send, pausedMs) {
      secrets = callSecrets;
      current = startAttempt(t, path, attempt, request, secrets, callContext, added);
      if (pausedMs) current.span.setAttribute(PAUSED_MS, pausedMs);
      const attemptContext = trace.setSpan(callContext, current.span);
      t.api.propagation.inject(attemptContext, request.headers, setHeader);
      return context.with(attemptContext.setValue(t.suppressed, true), send);
    },
    attemptEnd(response, error) {
      if (!current) return;
      const ended = current;
      current = undefined;
      endAttempt(t, ended, response, error, secrets);
    },
    retry(delayMs, retryAfter) {
      // Outside text, as a log line takes it: one line, no control or bidi characters, clipped, scrubbed.
      span.addEvent("retry", {
        ...t.attributes,
        ...added,
        "store_admin.retry.delay_ms": delayMs,
        ...(retryAfter ? { "http.response.header.retry-after": [t.clip(retryAfter, secrets, MAX_RETRY_AFTER)] } : {}),
      });
    },
    drift: (drifts) => recordDrift(t, span, name, drifts, added),
    add(attributes) {
      added = { ...added, ...attributes };
      span.setAttributes(attributes);
    },
    end: (result) =>
      settle(
        t,
        span,
        result,
        ({ response }) => response.ok || failed(t, span, {}, String(response.status)),
        () => secrets,
      ),
  };
}

/** The counter of drifting responses, made on the first drift. */
const driftCounters = new WeakMap<Instruments, OpenTelemetry.Counter>();

/**
 * A drifting body (validate-responses.ts): an event per drift on the call's span (at most 10: the
 * caller keeps no more), and one count by operation only, so the counter's series stay as few
 * as the operations. Types only, never a value: the drifts hold none.
 */
function recordDrift(
  t: Instruments,
  span: Span,
  operation: string,
  drifts: readonly ContractDrift[],
  added: Attributes,
): void {
  for (const { pointer, expected, received } of drifts) {
    span.addEvent("store_admin.contract.drift", {
      ...t.attributes,
      ...added,
      "store_admin.operation": operation,
      "store_admin.contract.pointer": pointer,
      "store_admin.contract.expected": expected,
      "store_admin.contract.received": received,
    });
  }
  let counter = driftCounters.get(t);
  if (!counter)
    driftCounters.set(
      t,
      (counter = t.meter.createCounter("store_admin.contract.drifts", {
        description: "Responses whose body does not match the contract.",
        valueType: t.api.ValueType.INT,
      })),
    );
  counter.add(1, { ...t.attributes, ...added, "store_admin.operation": operation });
}

/** An attempt's CLIENT span, with the HTTP client conventions' attributes (scrubbed of the call's token). */
function startAttempt(
  t: Instruments,
  path: string,
  attempt: number,
  request: { url: string; method: string },
  secrets: readonly string[],
  callContext: OpenTelemetry.Context,
  added: Attributes,
): Attempt {
  const url = new URL(request.url);
  const attributes: Attributes = {
    ...t.attributes,
    ...added,
    "http.request.method": request.method,
    "server.address": t.redact(url.hostname, secrets),
    "server.port": Number(url.port) || (url.protocol === "https:" ? 443 : 80),
    "url.scheme": url.protocol.slice(0, -1),
    "url.template": path,
  };
  const attemptSpan = t.tracer.startSpan(
    `${request.method} ${path}`,
    {
      kind: t.api.SpanKind.CLIENT,
      attributes: {
        ...attributes,
        "url.full": t.redact(url.href, secrets),
        ...(attempt > 1 ? { "http.request.resend_count": attempt - 1 } : {}),
      },
    },
    callContext,
  );
  return { span: attemptSpan, attributes, startedMs: performance.now(), url: request.url };
}

/** Ends an attempt's span with its status (an error status or what it threw is a failure), and records its duration. */
function endAttempt(
  t: Instruments,
  attempt: Attempt,
  response: Response | undefined,
  error: unknown,
  secrets: readonly string[],
): void {
  const { span: attemptSpan, attributes, startedMs } = attempt;
  if (response) {
    attributes["http.response.status_code"] = response.status;
    attemptSpan.setAttribute("http.response.status_code", response.status);
    const version = protocolVersion(attempt.url);
    if (version)
      attemptSpan.setAttribute("network.protocol.version", (attributes["network.protocol.version"] = version));
    if (response.status >= 400) failed(t, attemptSpan, attributes, String(response.status));
  } else {
    failed(t, attemptSpan, attributes, errorName(error), secrets);
  }
  attemptSpan.end();
  if (!undiciInstrumented()) t.duration.record((performance.now() - startedMs) / 1000, attributes);
}

/**
 * `network.protocol.version` (`1.1`, `2`, `3`) of the attempt's response, where the runtime
 * tells it: a `Response` carries no HTTP version, but a runtime that keeps resource timing for
 * fetch (browsers) records the protocol it used as the entry's `nextHopProtocol` (`http/1.1`,
 * `h2`, `h3`). Node's fetch records the entry with no protocol (and Workers keep none): there
 * the attribute is left out rather than guessed.
 */
function protocolVersion(url: string): string | undefined {
  const entries = (globalThis.performance?.getEntriesByName?.(url, "resource") ?? []) as { nextHopProtocol?: string }[];
  const match = /^(?:http\/(\d(?:\.\d)?)|h(\d))/i.exec(entries[entries.length - 1]?.nextHopProtocol ?? "");
  return match ? (match[1] ?? match[2]) : undefined;
}

/** `error.type` for a thrown value: its class's name (`TimeoutError`, `ConnectionError`, …), else the conventions' fallback. */
function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "_OTHER";
}
