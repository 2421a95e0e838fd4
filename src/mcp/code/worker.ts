/// <reference types="node" />
/**
 * A code-mode worker thread (node:worker_threads), started by workers.ts with a heap limit of
 * its own and an empty environment: it holds no token and no client. `workerData.kind` says what
 * it does: `"check"` keeps TypeScript's LanguageService warm and type-checks snippets; `"run"`
 * runs one compiled snippet at a time in QuickJS, its `store.*` calls posted to the server's
 * thread (which holds the policy, the contract check and the token) and answered from there.
 *
 * A runaway snippet (a type that takes minutes to check, a C built-in that ignores QuickJS's
 * interrupt, a recursion past the WebAssembly stack) can freeze or break only this thread: the
 * server's thread terminates it and starts another.
 */
import { parentPort, workerData } from "node:worker_threads";
import {
  loadQuickJS,
  runInSandbox,
  stoppedOutcome,
  type HostAnswer,
  type SandboxLimits,
  type SandboxOutcome,
  type StopReason,
} from "./sandbox.js";
import { loadTypeScript, snippetChecker, type SnippetChecker } from "./typecheck.js";
import type { FromWorker, ToWorker } from "./worker-messages.js";

const port = parentPort!;
const post = (message: FromWorker) => port.postMessage(message);
const { kind, clock } = workerData as { kind: "check" | "run"; clock: SharedArrayBuffer };

/** A snippet run once when a run worker starts: strings, arrays, objects, JSON and a promise, as most code uses them. */
const WARM_UP = `async function __codeModeMain() { const a = []; for (let i = 0; i < 2000; i++) a.push({ i, s: "x" + i, l: [i, i * 2] }); let t = JSON.stringify(a); for (let i = 0; i < 20; i++) t = t + t.slice(0, 1000); return JSON.parse(JSON.stringify(a.map((o) => o.s).join(",").split(",").length)) + (await Promise.resolve(t.length)); }`;

/** Calls waiting for the server's answer, by id; and the stop the server asked for. */
const pending = new Map<number, (answer: HostAnswer) => void>();
let stopRun: ((reason: StopReason) => void) | undefined;
let nextId = 0;

async function start(): Promise<void> {
  let checker: SnippetChecker | undefined;
  try {
    if (kind === "check") {
      checker = snippetChecker(await loadTypeScript());
      // Warmed: the declarations parsed once, so that the first agent's check costs what the others do.
      checker.check("return 1;");
    } else {
      // Warmed: V8 compiles WebAssembly functions on their first call, which would count against the first snippet's CPU time.
      await runInSandbox(await loadQuickJS(), WARM_UP, async () => ({ json: "null" }), {
        cpuMs: 10_000,
        memoryBytes: 16 * 1024 * 1024,
        stackBytes: 256 * 1024,
        logChars: 0,
      });
    }
  } catch (error) {
    post({ type: "unavailable", message: error instanceof Error ? error.message : String(error) });
    return;
  }
  port.on("message", (message: ToWorker) => {
    if (message.type === "check") post({ type: "checked", outcome: checker!.check(message.code, message.allowed) });
    else if (message.type === "run") void run(message.javascript, message.limits, message.maxValueBytes);
    else if (message.type === "answer") pending.get(message.id)?.(message.answer);
    else if (message.type === "stop") stopRun?.(message.reason);
  });
  post({ type: "ready" });
}

/** Runs a snippet; the result's value and error message bounded here, before the server's thread scrubs or serialises anything. */
async function run(javascript: string, limits: Omit<SandboxLimits, "clock">, maxValueBytes: number): Promise<void> {
  let outcome: SandboxOutcome;
  let broken = false;
  try {
    outcome = await runInSandbox(
      await loadQuickJS(),
      javascript,
      (name, argsJson, cursor, stop) => {
        stopRun = stop;
        const id = nextId++;
        return new Promise<HostAnswer>((resolve) => {
          pending.set(id, (answer) => {
            pending.delete(id);
            resolve(answer);
          });
          post({ type: "call", id, name, argsJson, cursor });
        });
      },
      { ...limits, clock: new Float64Array(clock) },
    );
  } catch (error) {
    // A C built-in recursed past the thread's stack inside WebAssembly, or QuickJS aborted: this module is not to be trusted again.
    broken = true;
    const stack = error instanceof RangeError || /stack/i.test(String((error as Error)?.message));
    outcome = stoppedOutcome(stack ? "stack" : "memory", limits);
  }
  stopRun = undefined;
  post({ type: "done", outcome: bounded(outcome, maxValueBytes), broken });
}

function bounded(outcome: SandboxOutcome, maxValueBytes: number): SandboxOutcome {
  const { value, error, ...rest } = outcome;
  return {
    ...rest,
    ...(value !== undefined
      ? value.length > maxValueBytes
        ? { valueBytes: Buffer.byteLength(value) }
        : { value }
      : {}),
    ...(error !== undefined
      ? {
          error: {
            name: error.name.slice(0, 100),
            message:
              error.message.length > maxValueBytes / 4
                ? `${error.message.slice(0, maxValueBytes / 4)}…(${error.message.length} characters)`
                : error.message,
          },
        }
      : {}),
  };
}

void start();
