/**
 * Code mode's sandbox: QuickJS compiled to WebAssembly (`quickjs-emscripten`, an optional peer
 * dependency loaded when code mode starts), one fresh runtime per `execute`, never `node:vm`.
 * Inside there is the language and what the prelude adds (`store`, `console.log`): no `fetch`,
 * `process`, `require`, module loading, timers, file system or network. The runtime's memory
 * and stack are limited by QuickJS itself; CPU time by its interrupt handler, counting only the
 * time spent running the sandbox's code (not waiting for the host's calls).
 *
 * Only strings cross: a call's method name, its arguments' JSON text and a list's cursor go
 * out; the answer's JSON text, or an error's name, message, status and (a 422's) validation list
 * as JSON text, come back; the result leaves as JSON text. The host reads nothing else of the
 * sandbox's values.
 */
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from "quickjs-emscripten";
import { BRIDGE, LOG, prelude, RUN } from "./prelude.js";

/** The limits of one run. */
export interface SandboxLimits {
  /** CPU time the code may spend running, in milliseconds. */
  cpuMs: number;
  /** The runtime's heap, in bytes. */
  memoryBytes: number;
  /** The runtime's stack, in bytes. */
  stackBytes: number;
  /** The most `console.log` text kept, in characters; the rest is counted, not kept. */
  logChars: number;
  /**
   * Where the run publishes its CPU time for another thread to watch (a C built-in that never
   * reaches the interrupt handler is stopped from outside): [0] the time spent, [1] when the
   * current slice began (`performance.timeOrigin + performance.now()`), NaN outside.
   */
  clock?: Float64Array | undefined;
}

/**
 * What the host answers one call: the answer's JSON text, or an error for the sandbox to throw
 * (`validation`: a 422's list of invalid fields, as JSON text).
 */
export type HostAnswer =
  | { json: string }
  | { error: { name: string; message: string; status?: number; validation?: string } };

/** The host's side of a call: `name` and `argsJson` are strings the sandbox sent, unchecked. */
export type HostCall = (
  name: string,
  argsJson: string,
  cursor: string | undefined,
  stop: (reason: StopReason) => void,
) => Promise<HostAnswer>;

export type StopReason = "cpu" | "memory" | "stack" | "calls" | "deadlock" | "timeout";

export interface SandboxOutcome {
  /** The returned value's JSON text; absent when the code returned nothing or failed. */
  value?: string;
  /** The returned value's JSON size in bytes, when it was too long to be carried back. */
  valueBytes?: number;
  /** What the code threw, or why it was stopped: a name and a message, no stack. */
  error?: { name: string; message: string };
  stoppedBy?: StopReason;
  logs: string[];
  /** Characters of `console.log` output over the limit, not kept. */
  logsDropped: number;
}

/** The sandbox cannot start: what to install, in words. */
class SandboxUnavailableError extends Error {
  override name = "SandboxUnavailableError";
}

const QUICKJS = "quickjs-emscripten";
let module: Promise<QuickJSWASMModule> | undefined;

/** QuickJS's WebAssembly module, loaded once; a {@link SandboxUnavailableError} naming what to install when it is missing. */
export function loadQuickJS(specifier = QUICKJS): Promise<QuickJSWASMModule> {
  if (specifier !== QUICKJS) return importQuickJS(specifier);
  return (module ??= importQuickJS(specifier).catch((error: unknown) => {
    module = undefined;
    throw error;
  }));
}

async function importQuickJS(specifier: string): Promise<QuickJSWASMModule> {
  let loaded: { newQuickJSWASMModule?: () => Promise<QuickJSWASMModule> };
  try {
    loaded = (await import(specifier)) as typeof loaded;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new SandboxUnavailableError(
      `Code mode runs the agent's code in QuickJS (WebAssembly), and ${QUICKJS} is not installed. Install it beside store-admin-sdk: npm install ${QUICKJS}@^0.32`,
    );
  }
  if (typeof loaded.newQuickJSWASMModule !== "function")
    throw new SandboxUnavailableError(
      `The installed ${QUICKJS} has no newQuickJSWASMModule(); install the version store-admin-sdk supports: npm install ${QUICKJS}@^0.32`,
    );
  return loaded.newQuickJSWASMModule();
}

/** The message of a QuickJS error a limit raises. */
const OUT_OF_MEMORY = /out of memory/i;
const STACK_OVERFLOW = /stack overflow|call stack size/i;

/**
 * Runs `javascript` (the type-checked snippet, compiled: it defines `__codeModeMain`) in a new
 * runtime under `limits`; `hostCall` answers its `store.*` calls, and may stop the run (the
 * host's call limit). Resolves when the code's promise settles, a limit stops
 * it, or it waits on nothing that can settle; every call it made has been answered by then.
 */
export async function runInSandbox(
  quickjs: QuickJSWASMModule,
  javascript: string,
  hostCall: HostCall,
  limits: SandboxLimits,
): Promise<SandboxOutcome> {
  const run = new Run(quickjs, limits, hostCall);
  try {
    return await run.execute(javascript);
  } finally {
    try {
      run.dispose();
    } catch {
      // QuickJS aborted (a leak it asserts on after some failures): this module is unusable; the next run loads a fresh one.
      if (module !== undefined && (await module) === quickjs) module = undefined;
    }
  }
}

class Run {
  readonly runtime: QuickJSRuntime;
  readonly vm: QuickJSContext;
  readonly logs: string[] = [];
  logChars = 0;
  logsDropped = 0;
  /** CPU time spent in the sandbox, and when the current slice began (undefined outside). */
  spent = 0;
  sliceStart: number | undefined;
  stoppedBy: StopReason | undefined;
  readonly inflight = new Set<Promise<void>>();
  readonly deferreds = new Set<QuickJSDeferredPromise>();
  disposed = false;
  wake: (() => void) | undefined;

  constructor(
    quickjs: QuickJSWASMModule,
    readonly limits: SandboxLimits,
    readonly hostCall: HostCall,
  ) {
    this.runtime = quickjs.newRuntime();
    this.runtime.setMemoryLimit(limits.memoryBytes);
    this.runtime.setMaxStackSize(limits.stackBytes);
    this.runtime.setInterruptHandler(() => {
      if (this.stoppedBy !== undefined) return true;
      if (this.sliceStart !== undefined && this.spent + (performance.now() - this.sliceStart) > limits.cpuMs)
        this.stoppedBy = "cpu";
      return this.stoppedBy !== undefined;
    });
    this.vm = this.runtime.newContext();
  }

  /** Ends the run at the next interrupt check (and stops waiting for the code's promise). */
  readonly stop = (reason: StopReason): void => {
    this.stoppedBy ??= reason;
    this.wake?.();
  };

  /** `work` run as sandbox time. */
  inside<T>(work: () => T): T {
    this.sliceStart = performance.now();
    const { clock } = this.limits;
    if (clock) clock[1] = performance.timeOrigin + this.sliceStart;
    try {
      return work();
    } finally {
      this.spent += performance.now() - this.sliceStart;
      this.sliceStart = undefined;
      if (clock) {
        clock[0] = this.spent;
        clock[1] = Number.NaN;
      }
    }
  }

  pump(): void {
    if (this.disposed || this.stoppedBy !== undefined) return;
    const result = this.inside(() => this.runtime.executePendingJobs());
    if (result.error) {
      this.noteLimit(this.vm.dump(result.error));
      result.error.dispose();
    }
    this.wake?.();
  }

  noteLimit(error: unknown): void {
    const message = String((error as { message?: unknown } | undefined)?.message ?? error);
    if (OUT_OF_MEMORY.test(message)) this.stoppedBy ??= "memory";
    else if (STACK_OVERFLOW.test(message)) this.stoppedBy ??= "stack";
  }

  installHost(): void {
    const { vm } = this;
    const bridge = vm.newFunction("bridge", (nameHandle, argsHandle, cursorHandle) => {
      const deferred = vm.newPromise();
      this.deferreds.add(deferred);
      // Only strings are read; anything else is passed on as a name the host refuses.
      const read = (handle: QuickJSHandle | undefined) =>
        handle !== undefined && vm.typeof(handle) === "string" ? vm.getString(handle) : undefined;
      const name = read(nameHandle) ?? "";
      const args = read(argsHandle) ?? "null";
      const cursor = read(cursorHandle);
      const settled = this.hostCall(name, args, cursor, this.stop).then(
        (answer) => this.settle(deferred, answer),
        () => this.settle(deferred, { error: { name: "Error", message: "The call failed on the host." } }),
      );
      this.inflight.add(settled);
      void settled.finally(() => this.inflight.delete(settled));
      return deferred.handle;
    });
    const log = vm.newFunction("log", (textHandle) => {
      const text = vm.typeof(textHandle) === "string" ? vm.getString(textHandle) : "";
      const room = this.limits.logChars - this.logChars;
      if (text.length <= room) {
        this.logs.push(text);
        this.logChars += text.length;
      } else this.logsDropped += text.length;
    });
    vm.setProp(vm.global, BRIDGE, bridge);
    vm.setProp(vm.global, LOG, log);
    bridge.dispose();
    log.dispose();
  }

  settle(deferred: QuickJSDeferredPromise, answer: HostAnswer): void {
    if (this.disposed || !this.deferreds.has(deferred)) return;
    const { vm } = this;
    if ("json" in answer) {
      const value = vm.newString(answer.json);
      deferred.resolve(value);
      value.dispose();
    } else {
      const { name, message, status, validation } = answer.error;
      const error = vm.newError({ name, message });
      if (status !== undefined) vm.newNumber(status).consume((value) => vm.setProp(error, "status", value));
      // Parsed by the prelude into the error it throws.
      if (validation !== undefined) vm.newString(validation).consume((value) => vm.setProp(error, "validation", value));
      deferred.reject(error);
      error.dispose();
    }
    this.deferreds.delete(deferred);
    deferred.dispose();
    this.pump();
  }

  async execute(javascript: string): Promise<SandboxOutcome> {
    const { vm } = this;
    this.installHost();
    for (const [code, file] of [
      [prelude(), "prelude.js"],
      [javascript, "snippet.js"],
    ] as const) {
      const result = this.inside(() => vm.evalCode(code, file));
      if (result.error) return this.failed(result.error);
      result.value.dispose();
    }
    const started = this.inside(() => vm.evalCode(`${RUN}(__codeModeMain)`, "run.js"));
    if (started.error) return this.failed(started.error);
    const promise = started.value;
    let settled: Awaited<ReturnType<QuickJSContext["resolvePromise"]>> | undefined;
    void vm.resolvePromise(promise).then((result) => {
      settled = result;
      this.wake?.();
    });
    promise.dispose();
    this.pump();
    // Wait until the promise settles, a limit stops the run, or nothing is left that could settle it.
    while (settled === undefined && this.stoppedBy === undefined) {
      if (this.inflight.size === 0) {
        // One more turn for the resolvePromise callback, then give up: the code awaits what never settles.
        await new Promise<void>((resolve) => setTimeout(resolve, 0));
        if (settled === undefined && this.inflight.size === 0 && this.stoppedBy === undefined)
          this.stoppedBy = "deadlock";
        break;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
    const outcome = this.outcomeOf(settled);
    // Every call the code made is answered before the result says what was sent.
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
    return outcome;
  }

  outcomeOf(settled: Awaited<ReturnType<QuickJSContext["resolvePromise"]>> | undefined): SandboxOutcome {
    const base = { logs: this.logs, logsDropped: this.logsDropped };
    if (settled !== undefined && this.stoppedBy === undefined) {
      if (settled.error) return this.failed(settled.error);
      const { value } = settled;
      const text = this.vm.typeof(value) === "string" ? this.vm.getString(value) : undefined;
      value.dispose();
      return { ...base, ...(text !== undefined ? { value: text } : {}) };
    }
    settled?.error?.dispose();
    if (settled && !settled.error) settled.value.dispose();
    return stoppedOutcome(this.stoppedBy!, this.limits, base);
  }

  failed(errorHandle: QuickJSHandle): SandboxOutcome {
    const dumped = this.vm.dump(errorHandle) as unknown;
    errorHandle.dispose();
    this.noteLimit(dumped);
    const base = { logs: this.logs, logsDropped: this.logsDropped };
    if (this.stoppedBy !== undefined) return stoppedOutcome(this.stoppedBy, this.limits, base);
    const error =
      typeof dumped === "object" && dumped !== null
        ? (dumped as { name?: unknown; message?: unknown })
        : { message: dumped };
    return {
      ...base,
      error: {
        name: typeof error.name === "string" ? error.name : "Error",
        message: typeof error.message === "string" ? error.message : String(error.message),
      },
    };
  }

  dispose(): void {
    this.disposed = true;
    for (const deferred of this.deferreds) deferred.dispose();
    this.deferreds.clear();
    this.vm.dispose();
    this.runtime.dispose();
  }
}

/** The outcome of a run a limit stopped: its reason, and a message naming the limit. */
export function stoppedOutcome(
  reason: StopReason,
  limits: Omit<SandboxLimits, "logChars" | "clock"> & { timeoutMs?: number },
  base: Pick<SandboxOutcome, "logs" | "logsDropped"> = { logs: [], logsDropped: 0 },
): SandboxOutcome {
  return { ...base, stoppedBy: reason, error: { name: "LimitError", message: STOPPED[reason](limits) } };
}

const STOPPED: Record<
  StopReason,
  (limits: Omit<SandboxLimits, "logChars" | "clock"> & { timeoutMs?: number }) => string
> = {
  cpu: (l) => `Stopped: the code ran for more than ${l.cpuMs} ms of CPU time (the server's --cpu-ms).`,
  stack: (l) =>
    `Stopped: the code's calls nested deeper than a ${l.stackBytes}-byte stack holds (the server's --stack-kb).`,
  memory: (l) => `Stopped: the code needed more than ${l.memoryBytes} bytes of memory (the server's --memory-mb).`,
  calls: () =>
    `Stopped: the code made more store calls than the server allows in one execute (the server's --max-calls).`,
  deadlock: () =>
    "Stopped: the code awaits something that never settles (there are no timers or events in the sandbox).",
  timeout: (l) =>
    `Stopped: the execute ran for more than ${l.timeoutMs ?? "its"} ms of wall-clock time, store calls included (the server's --timeout-ms).`,
};
