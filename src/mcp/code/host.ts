/**
 * The host's side of code mode's `store.*` calls. A call arrives as strings only (a method
 * name, its arguments' JSON text, a list's cursor); the name must be one of the generated
 * rows', the text plain JSON within a size, and the call then goes through exactly the checks
 * of the per-operation tools, in their code (operation-call.ts, `checkedSend`): the server's
 * policy (reads only unless writes are allowed, the scopes, the tools), the arguments' check,
 * the contract check before sending, then the SDK's client, which holds the token. What goes back is the answer's JSON, or an error's name,
 * message, status and (a 422's) validation list, scrubbed of the token; never a host stack trace.
 */
import { cursorOf, StoreAdminError } from "#shared";
import { codeModeRows, type CodeModeRow } from "../../../generated/code-mode.js";
import { toolNamed } from "../tool-list.js";
import { ToolArgumentError } from "../tool-call.js";
import type { OperationCalls } from "../operation-call.js";
import type { HostAnswer, HostCall } from "./sandbox.js";

/** One call the code made: the method, and the HTTP status, or why it was not sent. */
export interface SentCall {
  method: string;
  status: number | "not sent" | "failed";
}

/** What the host needs of the server: its checked calls (the policy, the contract check, the client). */
export interface HostContext {
  calls: Pick<OperationCalls, "checkedSend">;
  /** Scrubs the token out of text that leaves. */
  clean(text: string): string;
  maxCalls: number;
  signal?: AbortSignal | undefined;
}

/** The most bytes one call's arguments may take as JSON: a file's base64 fits. */
const MAX_ARGUMENTS_BYTES = 8 * 1024 * 1024;

/** The rows by method name, own properties only: `constructor` or `__proto__` names none. */
const rowsByName = new Map<string, CodeModeRow>(codeModeRows.map((row) => [row[0], row]));

const refuse = (message: string, name = "TypeError"): HostAnswer => ({ error: { name, message } });

/** A host that answers one `execute`'s calls and records them in `calls`. */
export function codeModeHost(context: HostContext, calls: SentCall[]): HostCall {
  return async (name, argsJson, cursor, stop) => {
    const row = rowsByName.get(name);
    if (row === undefined) {
      calls.push({ method: name.slice(0, 100), status: "not sent" });
      return refuse(`store.${name.slice(0, 100)} is not an operation method.`);
    }
    if (calls.length >= context.maxCalls) {
      calls.push({ method: name, status: "not sent" });
      stop("calls");
      return refuse(
        `Not sent: this execute has made its ${context.maxCalls} calls (the server's --max-calls).`,
        "LimitError",
      );
    }
    const tool = toolNamed(name.replace(/\./g, "_"))!;
    const record: SentCall = { method: name, status: "not sent" };
    calls.push(record);
    try {
      const args = callArguments(row, argsJson, cursor);
      const { data, status } = await context.calls.checkedSend(tool, args, context.signal);
      record.status = status;
      return { json: context.clean(JSON.stringify(answerOf(row, data) ?? null)) };
    } catch (error) {
      if (error instanceof ToolArgumentError)
        return refuse(context.clean(`Not sent: ${error.message}`), "NotSentError");
      // Past the checks, a failure was sent (or tried): its status, or "failed".
      record.status = "failed";
      if (error instanceof StoreAdminError) {
        const { status, validation } = error as { status?: unknown; validation?: unknown };
        if (typeof status === "number") record.status = status;
        return {
          error: {
            name: error.name,
            message: context.clean(error.message),
            ...(typeof status === "number" ? { status } : {}),
            // A 422's invalid fields (UnprocessableEntityError's), which code reads as the SDK's callers do.
            ...(Array.isArray(validation) ? { validation: context.clean(JSON.stringify(validation)) } : {}),
          },
        };
      }
      return {
        error: {
          name: "Error",
          message: context.clean(`store.${name} failed: ${error instanceof Error ? error.message : String(error)}`),
        },
      };
    }
  };
}

/** A list's page as the sandbox's generator reads it: its items and the next page's cursor. */
function answerOf(row: CodeModeRow, data: unknown): unknown {
  if (!row[3]) return data;
  const page = (data ?? {}) as { results?: unknown; next?: unknown };
  const next = typeof page.next === "string" ? (cursorOf(page.next, "http://relative.invalid") ?? null) : null;
  return { items: Array.isArray(page.results) ? page.results : [], next_cursor: next };
}

/** The positional arguments' JSON as `{ path, query, body }` (checked next as a tool's arguments), or a {@link ToolArgumentError} saying what is wrong. */
function callArguments(row: CodeModeRow, argsJson: string, cursor: string | undefined): Record<string, unknown> {
  const [name, pathParams, rest, paginated] = row;
  if (argsJson.length > MAX_ARGUMENTS_BYTES)
    throw new ToolArgumentError(
      `store.${name}(): the arguments are ${argsJson.length} characters of JSON; a call takes at most ${MAX_ARGUMENTS_BYTES}.`,
    );
  let args: unknown;
  try {
    args = JSON.parse(argsJson);
  } catch {
    throw new ToolArgumentError(`store.${name}(): the arguments are not JSON.`);
  }
  const kinds = rest === "" ? [] : rest.split("+");
  const arity = pathParams.length + kinds.length;
  if (!Array.isArray(args) || args.length > arity) {
    throw new ToolArgumentError(
      `store.${name}() takes ${[...pathParams, ...kinds].join(", ") || "no arguments"}, got ${Array.isArray(args) ? `${args.length} arguments` : "something else"}.`,
    );
  }
  const given: Record<string, unknown> = {};
  if (pathParams.length > 0)
    given.path = Object.fromEntries(
      pathParams.map((param, i) => [param, args[i]]).filter(([, value]) => value !== undefined && value !== null),
    );
  kinds.forEach((kind, i) => {
    const value = args[pathParams.length + i];
    if (value !== undefined && value !== null) given[kind] = value;
  });
  if (paginated && cursor !== undefined) given.query = { ...((given.query as object | undefined) ?? {}), cursor };
  return given;
}
