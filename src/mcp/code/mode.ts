/**
 * Code mode (`store-admin-sdk mcp --mode code`): two tools, `search_docs` and `execute`. An
 * `execute` is TypeScript that uses `store` and returns a value: type-checked against the
 * generated declarations first (typecheck.ts; errors come back with line and column, nothing
 * runs), then run in a fresh QuickJS sandbox (sandbox.ts) whose `store.*` calls cross to the
 * host (host.ts), where the server's policy, its contract check and the token are.
 * Loaded by the server only in this mode, with TypeScript and QuickJS.
 */
import { codeModeHost, type HostContext, type SentCall } from "./host.js";
import { docsSearch, SEARCH_DOCS_TOOL } from "./docs.js";
import { isolatedEngines, type CheckStopped } from "./isolated.js";
import { endWorkers } from "./workers.js";
import { executeGate, EXECUTE_QUEUE } from "./gate.js";
import { codeModeLimits, type CodeModeLimits } from "./limits.js";
import { stoppedOutcome, type SandboxOutcome } from "./sandbox.js";
import type { CompileError } from "./typecheck.js";
import { listedTools, type ToolFilter } from "../tool-list.js";
import { mcpTools } from "../../../generated/mcp-tools.js";
import { bytesOf, cutResult, type ToolResult } from "../result-size.js";

/** The most characters of code one execute takes. */
const MAX_CODE = 100_000;

const EXECUTE_TOOL = "execute";

/**
 * Checks that code mode can start: TypeScript and QuickJS load, each in a worker as an execute
 * uses them; a clear error naming what to install when either is missing.
 */
export async function loadCodeMode(limits: CodeModeLimits = {}): Promise<void> {
  // The workers started here are kept, warm, for the server's executes.
  try {
    await isolatedEngines({ ...codeModeLimits({ code: limits }, "code"), logChars: 0 }).ready();
  } catch (error) {
    endWorkers();
    throw error;
  }
}

export function codeModeListing(limits: Required<CodeModeLimits>, allowWrites: boolean) {
  return [
    SEARCH_DOCS_TOOL,
    {
      name: EXECUTE_TOOL,
      title: "Run TypeScript against the store",
      description: [
        "Runs TypeScript that uses `store` (the SDK's operation methods, e.g. `await store.users.retrieve(42)`, `for await (const user of store.users.list({ email }))`) and returns a value.",
        "The code is the body of an async function: use `await` and `return` at its top level. It is type-checked first; type errors come back with line and column and nothing runs.",
        "It runs in a sandbox: no fetch, timers, modules or files; arguments and results are JSON; a file to upload is { filename, contentType?, base64 }; `console.log` is captured.",
        `Limits per execute: ${limits.cpuMs} ms of CPU, ${Math.round(limits.memoryBytes / 1024 / 1024)} MB of memory, ${limits.maxCalls} store calls (a list's page is one).`,
        allowWrites
          ? "Reads and writes are allowed."
          : "Only reads are allowed: a method that changes data is refused.",
        "Find methods and their signatures with search_docs.",
      ].join("\n"),
      inputSchema: {
        type: "object" as const,
        properties: {
          code: {
            type: "string",
            description: "TypeScript: the body of an async function that uses `store` and returns a JSON value.",
          },
        },
        required: ["code"],
        additionalProperties: false,
      },
      annotations: { title: "Run TypeScript against the store", readOnlyHint: !allowWrites, openWorldHint: true },
    },
  ];
}

interface CodeModeServer {
  call(name: string, input: Record<string, unknown> | undefined, signal: AbortSignal): Promise<ToolResult>;
}

export function codeModeServer(
  context: Omit<HostContext, "maxCalls" | "signal"> & { filter: ToolFilter },
  limits: Required<CodeModeLimits>,
  maxBytes: number,
): CodeModeServer {
  const searchDocs = docsSearch(context.filter, maxBytes);
  const engines = isolatedEngines({ ...limits, logChars: Math.floor(maxBytes / 4) });
  const gate = executeGate(limits.maxExecutes);
  // What `store` declares to the type check: the methods the policy allows (all: the declarations as generated).
  const listed = listedTools(context.filter).map((row) => row.methodName);
  const allowed = listed.length === mcpTools.length ? undefined : listed;
  return {
    async call(name, input, signal) {
      if (name === SEARCH_DOCS_TOOL.name) return searchDocs(input);
      if (name !== EXECUTE_TOOL)
        return errorText(
          `There is no tool ${JSON.stringify(name.slice(0, 100))}. The tools: ${SEARCH_DOCS_TOOL.name}, ${EXECUTE_TOOL}.`,
        );
      const code = input?.code;
      if (typeof code !== "string" || code.trim() === "")
        return errorText(
          "execute takes { code }: TypeScript, the body of an async function that uses `store` and returns a value.",
        );
      if (code.length > MAX_CODE)
        return errorText(`execute: the code is ${code.length} characters; it may have at most ${MAX_CODE}.`);
      const entered = gate.enter(signal);
      if (entered === undefined) {
        return errorText(
          `The server is busy: ${limits.maxExecutes} executes are running and ${EXECUTE_QUEUE} are waiting (the server's --max-executes); nothing was run. Try again in a moment.`,
        );
      }
      const leave = await entered;
      try {
        return await execute(code, signal);
      } finally {
        leave();
      }
    },
  };

  async function execute(code: string, signal: AbortSignal): Promise<ToolResult> {
    // The whole execute's wall clock, type check included, from when it leaves the queue.
    const deadline = performance.now() + limits.timeoutMs;
    const checked = await engines.check(code, deadline, allowed);
    if ("unavailable" in checked) return errorText(checked.unavailable);
    if ("stopped" in checked) {
      if (checked.stopped === "timeout")
        return executeResult(stoppedOutcome("timeout", limits), [], maxBytes, context.clean);
      return checkStopped(checked, limits);
    }
    if (!checked.ok) return compileErrors(checked.errors, context.clean, allowed !== undefined);
    const calls: SentCall[] = [];
    const ended = new AbortController();
    const host = codeModeHost(
      {
        calls: context.calls,
        clean: context.clean,
        maxCalls: limits.maxCalls,
        signal: AbortSignal.any([signal, ended.signal]),
      },
      calls,
    );
    const outcome = await engines.run(checked.javascript, host, deadline, maxBytes, ended);
    if (outcome.stoppedBy === "calls")
      return executeResult(callsStopped(outcome, limits.maxCalls), compactCalls(calls), maxBytes, context.clean);
    return executeResult(outcome, calls, maxBytes, context.clean);
  }
}

/** The calls limit's result names the limit. */
function callsStopped(outcome: SandboxOutcome, maxCalls: number): SandboxOutcome {
  return {
    ...outcome,
    error: {
      name: "LimitError",
      message: `Stopped: the code made more than ${maxCalls} store calls, the most one execute makes (the server's --max-calls); the call past them was not sent.`,
    },
  };
}

/** Runs of the same method with the same status as one entry with their `count`: a call storm's list stays short. */
function compactCalls(calls: readonly SentCall[]): Array<SentCall & { count?: number }> {
  const out: Array<SentCall & { count?: number }> = [];
  for (const call of calls) {
    const last = out[out.length - 1];
    if (last !== undefined && last.method === call.method && last.status === call.status)
      last.count = (last.count ?? 1) + 1;
    else out.push({ ...call });
  }
  return out;
}

/** A type check a bound ended, as a compile error that names the bound: nothing ran. */
function checkStopped(
  checked: Extract<CheckStopped, { stopped: string }>,
  limits: Required<CodeModeLimits>,
): ToolResult {
  const message =
    checked.stopped === "check_time"
      ? `The type check took longer than ${limits.checkMs} ms (the server's --check-ms) and was stopped; nothing was run. Use simpler types.`
      : `The type check needed more than ${Math.round(limits.workerMemoryBytes / 1024 / 1024)} MB of memory (the server's --worker-memory-mb) and was stopped; nothing was run. Use simpler types.`;
  const errors: CompileError[] = [{ line: 1, column: 1, code: 0, message }];
  return {
    content: [{ type: "text", text: `The code does not type-check; nothing was run.\n${message}` }],
    structuredContent: { compiled: false, stopped_by: checked.stopped, errors },
    isError: true,
  };
}

const errorText = (text: string): ToolResult => ({ content: [{ type: "text", text }], isError: true });

/** TypeScript's "Property 'x' does not exist on type …" (and its "Did you mean" form). */
const NO_SUCH_MEMBER = new Set([2339, 2551]);

function compileErrors(errors: CompileError[], clean: (text: string) => string, narrowed: boolean): ToolResult {
  const lines = errors.map((e) => `${e.line}:${e.column} TS${e.code} ${e.message}`);
  // A method the policy leaves out is no member of `store`: say why, beside TypeScript's words.
  if (narrowed && errors.some((e) => NO_SUCH_MEMBER.has(e.code)))
    lines.push(
      "`store` declares only the methods this server allows: reads only unless it is started with --allow-writes, and only those its --scopes and --tools allow. search_docs finds them.",
    );
  const text = clean(`The code does not type-check; nothing was run.\n${lines.join("\n")}`);
  return {
    content: [{ type: "text", text }],
    structuredContent: { compiled: false, errors: JSON.parse(clean(JSON.stringify(errors))) as unknown[] },
    isError: true,
  };
}

/**
 * The result of a run: its value (or what stopped it), the captured log, and every call with
 * its status; the token scrubbed. Over the cap, the log goes first, then the value is cut: the
 * list of calls always stays.
 */
function executeResult(
  outcome: SandboxOutcome,
  calls: ReadonlyArray<SentCall & { count?: number }>,
  maxBytes: number,
  clean: (text: string) => string,
): ToolResult {
  const failed = outcome.error !== undefined;
  const base = {
    ...(failed ? { error: outcome.error, ...(outcome.stoppedBy ? { stopped_by: outcome.stoppedBy } : {}) } : {}),
    calls,
  };
  const shaped = (structured: Record<string, unknown>): ToolResult => {
    const text = clean(JSON.stringify(structured));
    return {
      content: [{ type: "text", text }],
      structuredContent: JSON.parse(text) as Record<string, unknown>,
      ...(failed ? { isError: true } : {}),
    };
  };
  const value = outcome.value === undefined ? {} : { result: JSON.parse(outcome.value) as unknown };
  const logs = {
    logs: outcome.logs,
    ...(outcome.logsDropped > 0 ? { logs_dropped_characters: outcome.logsDropped } : {}),
  };
  const fits = (result: ToolResult) => bytesOf(JSON.stringify(result)) <= maxBytes;
  const whole = shaped({ ...value, ...logs, ...base });
  if (outcome.valueBytes === undefined && fits(whole)) return whole;
  const withoutLogs = shaped({
    ...value,
    logs: [],
    logs_dropped_characters: outcome.logs.join("").length + outcome.logsDropped,
    ...base,
  });
  if (outcome.valueBytes === undefined && fits(withoutLogs)) return withoutLogs;
  const size = outcome.valueBytes ?? (outcome.value === undefined ? 0 : bytesOf(outcome.value));
  const cut = shaped({
    result_cut: `The returned value is ${size} bytes, over the ${maxBytes}-byte result cap (--max-result-bytes): return less, or a part at a time.`,
    logs: [],
    ...base,
  });
  return fits(cut) ? cut : cutResult(clean(JSON.stringify(cut.structuredContent)), maxBytes, true);
}
