/**
 * The `validateResponses` option (docs/guide.md, "Contract drift"): each 2xx JSON body held
 * against its operation's response schema, after it is parsed and before the call settles, by
 * the validators generated ahead of time (`generated/validators/`: no schema is compiled at run
 * time, Workers refuse `eval`), loaded per operation on its first use.
 *
 * A client without the option (or with `"off"`) loads and runs none of this: the call lifecycle
 * (request.ts) imports this module with a client's first call, before it sends, and calls the
 * check it installs once the body is parsed. Those two lines are all the option adds to the
 * main entry's start (scripts/size.ts, `validationHookGzipBytes`).
 *
 * A drift is reported on the call's span (an event per drift, at most 10) and counter (one per
 * drifting body, by operation), and on the attempt's log event, once per operation, pointer and
 * type received per process; with `"strict"` the attempt then fails with `ContractDriftError`,
 * which the retry policy never retries. Never a value: a pointer, what the contract allows there and the type
 * that came. Not exported from the package.
 */
import type { OperationKey } from "../../generated/operations.js";
import { responseValidators } from "../../generated/validators/responses.js";
import type { Validator } from "../../generated/validators/types.js";
import type { FetchResult } from "../core/call-types.js";
import { ContractDriftError, StoreAdminError, type ContractDrift, type Operation } from "../core/errors.js";
import { noteDrifts, type Logger } from "../core/logger.js";
import { clip, describe } from "../core/redact.js";
import { driftsOf } from "./drift-report.js";
import type { CallTelemetry } from "./telemetry.js";

/** What the check reads of a call. */
interface CheckedCall {
  operation: Operation;
  secrets: readonly string[];
  telemetry: CallTelemetry | undefined;
  init: { parseAs?: unknown };
}

/**
 * Holds an attempt's result against the contract: nothing for anything but a parsed 2xx JSON
 * body; else a drift is reported and, with `"strict"`, thrown as the attempt's
 * `ContractDriftError`. Synchronous once the operation's validators are loaded.
 */
export type BodyCheck = (result: FetchResult, call: CheckedCall, attempt: number, startedMs: number) => void | Promise<void>;

/** What this module reads and sets of a client (request.ts, `ClientContext`). */
export interface DriftContext {
  drift?: unknown;
  logger: Logger | undefined;
  check?: BodyCheck;
}

const MODES: readonly unknown[] = ["off", "report", "strict"];

/**
 * Installs the check of `context.drift` (`"report"` or `"strict"`) as `context.check`.
 * @throws TypeError for a value that is not one of the three: every call of that client fails with it, before it sends.
 */
export default function installDriftCheck(context: DriftContext): void {
  const mode = context.drift;
  if (!MODES.includes(mode)) throw new TypeError(`validateResponses must be one of ${MODES.join(", ")}, got ${describe(mode)}. The request was not sent.`);
  const check = createDriftCheck(mode as "report" | "strict", context.logger);
  context.check = (result, { operation, secrets, telemetry, init }, attempt, startedMs) => {
    const { response, data } = result;
    if (!response.ok || data === undefined || (init.parseAs ?? "json") !== "json") return;
    return check({ operation, response, data, attempt, startedMs, secrets, telemetry });
  };
}

/** One 2xx JSON body. */
interface CheckedBody {
  operation: Operation;
  response: Response;
  data: unknown;
  attempt: number;
  startedMs: number;
  secrets: readonly string[];
  telemetry: CallTelemetry | undefined;
}

/** The most drifts remembered as logged: past it, the oldest is forgotten (and may be logged again). */
export const MAX_WARNED = 1_000;

/** Drifts (operation, pointer and the type received: `GET /users/{id}/ /id null`) logged in this process, oldest first. */
const warned = new Set<string>();

/** Whether `key` is new to the warned set; remembers it. */
export function firstWarning(key: string): boolean {
  if (warned.has(key)) return false;
  if (warned.size >= MAX_WARNED) warned.delete(warned.values().next().value!);
  warned.add(key);
  return true;
}

type Validators = Readonly<Record<string, Validator>>;

/** The check for a client created with `validateResponses: mode`. */
function createDriftCheck(mode: "report" | "strict", logger: Logger | undefined): (body: CheckedBody) => void | Promise<void> {
  // Per operation: its validators once loaded (then every check is synchronous), or the load in flight.
  const loaded = new Map<string, Validators | Promise<Validators | undefined>>();
  const check = (body: CheckedBody, validators: Validators | undefined): void => {
    const status = String(body.response.status);
    const validate = validators?.[status] ?? validators?.[`${status[0]}XX`] ?? validators?.["default"];
    if (!validate || validate(body.data)) return;
    // A pointer holds the body's keys: scrubbed as any text a server sent.
    const found = driftsOf(validate.errors ?? [], body.data);
    const drifts = found.drifts.map((drift) => ({ ...drift, pointer: clip(drift.pointer, body.secrets) }));
    report(body, drifts, found.more, logger);
    // Only "strict" makes the error: it copies the whole body, scrubbed, which "report" would throw away.
    if (mode === "strict") throw new ContractDriftError({ response: body.response, body: body.data, drifts, moreDrifts: found.more, operation: body.operation, secrets: body.secrets });
  };
  return (body) => {
    const key = `${body.operation.method} ${body.operation.path}`;
    const validators = loaded.get(key);
    if (validators instanceof Promise) return validators.then((found) => check(body, found));
    if (validators || !Object.hasOwn(responseValidators, key)) return check(body, validators);
    return load(key).then((found) => check(body, found));
  };

  /** An operation's validators, loaded once; a module that does not load fails a strict check and is tried again by the next. */
  function load(key: string): Promise<Validators | undefined> {
    const loading = responseValidators[key as OperationKey]().then(
      (validators) => (loaded.set(key, validators), validators),
      (cause: unknown) => {
        loaded.delete(key);
        if (mode === "report") return undefined;
        throw new StoreAdminError(`the response was not checked: the SDK's validators for ${key} did not load`, { cause });
      },
    );
    loaded.set(key, loading);
    return loading;
  }
}

/**
 * A drifting body's report: the span's events and count, and, for the attempt's own log event
 * (one per attempt), the drifts not logged before in this process.
 */
function report(body: CheckedBody, drifts: readonly ContractDrift[], moreDrifts: number, logger: Logger | undefined): void {
  body.telemetry?.drift(drifts);
  if (!logger) return;
  const { operation } = body;
  const unlogged = drifts.filter((drift) => firstWarning(`${operation.method} ${operation.path} ${drift.pointer} ${drift.received}`));
  if (unlogged.length > 0) noteDrifts(body.response, { drifts: unlogged, moreDrifts });
}
