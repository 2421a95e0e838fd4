/**
 * The `validateResponses()` plugin (docs/guide.md, "Contract drift"): each 2xx JSON body held
 * against its operation's response schema, after it is parsed and before the call settles, by
 * the validators generated ahead of time (`generated/validators/`: no schema is compiled at run
 * time, Workers refuse `eval`), loaded per operation on its first use.
 *
 * A client without the plugin ships and runs none of this: it is in `store-admin-sdk/plugins`,
 * never in the main entry.
 *
 * A drift rides on the attempt's outcome (`drift`), where the `telemetry()` plugin records it on
 * the call's span (an event per drift, at most 10) and counter (one per drifting body, by
 * operation), and goes on the attempt's own log event, once per operation, pointer and type
 * received per process; with `"strict"` the attempt then fails with `ContractDriftError`, which
 * the retry policy never retries. Never a value: a pointer, what the contract allows there and
 * the type that came.
 */
import type { OperationKey } from "../../generated/operations.js";
import { responseValidators } from "../../generated/validators/responses.js";
import type { Validator } from "../../generated/validators/types.js";
import {
  ContractDriftError,
  StoreAdminError,
  clip,
  describe,
  noteDrifts,
  secretsOf,
  type AttemptOutcome,
  type ContractDrift,
  type Logger,
  type Operation,
  type StoreAdminPlugin,
} from "#shared";
import { driftsOf } from "./drift-report.js";

const MODES: readonly unknown[] = ["report", "strict"];

/**
 * Holds each 2xx JSON body against its operation's response schema: `"report"` returns as
 * usual and reports a drift (a span event and a count with `telemetry()`, a `warn` once per
 * field through the logger); `"strict"` fails the call with `ContractDriftError`, never retried.
 * @throws TypeError for any other mode.
 */
export function validateResponses(mode: "report" | "strict"): StoreAdminPlugin {
  if (!MODES.includes(mode))
    throw new TypeError(`validateResponses() takes "report" or "strict", got ${describe(mode)}.`);
  let logger: Logger | undefined;
  const validateBody = bodyValidation(mode, () => logger);
  return {
    name: "validate-responses",
    setup(client) {
      logger = client.logger;
    },
    async wrapAttempt(attempt, next) {
      const outcome = await next();
      const { response, data, error } = outcome;
      const { call } = attempt;
      // A parsed 2xx JSON body only: a stream, a text or a blob is the caller's to read.
      if (error !== undefined || !response?.ok || data === undefined || call.parseAs !== "json") return outcome;
      const drift = await validateBody({
        operation: { method: call.method, path: call.path },
        response,
        data,
        attempt: attempt.number,
        startedMs: performance.now() - outcome.durationMs,
        secrets: secretsOf(call),
      });
      if (!drift) return outcome;
      const failed: AttemptOutcome = { ...outcome, drift, ...(mode === "strict" ? { error: drift } : {}) };
      return failed;
    },
  };
}

/** One 2xx JSON body, to validate. */
interface ResponseBody {
  operation: Operation;
  response: Response;
  data: unknown;
  attempt: number;
  startedMs: number;
  secrets: readonly string[];
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

/** The validation of `validateResponses(mode)`: a body's drift from the contract, if any. */
function bodyValidation(
  mode: "report" | "strict",
  logger: () => Logger | undefined,
): (body: ResponseBody) => ContractDriftError | undefined | Promise<ContractDriftError | undefined> {
  // Per operation: its validators once loaded (then every validation is synchronous), or the load in flight.
  const loaded = new Map<string, Validators | Promise<Validators | undefined>>();
  const validated = (body: ResponseBody, validators: Validators | undefined): ContractDriftError | undefined => {
    const status = String(body.response.status);
    const validate = validators?.[status] ?? validators?.[`${status[0]}XX`] ?? validators?.["default"];
    if (!validate || validate(body.data)) return undefined;
    // A pointer holds the body's keys: scrubbed as any text a server sent.
    const found = driftsOf(validate.errors ?? [], body.data);
    const drifts = found.drifts.map((drift) => ({ ...drift, pointer: clip(drift.pointer, body.secrets) }));
    // Made in both modes (telemetry and the logger read it off the outcome; "strict" throws it);
    // its scrubbed copy of the body is made only if something reads `body`.
    const error = new ContractDriftError({
      response: body.response,
      body: body.data,
      drifts,
      moreDrifts: found.more,
      operation: body.operation,
      secrets: body.secrets,
    });
    report(body, drifts, found.more, logger());
    return error;
  };
  return (body) => {
    const key = `${body.operation.method} ${body.operation.path}`;
    const validators = loaded.get(key);
    if (validators instanceof Promise) return validators.then((found) => validated(body, found));
    if (validators || !Object.hasOwn(responseValidators, key)) return validated(body, validators);
    return load(key).then((found) => validated(body, found));
  };

  /** An operation's validators, loaded once; a module that does not load fails a strict validation and is tried again by the next. */
  function load(key: string): Promise<Validators | undefined> {
    const loading = responseValidators[key as OperationKey]().then(
      (validators) => (loaded.set(key, validators), validators),
      (cause: unknown) => {
        loaded.delete(key);
        if (mode === "report") return undefined;
        throw new StoreAdminError(`the response was not checked: the SDK's validators for ${key} did not load`, {
          cause,
        });
      },
    );
    loaded.set(key, loading);
    return loading;
  }
}

/**
 * A drifting body's report for the attempt's own log event (one per attempt): the drifts not
 * logged before in this process. The span's events and count are telemetry()'s, off the outcome.
 */
function report(
  body: ResponseBody,
  drifts: readonly ContractDrift[],
  moreDrifts: number,
  logger: Logger | undefined,
): void {
  if (!logger) return;
  const { operation } = body;
  const unlogged = drifts.filter((drift) =>
    firstWarning(`${operation.method} ${operation.path} ${drift.pointer} ${drift.received}`),
  );
  if (unlogged.length > 0) noteDrifts(body.response, { drifts: unlogged, moreDrifts });
}
