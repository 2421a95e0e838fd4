/**
 * Code mode (`store-admin-sdk mcp --mode code`): two tools, `search_docs` and `execute`. An
 * `execute` is TypeScript that uses `store` and returns a value: type-checked against the
 * generated declarations first (typecheck.ts; errors come back with line and column, nothing
 * runs), then run in a fresh QuickJS sandbox (sandbox.ts) whose `store.*` calls cross to the
 * host (host.ts), where the server's policy, its contract check and the token are.
 * Loaded by the server only in this mode, with TypeScript and QuickJS.
 */
import { loadQuickJS, runInSandbox, type SandboxOutcome } from "./sandbox.js";
import { loadTypeScript, snippetChecker, type CompileError, type SnippetChecker } from "./typecheck.js";
import { codeModeHost, type HostContext, type SentCall } from "./host.js";
import { docsSearch, SEARCH_DOCS_TOOL } from "./docs.js";
import type { ToolFilter } from "../tool-list.js";
import { bytesOf, cutResult, type ToolResult } from "../result-size.js";
import type { QuickJSWASMModule } from "quickjs-emscripten";
import type { CodeModeLimits } from "./limits.js";
import { loadOnce } from "#shared";

/** The most characters of code one execute takes. */
const MAX_CODE = 100_000;

const EXECUTE_TOOL = "execute";

/** TypeScript's checker and QuickJS, loaded once: a clear error naming what to install when either is missing. */
interface CodeModeEngines {
  checker: SnippetChecker;
  quickjs: QuickJSWASMModule;
}

const loadChecker = loadOnce(() => loadTypeScript().then((ts) => snippetChecker(ts)));

/** The checker (made once) and QuickJS's module (loaded again after one aborted). */
export async function loadCodeMode(): Promise<CodeModeEngines> {
  const quickjs = loadQuickJS();
  const [ready, module] = await Promise.all([loadChecker(), quickjs]);
  return { checker: ready, quickjs: module };
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
        allowWrites ? "Reads and writes are allowed." : "Only reads are allowed: a method that changes data is refused.",
        "Find methods and their signatures with search_docs.",
      ].join("\n"),
      inputSchema: {
        type: "object" as const,
        properties: { code: { type: "string", description: "TypeScript: the body of an async function that uses `store` and returns a JSON value." } },
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

export function codeModeServer(context: Omit<HostContext, "maxCalls" | "signal"> & { filter: ToolFilter }, limits: Required<CodeModeLimits>, maxBytes: number): CodeModeServer {
  const searchDocs = docsSearch(context.filter, maxBytes);
  return {
    async call(name, input, signal) {
      if (name === SEARCH_DOCS_TOOL.name) return searchDocs(input);
      if (name !== EXECUTE_TOOL) return errorText(`There is no tool ${JSON.stringify(name.slice(0, 100))}. The tools: ${SEARCH_DOCS_TOOL.name}, ${EXECUTE_TOOL}.`);
      const code = input?.code;
      if (typeof code !== "string" || code.trim() === "") return errorText("execute takes { code }: TypeScript, the body of an async function that uses `store` and returns a value.");
      if (code.length > MAX_CODE) return errorText(`execute: the code is ${code.length} characters; it may have at most ${MAX_CODE}.`);
      let loaded: CodeModeEngines;
      try {
        loaded = await loadCodeMode();
      } catch (error) {
        return errorText((error as Error).message);
      }
      const checked = loaded.checker.check(code);
      if (!checked.ok) return compileErrors(checked.errors, context.clean);
      const calls: SentCall[] = [];
      const host = codeModeHost({ calls: context.calls, clean: context.clean, maxCalls: limits.maxCalls, signal }, calls);
      const outcome = await runInSandbox(loaded.quickjs, checked.javascript, host, { ...limits, logChars: Math.floor(maxBytes / 4) });
      return executeResult(outcome, calls, maxBytes, context.clean);
    },
  };
}

const errorText = (text: string): ToolResult => ({ content: [{ type: "text", text }], isError: true });

function compileErrors(errors: CompileError[], clean: (text: string) => string): ToolResult {
  const lines = errors.map((e) => `${e.line}:${e.column} TS${e.code} ${e.message}`);
  const text = clean(`The code does not type-check; nothing was run.\n${lines.join("\n")}`);
  return { content: [{ type: "text", text }], structuredContent: { compiled: false, errors: JSON.parse(clean(JSON.stringify(errors))) as unknown[] }, isError: true };
}

/**
 * The result of a run: its value (or what stopped it), the captured log, and every call with
 * its status; the token scrubbed. Over the cap, the log goes first, then the value is cut: the
 * list of calls always stays.
 */
function executeResult(outcome: SandboxOutcome, calls: SentCall[], maxBytes: number, clean: (text: string) => string): ToolResult {
  const failed = outcome.error !== undefined;
  const base = {
    ...(failed ? { error: outcome.error, ...(outcome.stoppedBy ? { stopped_by: outcome.stoppedBy } : {}) } : {}),
    calls,
  };
  const shaped = (structured: Record<string, unknown>): ToolResult => {
    const text = clean(JSON.stringify(structured));
    return { content: [{ type: "text", text }], structuredContent: JSON.parse(text) as Record<string, unknown>, ...(failed ? { isError: true } : {}) };
  };
  const value = outcome.value === undefined ? {} : { result: JSON.parse(outcome.value) as unknown };
  const logs = { logs: outcome.logs, ...(outcome.logsDropped > 0 ? { logs_dropped_characters: outcome.logsDropped } : {}) };
  const fits = (result: ToolResult) => bytesOf(JSON.stringify(result)) <= maxBytes;
  const whole = shaped({ ...value, ...logs, ...base });
  if (fits(whole)) return whole;
  const withoutLogs = shaped({ ...value, logs: [], logs_dropped_characters: outcome.logs.join("").length + outcome.logsDropped, ...base });
  if (fits(withoutLogs)) return withoutLogs;
  const size = outcome.value === undefined ? 0 : bytesOf(outcome.value);
  const cut = shaped({ result_cut: `The returned value is ${size} bytes, over the ${maxBytes}-byte result cap (--max-result-bytes): return less, or a part at a time.`, logs: [], ...base });
  return fits(cut) ? cut : cutResult(clean(JSON.stringify(cut.structuredContent)), maxBytes, true);
}
