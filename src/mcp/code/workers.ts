/// <reference types="node" />
/**
 * Code mode's worker threads, seen from the server's thread: the type check and the QuickJS run
 * of every execute happen in a worker (worker.ts), each with a heap limit of its own and an
 * empty environment, so that the thread answering MCP requests never runs a snippet's work.
 * What the server's thread cannot ask a snippet to do it does by terminating its worker: a
 * check past `checkMs`, a run past the execute's deadline or past its CPU time (watched through
 * the shared clock the run publishes, for the C built-ins that never reach QuickJS's interrupt
 * handler), a worker out of heap. A worker that was terminated or broke is replaced; a healthy
 * one is kept for the next execute (warm: TypeScript's declarations parsed, QuickJS loaded).
 */
import { Worker } from "node:worker_threads";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import type { FromWorker, ToWorker } from "./worker-messages.js";

type WorkerKind = "check" | "run";

/** How often the server's thread reads a run's CPU clock. */
const CLOCK_EVERY_MS = 50;

/** The worker's module: the built one beside the package's other files, or (from the sources, in the project's tests) the TypeScript one through tsx. */
function workerEntry(): URL {
  const path = createRequire(import.meta.url).resolve("#code-mode-worker");
  if (!path.endsWith(".ts")) return pathToFileURL(path);
  // tsx's ESM register() (require.resolve finds its CommonJS twin, index.cjs, beside it).
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve("tsx/esm/api")
      .replace(/\.cjs$/, ".mjs"),
  ).href;
  const bootstrap = `const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(pathToFileURL(path).href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`);
}

/** A worker, its shared CPU clock, and the one listener the current job has on it. */
export class CodeWorker {
  readonly worker: Worker;
  readonly clock = new Float64Array(new SharedArrayBuffer(16));
  /** Resolves when the engine is loaded; rejects with what to install, or when the worker dies first. */
  readonly ready: Promise<void>;
  /** The job's handler of messages and of the worker's end (`undefined` message: it ended, `error` why). */
  onEvent: ((message: FromWorker | undefined, error?: Error) => void) | undefined;
  ended = false;

  constructor(kind: WorkerKind, heapBytes: number) {
    this.worker = new Worker(workerEntry(), {
      workerData: { kind, clock: this.clock.buffer },
      // No token, no variable of the server's environment: nothing there for a snippet's worker to hold.
      env: {},
      resourceLimits: { maxOldGenerationSizeMb: Math.floor(heapBytes / 1024 / 1024), maxYoungGenerationSizeMb: 32 },
      stdout: true,
      stderr: true,
    });
    this.ready = new Promise((resolve, reject) => {
      this.onEvent = (message, error) => {
        if (message?.type === "ready") resolve();
        else if (message?.type === "unavailable") reject(new Error(message.message));
        else if (message === undefined) reject(error ?? new Error("The code-mode worker ended before it was ready."));
      };
    });
    this.ready.catch(() => undefined);
    this.worker.on("message", (message: FromWorker) => this.onEvent?.(message));
    this.worker.on("error", (error) => this.end(error));
    this.worker.on("exit", () => this.end());
    // After the listeners, which would ref its port again: an idle worker never keeps the process
    // alive (the command exits once its server closes); one in use does (see WorkerPool).
    this.worker.unref();
  }

  private end(error?: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.onEvent?.(undefined, error);
  }

  post(message: ToWorker): void {
    this.worker.postMessage(message);
  }

  terminate(): void {
    this.ended = true;
    void this.worker.terminate();
  }
}

/** Whether a worker's end was its heap limit. */
export const outOfHeap = (error: Error | undefined): boolean =>
  (error as NodeJS.ErrnoException | undefined)?.code === "ERR_WORKER_OUT_OF_MEMORY";

/** Workers of one kind: an idle one reused, a new one started when none is, a broken one replaced. */
export class WorkerPool {
  private idle: CodeWorker[] = [];
  private starting: CodeWorker | undefined;

  constructor(
    readonly kind: WorkerKind,
    readonly heapBytes: number,
    public keep: number,
  ) {}

  /** A ready worker of this kind (one started in advance if there is). */
  async acquire(): Promise<CodeWorker> {
    let worker: CodeWorker | undefined;
    while (this.idle.length > 0 && worker === undefined) {
      const idle = this.idle.pop()!;
      if (!idle.ended) worker = idle;
    }
    worker ??= this.starting ?? new CodeWorker(this.kind, this.heapBytes);
    if (worker === this.starting) this.starting = undefined;
    // In use (awaited at start, checking, running), a worker keeps the process alive until released.
    worker.worker.ref();
    await worker.ready;
    return worker;
  }

  /** Gives `worker` back: kept when it is sound, else terminated and another started in its place. */
  release(worker: CodeWorker, sound: boolean): void {
    worker.onEvent = undefined;
    if (sound && !worker.ended && this.idle.length < this.keep) {
      worker.worker.unref();
      this.idle.push(worker);
      return;
    }
    worker.terminate();
    this.warm();
  }

  end(): void {
    for (const worker of [...this.idle, ...(this.starting ? [this.starting] : [])]) worker.terminate();
    this.idle = [];
    this.starting = undefined;
  }

  /** Starts a worker in advance, when none is idle or starting. */
  warm(): void {
    if (this.idle.length > 0 || this.starting !== undefined) return;
    const worker = new CodeWorker(this.kind, this.heapBytes);
    this.starting = worker;
    worker.ready.then(
      () => {
        if (this.starting !== worker) return;
        this.starting = undefined;
        this.idle.push(worker);
      },
      () => {
        if (this.starting === worker) this.starting = undefined;
      },
    );
  }
}

const pools = new Map<string, WorkerPool>();

/** Ends every idle or starting worker of the process (code mode could not start: nothing may keep the process alive). */
export function endWorkers(): void {
  for (const pool of pools.values()) pool.end();
  pools.clear();
}

/**
 * The process's pool of `kind` workers of `heapBytes`: the servers of one process share their
 * workers (a warm TypeScript checker is some 100 MB), each keeping up to the most executes any of
 * them runs at once.
 */
export function sharedPool(kind: WorkerKind, heapBytes: number, keep: number): WorkerPool {
  const key = `${kind}:${heapBytes}`;
  const pool = pools.get(key) ?? new WorkerPool(kind, heapBytes, keep);
  pools.set(key, pool);
  pool.keep = Math.max(pool.keep, keep);
  return pool;
}

/** The CPU time a run has spent by its shared clock, the current slice included. */
export function cpuSpent(clock: Float64Array): number {
  const since = clock[1]!;
  return clock[0]! + (Number.isNaN(since) ? 0 : performance.timeOrigin + performance.now() - since);
}

export { CLOCK_EVERY_MS };
