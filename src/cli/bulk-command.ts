/// <reference types="node" />
/**
 * `store-admin-sdk bulk METHOD PATH --input FILE …`: `runBulk` over the calls of a file.
 *
 * Exit status: 130 when Ctrl-C stopped it (once or twice, even with calls failed or in doubt:
 * run the same command again to go on from its ledger, `<input>.ledger` by default), 75 when the
 * store asked for a pause longer than `--max-pause` (run it again after the time it printed),
 * else 0 when every call is done (or was done by an earlier run), 1 when a call failed or is in
 * doubt, 2 when the run could not start or stopped on an error (bad arguments, input, ledger or an output file that cannot be written).
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import { clip, createStoreAdminClient, describe, type StoreAdminClient } from "#shared";
import { fileLedger } from "../bulk/file-ledger.js";
import { memoryLedger } from "../bulk/memory-ledger.js";
import { canonicalJson } from "../bulk/fingerprint.js";
import { CallChangedError, runBulk } from "../bulk/run.js";
import type { BulkReport, BulkTask, Ledger } from "../bulk/types.js";
import { distinctKeys, keyAt, keyOrLine, legacyPathKey, pathKey, type KeyedCall } from "./call-key.js";
import { clientOf, storeOptionsFromEnv } from "./environment.js";
import { countCalls, csvRows, formatOf, InputError, jsonLines, operationOf, type InputCall } from "./input.js";
import { DEFAULT_MAX_LINE_BYTES, regularInput } from "./lines.js";
import { secondsOption } from "./seconds-option.js";
import { checkOutputs, type OutputFile } from "./output-file.js";
import { progressOutput } from "./progress.js";
import { summarize, type SummaryOf } from "./bulk-summary.js";

const EXIT_OK = 0;
const EXIT_FAILED = 1;
export const EXIT_ERROR = 2;
const EXIT_INTERRUPTED = 130;
/** sysexits' EX_TEMPFAIL: a scheduler that knows it retries later, as the store asked. */
const EXIT_PAUSED = 75;

interface BulkFlags {
  input: string;
  format?: string;
  key?: string;
  rate?: number;
  concurrency: number;
  /** A path, `false` for `--no-ledger`, undefined for the default beside the input. */
  ledger?: string | false;
  maxLineBytes: number;
  /** Seconds: a longer `Retry-After` stops the run (`maxPauseMs`). */
  maxPause: number;
  runId?: string;
  failures?: string;
  inDoubt?: string;
  dryRun?: boolean;
  retryFailed: boolean;
  rerunInDoubt?: boolean;
  progress: "auto" | "bar" | "lines" | "none";
}

const positiveNumber =
  (name: string, whole: boolean) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || (whole && !Number.isInteger(n))) {
      throw new InvalidArgumentError(
        `${name} must be a ${whole ? "whole number ≥ 1" : "positive number"}, got ${JSON.stringify(value)}.`,
      );
    }
    return n;
  };

/** Adds the `bulk` command to `program`; its action sets `process.exitCode`. */
export function bulkCommand(
  program: Command,
  io: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream; env: NodeJS.ProcessEnv },
): Command {
  return program
    .command("bulk")
    .description(
      "Run one operation for every line of a JSON-lines or CSV file: rate-limited, resumable, each call recorded in a ledger.",
    )
    .argument("<method>", "HTTP method of the operation (POST, PATCH, PUT, GET)")
    .argument("<path>", "path template of the operation, e.g. /gift-cards/{id}/")
    .requiredOption(
      "--input <file>",
      "the calls: JSON lines of { path, query, body }, or CSV with dotted headers (path.id,body.expired_at)",
    )
    .addOption(
      new Option("--format <format>", "input format (default: csv for a .csv file, else jsonl)").choices([
        "jsonl",
        "csv",
      ]),
    )
    .option(
      "--key <field>",
      "dotted field of a call naming its item, e.g. path.id (default: the path values joined with /, each escaped when one holds a /)",
    )
    .option("--rate <n>", "requests started per second, at most", positiveNumber("--rate", false))
    .option("--concurrency <n>", "calls in flight at most", positiveNumber("--concurrency", true), 4)
    .option(
      "--ledger <file>",
      "ledger file: records each call, so that running the same command again resumes (default: <input>.ledger; for a failures or in-doubt file, that of its input)",
    )
    .option("--no-ledger", "keep no ledger: running the command again sends every call again")
    .option("--run-id <id>", "names the run in the ledger (default: METHOD PATH)")
    .option(
      "--failures <file>",
      "where failed calls are written, as JSON lines that can be fed back as --input (default: <input>.failures.jsonl, or <input>.dry-run.failures.jsonl for --dry-run)",
    )
    .option(
      "--in-doubt <file>",
      "where the calls in doubt are written, as JSON lines with their input line (default: <input>.in-doubt.jsonl)",
    )
    .option(
      "--max-line-bytes <n>",
      "longest input line read, in bytes; a longer line is a failed call",
      positiveNumber("--max-line-bytes", true),
      DEFAULT_MAX_LINE_BYTES,
    )
    .option(
      "--max-pause <seconds>",
      "longest pause a 429 or 503's Retry-After may impose; a longer one stops the run (exit 75) and says when to run it again",
      secondsOption("--max-pause"),
      600,
    )
    .option(
      "--dry-run",
      "check every call against the contract and answer with its examples; send nothing, record nothing (failures: <input>.dry-run.failures.jsonl)",
    )
    .option("--no-retry-failed", "on a resume, leave calls that failed before as they are")
    .option("--rerun-in-doubt", "on a resume, run again calls in doubt (a POST or PATCH that may have been acted on)")
    .addOption(
      new Option("--progress <mode>", "progress output on stderr")
        .choices(["auto", "bar", "lines", "none"])
        .default("auto"),
    )
    .addHelpText(
      "after",
      `
Environment: STORE_ADMIN_URL (the store's address) or STORE_ADMIN_API_URL (an API root: a mock,
a proxy), and STORE_ADMIN_TOKEN. Ctrl-C stops taking calls and lets those in flight finish; a
second Ctrl-C aborts them. Exit status: 130 interrupted by Ctrl-C (run the same command again to
resume from the ledger), 75 the store asked for a pause longer than --max-pause (run it again
after the time printed), else 0 all done, 1 a call failed or is in doubt, 2 an error.`,
    )
    .action(async (method: string, path: string, flags: BulkFlags) => {
      process.exitCode = await bulk(method, path, flags, io);
    });
}

/**
 * The ledger of a run: `--ledger`, or `<input>.ledger` beside the input, so that a write is never
 * sent twice by running the command again. A failures or in-doubt file written by the command
 * shares the ledger of the input it came from: fed back, its calls keep their records.
 */
function ledgerPath(flags: BulkFlags): string | undefined {
  if (flags.ledger === false) return undefined;
  return flags.ledger ?? `${flags.input.replace(/\.(dry-run\.)?(failures|in-doubt)\.jsonl$/, "")}.ledger`;
}

function clientFromEnv(env: NodeJS.ProcessEnv, dryRun: boolean): StoreAdminClient {
  if (dryRun) return createStoreAdminClient({ apiUrl: "http://127.0.0.1/dry-run", accessToken: "dry-run" });
  return clientOf(storeOptionsFromEnv(env));
}

/** What a call sends, as the ledger binds it to its key: the operation and the call's parts. */
function callFingerprint(operation: string, call: InputCall): string {
  const { path, query, body } = call;
  return canonicalJson([operation, { path, query, body }]);
}

/** A Ctrl-C stops taking calls (`soft`); a second one aborts those in flight (`hard`). */
interface Interrupts {
  readonly soft: AbortController;
  readonly hard: AbortController;
  /** How many times Ctrl-C was pressed. */
  count(): number;
  /** Stops listening for Ctrl-C. */
  off(): void;
}

function interruptsOn(stderr: NodeJS.WriteStream): Interrupts {
  const soft = new AbortController();
  const hard = new AbortController();
  let interrupts = 0;
  const onInterrupt = (): void => {
    interrupts++;
    if (interrupts === 1) {
      soft.abort(new Error("interrupted"));
      stderr.write("\nStopping: no new calls; waiting for the calls in flight (Ctrl-C again to abort them).\n");
    } else {
      hard.abort(new Error("interrupted twice"));
      stderr.write("\nAborting the calls in flight; a POST or PATCH among them is left in doubt.\n");
    }
  };
  process.on("SIGINT", onInterrupt);
  return { soft, hard, count: () => interrupts, off: () => process.off("SIGINT", onInterrupt) };
}

/** What the arguments and the input make of a run, checked before any call is sent. */
interface BulkPlan extends SummaryOf {
  /** The method, upper-cased, and the path template. */
  readonly upper: string;
  readonly path: string;
  readonly flags: BulkFlags;
  readonly client: StoreAdminClient;
  /** How many calls the input holds, when it can be counted. */
  readonly total: number | undefined;
  /** Reads the input's calls (again: a run of millions of calls is never held). */
  readonly read: () => AsyncIterable<InputCall>;
  readonly key: (call: InputCall) => string;
  /** The ledger's path; undefined for a dry run or `--no-ledger`. */
  readonly ledger: string | undefined;
  readonly runLedger: Ledger;
  readonly failuresFile: OutputFile;
  readonly inDoubtFile: OutputFile;
  /** The key 0.3.0 gave a call, looked for in a ledger kept from an earlier run. */
  readonly legacyKey: (call: InputCall) => string | undefined;
}

async function planOf(method: string, path: string, flags: BulkFlags, env: NodeJS.ProcessEnv): Promise<BulkPlan> {
  const upper = method.toUpperCase();
  const operation = operationOf(upper, path);
  const format = formatOf(flags.input, flags.format);
  const client = clientFromEnv(env, flags.dryRun === true);
  await regularInput(flags.input);
  const total = await countCalls(flags.input, format, flags.maxLineBytes);
  const read = () =>
    format === "csv" ? csvRows(flags.input, operation, flags.maxLineBytes) : jsonLines(flags.input, flags.maxLineBytes);
  const key = keyOrLine(
    flags.key === undefined
      ? pathKey(path, flags.input)
      : (call: InputCall) => keyAt(call, flags.key!, `--key ${flags.key}`, flags.input),
  );
  const ledger = flags.dryRun ? undefined : ledgerPath(flags);
  // A dry run's failures never take the place of a real run's.
  const failuresFile: OutputFile = {
    flag: "--failures",
    path: flags.failures ?? `${flags.input}${flags.dryRun ? ".dry-run" : ""}.failures.jsonl`,
  };
  const inDoubtFile: OutputFile = { flag: "--in-doubt", path: flags.inDoubt ?? `${flags.input}.in-doubt.jsonl` };
  const ledgerFile: OutputFile | undefined = ledger === undefined ? undefined : { flag: "--ledger", path: ledger };
  await checkOutputs(
    flags.dryRun ? [failuresFile] : [failuresFile, inDoubtFile],
    [{ flag: "--input", path: flags.input }, ...(ledgerFile ? [ledgerFile] : [])],
    ledgerFile,
  );
  const runLedger = ledger === undefined ? memoryLedger() : fileLedger(ledger);
  // Only a ledger kept from an earlier run can hold a key of 0.3.0.
  const legacyKey =
    flags.key === undefined && ledger !== undefined ? legacyPathKey(path, flags.input) : () => undefined;
  return {
    upper,
    path,
    flags,
    dryRun: flags.dryRun === true,
    client,
    total,
    read,
    key,
    ledger,
    runLedger,
    failuresFile,
    inDoubtFile,
    legacyKey,
  };
}

/** The task of each call: refuses an invalid line or a key 0.3.0 recorded, sends the call (telling `sending`), and keeps the calls that failed (by key). */
function callTask(plan: BulkPlan, failedCalls: Map<string, KeyedCall>, sending: () => void): BulkTask<KeyedCall> {
  const { upper, path, flags, runLedger, legacyKey } = plan;
  return async (call, { client: runClient, signal, key: itemKey }) => {
    const init = { params: { path: call.path, query: call.query }, body: call.body, signal };
    try {
      if (call.invalid !== undefined) throw new InputError(call.invalid);
      const legacy = legacyKey(call);
      if (legacy !== undefined && (await runLedger.get(legacy)) !== undefined) {
        // Recorded by 0.3.0 under a key another call may share: which call it was is unknown.
        throw new InputError(
          `${flags.input}:${call.line}: the ledger has a record of "${legacy}", the key 0.3.0 gave this call and any other whose path values join the same; check this call at the store, then run it with a new --ledger if it must be sent.`,
        );
      }
      sending();
      const result = await (runClient.request as (m: string, p: string, i: unknown) => Promise<{ response: Response }>)(
        upper,
        path,
        init,
      );
      if (!result.response.ok) failedCalls.set(itemKey, call);
      return result;
    } catch (error) {
      failedCalls.set(itemKey, call);
      throw error;
    }
  };
}

/** Runs every call of the plan; resolves with the report and the calls that failed, by key. */
async function runCalls(
  plan: BulkPlan,
  interrupts: Interrupts,
  stderr: NodeJS.WriteStream,
): Promise<{ report: BulkReport; failedCalls: Map<string, KeyedCall> }> {
  const { flags, upper, path } = plan;
  const mode = flags.progress === "auto" ? (stderr.isTTY ? "bar" : "lines") : flags.progress;
  // Whether a call was sent yet: until then the progress shows no rate.
  let sent = false;
  const output =
    mode === "none"
      ? undefined
      : progressOutput(
          { write: (text) => stderr.write(text), terminal: mode === "bar", columns: stderr.columns },
          () => sent,
        );
  // The calls that failed, by key, until the report says which failures stand.
  const failedCalls = new Map<string, KeyedCall>();
  const report: BulkReport = await runBulk({
    client: plan.client,
    runId: flags.runId ?? `${upper} ${path}`,
    items: distinctKeys(plan.read(), plan.key, flags.input),
    key: (call) => call.key,
    fingerprint: (call) => callFingerprint(`${upper} ${path}`, call),
    total: plan.total,
    task: callTask(plan, failedCalls, () => (sent = true)),
    concurrency: flags.concurrency,
    rate: flags.rate === undefined ? undefined : { perSecond: flags.rate },
    ledger: plan.runLedger,
    onProgress: output ? (p) => output.update(p) : undefined,
    signal: interrupts.soft.signal,
    abortInFlight: interrupts.hard.signal,
    retryFailed: flags.retryFailed,
    rerunInDoubt: flags.rerunInDoubt === true,
    maxPauseMs: flags.maxPause * 1000,
    dryRun: flags.dryRun === true,
  });
  output?.finish();
  return { report, failedCalls };
}

async function bulk(
  method: string,
  path: string,
  flags: BulkFlags,
  io: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream; env: NodeJS.ProcessEnv },
): Promise<number> {
  const { stderr } = io;
  // Text from the input or the environment, as it is echoed: one line, no control or bidi
  // characters (an `ESC]52` key would write the terminal's clipboard), no token.
  const secrets = io.env.STORE_ADMIN_TOKEN ? [io.env.STORE_ADMIN_TOKEN] : [];
  const shown = (text: string, max?: number): string => clip(text, secrets, max);
  const interrupts = interruptsOn(stderr);
  try {
    const plan = await planOf(method, path, flags, io.env);
    const { report, failedCalls } = await runCalls(plan, interrupts, stderr);
    const unwritten = await summarize(plan, report, failedCalls, io, shown);
    if (unwritten) return EXIT_ERROR;
    // Ctrl-C wins: the operator stopped the run, whatever the calls that ended did.
    if (interrupts.count() > 0) return EXIT_INTERRUPTED;
    if (report.stopReason !== undefined) return EXIT_PAUSED;
    if (report.stopped) return EXIT_INTERRUPTED;
    return report.failed > 0 || report.inDoubt > 0 ? EXIT_FAILED : EXIT_OK;
  } catch (error) {
    if (error instanceof CallChangedError) {
      const { line } = error.item as InputCall;
      stderr.write(
        `\nstore-admin-sdk bulk: ${shown(flags.input)}:${line}: ${shown(error.ledger)} holds the key ${shown(JSON.stringify(error.key))} of the run ${shown(JSON.stringify(error.runId))} ` +
          `as ${error.state === "done" ? "done" : "in doubt"} with another call than this line's. Nothing was sent for it. A new input is a new run: give it its own --run-id (or --ledger), or restore the line as it was.\n`,
      );
      return EXIT_ERROR;
    }
    stderr.write(`\nstore-admin-sdk bulk: ${shown(describe(error instanceof Error ? error.message : error), 2000)}\n`);
    return EXIT_ERROR;
  } finally {
    interrupts.off();
  }
}
