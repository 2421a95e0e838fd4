/**
 * One execute's two steps, each in a worker thread (workers.ts), bounded from the server's
 * thread: the type check by `checkMs` and the worker's heap; the run by the execute's deadline
 * (`timeoutMs`), its CPU time (`cpuMs`, read off the run's shared clock) and the worker's heap.
 * A bound reached terminates the worker; the outcome names the limit. The run's `store.*` calls
 * cross back to this thread, where the host (host.ts) makes them: the worker never holds the token.
 */
import { CLOCK_EVERY_MS, cpuSpent, outOfHeap, sharedPool, type CodeWorker, type WorkerPool } from "./workers.js";
import { stoppedOutcome, type HostCall, type SandboxLimits, type SandboxOutcome, type StopReason } from "./sandbox.js";
import type { CheckOutcome } from "./typecheck.js";
import type { CodeModeLimits } from "./limits.js";

/** A check a bound ended: its time, the worker's heap, or the whole execute's deadline. */
export type CheckStopped = { stopped: "check_time" | "check_memory" | "timeout" } | { unavailable: string };

/**
 * Past its CPU limit by this much, a run that has not stopped itself (a C built-in ignoring the
 * interrupt) is terminated: room for QuickJS's own check on a busy machine, where the worker
 * may wait for a core, so that a worker is replaced only when it must be.
 */
const CPU_GRACE_MS = 500;

interface IsolatedEngines {
  /** `allowed`: the methods `store` declares (all when left out). */
  check(code: string, deadline: number, allowed?: readonly string[]): Promise<CheckOutcome | CheckStopped>;
  /** Runs `javascript`; `calls` is aborted when a bound ends the run, so that a store call in flight ends too. */
  run(
    javascript: string,
    host: HostCall,
    deadline: number,
    maxValueBytes: number,
    calls: AbortController,
  ): Promise<SandboxOutcome>;
  /** Resolves when a worker of each kind has loaded its engine (kept for the executes), or rejects naming what to install. */
  ready(): Promise<void>;
}

type Limits = Required<CodeModeLimits> & { logChars: number };

/** A ready worker of `pool`, or why none can start (what to install). */
async function acquire(pool: WorkerPool): Promise<CodeWorker | { unavailable: string }> {
  try {
    return await pool.acquire();
  } catch (error) {
    return { unavailable: error instanceof Error ? error.message : String(error) };
  }
}

/** Resolves when a worker of each pool has loaded its engine (kept, warm), or rejects naming what to install. */
async function poolsReady(...pools: WorkerPool[]): Promise<void> {
  // Every pool settled before a failure is reported: no worker still starting once the caller ends them.
  const settled = await Promise.allSettled(pools.map(async (pool) => pool.release(await pool.acquire(), true)));
  const failed = settled.find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
}

/** The type check of `code` in a worker of `checks`, ended by `checkMs`, the worker's heap or the execute's `deadline`. */
async function checkIn(
  checks: WorkerPool,
  limits: Limits,
  code: string,
  deadline: number,
  allowed?: readonly string[],
): Promise<CheckOutcome | CheckStopped> {
  const worker = await acquire(checks);
  if ("unavailable" in worker) return worker;
  const left = deadline - performance.now();
  return new Promise((resolve) => {
    const finish = (outcome: CheckOutcome | CheckStopped, sound: boolean) => {
      clearTimeout(timer);
      checks.release(worker, sound);
      resolve(outcome);
    };
    const timer = setTimeout(
      () => finish({ stopped: limits.checkMs <= left ? "check_time" : "timeout" }, false),
      Math.max(0, Math.min(limits.checkMs, left)),
    );
    worker.onEvent = (message, error) => {
      if (message?.type === "checked") finish(message.outcome, true);
      else if (message === undefined) finish({ stopped: outOfHeap(error) ? "check_memory" : "check_time" }, false);
    };
    worker.post({ type: "check", code, allowed });
  });
}

/** Runs `javascript` in a worker of `runs`, ended by the execute's `deadline`, `cpuMs` or the worker's heap; `host` makes its store calls. */
async function runIn(
  runs: WorkerPool,
  limits: Limits,
  javascript: string,
  host: HostCall,
  deadline: number,
  maxValueBytes: number,
  calls: AbortController,
): Promise<SandboxOutcome> {
  const worker = await acquire(runs);
  const sandbox: Omit<SandboxLimits, "clock"> = {
    cpuMs: limits.cpuMs,
    memoryBytes: limits.memoryBytes,
    stackBytes: limits.stackBytes,
    logChars: limits.logChars,
  };
  if ("unavailable" in worker)
    return { logs: [], logsDropped: 0, error: { name: "Error", message: worker.unavailable } };
  worker.clock[0] = 0;
  worker.clock[1] = Number.NaN;
  const inflight = new Set<Promise<unknown>>();
  const outcome = await new Promise<SandboxOutcome>((resolve) => {
    let done = false;
    const finish = (result: SandboxOutcome, sound: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(watch);
      runs.release(worker, sound);
      resolve(result);
    };
    const stopped = (reason: StopReason) => {
      if (!done) calls.abort();
      finish(stoppedOutcome(reason, { ...sandbox, timeoutMs: limits.timeoutMs }), false);
    };
    const timer = setTimeout(() => stopped("timeout"), Math.max(0, deadline - performance.now()));
    const watch = setInterval(() => {
      if (cpuSpent(worker.clock) > limits.cpuMs + CPU_GRACE_MS) stopped("cpu");
    }, CLOCK_EVERY_MS);
    const stop = (reason: StopReason) => {
      if (!done) worker.post({ type: "stop", reason });
    };
    worker.onEvent = (message, error) => {
      if (message === undefined) stopped(outOfHeap(error) ? "memory" : "stack");
      else if (message.type === "done") finish(message.outcome, !message.broken);
      else if (message.type === "call") {
        const answered = host(message.name, message.argsJson, message.cursor, stop).then((answer) => {
          if (!done) worker.post({ type: "answer", id: message.id, answer });
        });
        inflight.add(answered);
        void answered.finally(() => inflight.delete(answered));
      }
    };
    worker.post({ type: "run", javascript, limits: sandbox, maxValueBytes });
  });
  // Every call the code made has its status before the result lists it.
  while (inflight.size > 0) await Promise.allSettled([...inflight]);
  return outcome;
}

/** The check and the run of each execute, each in a worker thread of its own shared pool. */
export function isolatedEngines(limits: Limits): IsolatedEngines {
  const checks = sharedPool("check", limits.workerMemoryBytes, limits.maxExecutes);
  const runs = sharedPool("run", limits.workerMemoryBytes, limits.maxExecutes);
  checks.warm();
  runs.warm();

  return {
    check: (code, deadline, allowed) => checkIn(checks, limits, code, deadline, allowed),
    run: (javascript, host, deadline, maxValueBytes, calls) =>
      runIn(runs, limits, javascript, host, deadline, maxValueBytes, calls),
    ready: () => poolsReady(checks, runs),
  };
}
