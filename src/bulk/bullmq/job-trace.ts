/**
 * What a job's data carries of its producer's trace: the W3C trace context of the `add()` span
 * (`{ traceparent, tracestate? }`), so that a worker's calls for the job join that trace in
 * another process. Nothing else of the producer's context travels (no baggage: it may hold
 * anything, and every job would carry it). A job without it (telemetry off, an older producer)
 * runs as before; so does one whose field is not of this shape, since job data is whatever
 * reached Redis: it is then ignored, and what has the shape is handed to the propagator, which
 * validates it (a `traceparent` it cannot parse starts a new trace).
 */

/** The job data's `trace` field. */
export interface JobTrace {
  traceparent: string;
  tracestate?: string;
}

/** A version-00 `traceparent` is 55 characters; later versions may append fields. */
const MAX_TRACEPARENT = 256;
/** The W3C limit a `tracestate` header may be truncated to. */
const MAX_TRACESTATE = 512;

/** The field for the jobs of one `add()`, from the carrier the propagator wrote; none without a `traceparent`. */
export function jobTraceOf(carrier: Record<string, string>): JobTrace | undefined {
  const { traceparent, tracestate } = carrier;
  if (typeof traceparent !== "string") return undefined;
  return typeof tracestate === "string" && tracestate !== "" ? { traceparent, tracestate } : { traceparent };
}

/** A job's field as a carrier for the propagator: empty unless it has the shape of {@link JobTrace}, within its limits. */
export function carrierOf(field: unknown): Record<string, string> {
  if (typeof field !== "object" || field === null) return {};
  const { traceparent, tracestate } = field as Record<string, unknown>;
  if (typeof traceparent !== "string" || traceparent.length > MAX_TRACEPARENT) return {};
  if (tracestate === undefined) return { traceparent };
  if (typeof tracestate !== "string" || tracestate.length > MAX_TRACESTATE) return {};
  return { traceparent, tracestate };
}
