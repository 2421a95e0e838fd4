/**
 * Real worker processes for the queue tests: `node --import tsx fixtures/worker.ts`, each with
 * its own client, killable by pid (SIGKILL: a machine that dies, SIGTERM: a clean stop).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { PrintedSpan } from "../fixtures/worker.js";

const WORKER = fileURLToPath(new URL("../fixtures/worker.ts", import.meta.url));

/** A line the worker printed: ready, an error it heard, or a finished span (with `TRACE=1`). */
export interface WorkerMessage {
  ready?: boolean;
  error?: string;
  span?: PrintedSpan;
}

export interface WorkerProcess {
  readonly pid: number;
  /** JSON lines the worker printed so far. */
  readonly messages: ReadonlyArray<WorkerMessage>;
  readonly stderr: string;
  /** Resolves once the worker printed `{"ready":true}`. */
  readonly ready: Promise<void>;
  /** Resolves with how the process ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: "SIGKILL" | "SIGTERM"): Promise<void>;
}

export interface WorkerEnv {
  QUEUE: string;
  REDIS_PORT: number;
  API_URL: string;
  STORE_TOKEN: string;
  RATE?: number;
  CONCURRENCY?: number;
  LOCK_MS?: number;
  MAX_PAUSE_MS?: number;
  /** "1": the worker's client has `idempotencyKey({ header: "Idempotency-Key" })`. */
  IDEMPOTENCY?: string;
  /** "1": the worker's client has `telemetry` and prints its spans. */
  TRACE?: string;
  /** "dist": the worker runs the built package. */
  SDK?: string;
}

export function startWorker(settings: WorkerEnv): WorkerProcess {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(settings)) if (value !== undefined) env[name] = String(value);
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", WORKER], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const messages: Array<WorkerMessage> = [];
  let stderr = "";
  let buffered = "";
  let onReady: () => void = () => undefined;
  let onFail: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    onReady = resolve;
    onFail = reject;
  });
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    for (let newline = buffered.indexOf("\n"); newline >= 0; newline = buffered.indexOf("\n")) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      try {
        const message = JSON.parse(line) as WorkerMessage;
        messages.push(message);
        if (message.ready) onReady();
      } catch {
        stderr += `${line}\n`;
      }
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      onFail(new Error(`worker ${child.pid} exited (${signal ?? code}) before it was ready:\n${stderr}`));
      resolve({ code, signal });
    }),
  );
  return {
    pid: child.pid!,
    messages,
    get stderr() {
      return stderr;
    },
    ready,
    exited,
    async kill(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(child.pid!, signal);
      await exited;
    },
  };
}
