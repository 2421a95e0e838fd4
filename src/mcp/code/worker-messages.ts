/**
 * The messages between the server's thread and a code-mode worker (worker.ts): strings,
 * numbers and plain records only, copied across by structured clone.
 */
import type { HostAnswer, SandboxLimits, SandboxOutcome, StopReason } from "./sandbox.js";
import type { CheckOutcome } from "./typecheck.js";

/** To a worker: a snippet to check or to run, a call's answer, or a stop. */
export type ToWorker =
  | { type: "check"; code: string; allowed: readonly string[] | undefined }
  | { type: "run"; javascript: string; limits: Omit<SandboxLimits, "clock">; maxValueBytes: number }
  | { type: "answer"; id: number; answer: HostAnswer }
  | { type: "stop"; reason: StopReason };

/** From a worker: ready (or why it cannot be), a check's outcome, a call to make, a run's outcome. */
export type FromWorker =
  | { type: "ready" }
  | { type: "unavailable"; message: string }
  | { type: "checked"; outcome: CheckOutcome }
  | { type: "call"; id: number; name: string; argsJson: string; cursor: string | undefined }
  | { type: "done"; outcome: SandboxOutcome; broken: boolean };
