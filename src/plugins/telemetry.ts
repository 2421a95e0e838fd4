/**
 * The `telemetry()` plugin: OpenTelemetry spans and metrics of every call (telemetry-spans.ts
 * says which). Its module and `@opentelemetry/api` load with the client's first call; a
 * failure to load either fails the call with its error, never the process, and the next call
 * tries again (src/core/load-once.ts).
 */
import {
  clip,
  loadOnce,
  mustBe,
  redact,
  pausedMs,
  secretsOf,
  TELEMETRY,
  typeName,
  unknownOptions,
  VERSION,
  API_VERSION,
  type AttemptOutcome,
  type StoreAdminPlugin,
  type TelemetryOptions,
} from "#shared";
import { createTelemetry, type CallTelemetry, type ClientTelemetry } from "./telemetry-spans.js";

/** The telemetry of `option`, loaded on demand. The bulk queue's producer makes its spans with it too. */
export function loadTelemetry(option: TelemetryOptions | true): Promise<ClientTelemetry> {
  const loading = createTelemetry(option, { sdkVersion: VERSION, apiVersion: API_VERSION }, { clip, redact });
  loading.catch(() => undefined);
  return loading;
}

/** The call's telemetry, by the call its plugins see. */
const calls = new WeakMap<object, CallTelemetry>();
/** The outcome of the attempt whose span is open, until onAttemptEnd ends it. */
const lastOutcomes = new WeakMap<object, AttemptOutcome>();

/** Refuses a provider that is not one (it would fail every call later, deep in the telemetry code). */
function checkProvider(name: string, provider: unknown, method: string): void {
  if (provider !== undefined && typeof (provider as Record<string, unknown> | null)?.[method] !== "function")
    throw new TypeError(
      `telemetry({ ${name} }) must be an OpenTelemetry ${name} (an object with ${method}()), got ${provider === null ? "null" : typeof provider}.`,
    );
}

/**
 * OpenTelemetry traces and metrics: an INTERNAL span per call named after the operation, a
 * CLIENT span per attempt with the HTTP client conventions and its `traceparent`, the duration
 * histogram per attempt, and the drift events and counter with `validateResponses()`.
 * `attributes` go on every span, event and metric point; a plugin's `call.attributes` on the
 * call's. Needs `@opentelemetry/api` 1.x (an optional peer dependency).
 * @example
 * createStoreAdminClient({ …, plugins: [telemetry({ attributes: { "store.id": "eu-1" } })] });
 */
export function telemetry(options: TelemetryOptions = {}): StoreAdminPlugin {
  if (typeof options !== "object" || options === null)
    throw new TypeError(
      `telemetry() takes { tracerProvider?, meterProvider?, attributes? }, got ${options === null ? "null" : typeof options}.`,
    );
  const [unknown] = unknownOptions(options, ["tracerProvider", "meterProvider", "attributes"]);
  if (unknown !== undefined)
    throw new TypeError(
      `telemetry() has no option "${unknown}": it takes { tracerProvider?, meterProvider?, attributes? }.`,
    );
  checkAttributes(options.attributes);
  checkProvider("tracerProvider", options.tracerProvider, "getTracer");
  checkProvider("meterProvider", options.meterProvider, "getMeter");
  // A load that failed (the package missing, a provider that threw) is tried again by the next call.
  const load = loadOnce(() => loadTelemetry(options));
  const plugin: StoreAdminPlugin & { [TELEMETRY]: typeof load } = {
    name: "telemetry",
    [TELEMETRY]: load,
    async wrapCall(call, next) {
      const traced = (await load()).call(call.method, call.path);
      calls.set(call, traced);
      const result = next().finally(() => {
        // An attempt no onAttemptEnd heard of (a middleware answered it, nothing was sent) ends with the call.
        const last = lastOutcomes.get(call);
        if (last) traced.attemptEnd(last.error === undefined ? last.response : undefined, last.error);
        traced.add({ ...call.attributes });
      });
      return traced.end(result);
    },
    wrapAttempt(attempt, next) {
      const { call } = attempt;
      const traced = calls.get(call);
      if (!traced) return next();
      if (Object.keys(call.attributes).length) traced.add({ ...call.attributes });
      const request = { url: attempt.url, method: call.method, headers: attempt.headers };
      return traced
        .attempt(attempt.number, request, secretsOf(call), next, pausedMs.get(attempt) ?? 0)
        .then((outcome) => (lastOutcomes.set(call, outcome), outcome));
    },
    // After every wrap, whatever the plugins' order: the outcome as the call ends it (a strict drift is the attempt's failure).
    onAttemptEnd(attempt, outcome, decision) {
      const traced = calls.get(attempt.call);
      if (!traced) return;
      lastOutcomes.delete(attempt.call);
      if (outcome.drift) traced.drift(outcome.drift.drifts);
      traced.attemptEnd(outcome.error === undefined ? outcome.response : undefined, outcome.error);
      if (decision.retry) traced.retry(decision.delayMs, outcome.response?.headers.get("retry-after"));
    },
  };
  return plugin;
}

function checkAttributes(attributes: unknown): void {
  if (attributes === undefined) return;
  if (typeof attributes !== "object" || attributes === null || Array.isArray(attributes))
    mustBe("telemetry({ attributes }): attributes", "an object of string, number or boolean values", attributes, null);
  for (const [key, value] of Object.entries(attributes)) {
    if (!["string", "number", "boolean"].includes(typeof value))
      mustBe(
        `telemetry({ attributes }): the attribute ${JSON.stringify(key)}`,
        "a string, a number or a boolean",
        value,
        typeName,
      );
  }
}
