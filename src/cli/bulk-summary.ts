/**
 * What `store-admin-sdk bulk` says and writes once its run ended: the summary on stdout, the
 * failed calls (`--failures`, fed back as `--input`) and the calls in doubt (`--in-doubt`).
 */
import type { BulkReport } from "../bulk/types.js";
import type { KeyedCall } from "./call-key.js";
import type { InputCall } from "./input.js";
import { writeOutput, type OutputFile } from "./output-file.js";
import { duration } from "./progress.js";

/** What the summary needs of the run's plan. */
export interface SummaryOf {
  readonly dryRun: boolean;
  /** The ledger's path; undefined for a dry run or `--no-ledger`. */
  readonly ledger: string | undefined;
  readonly failuresFile: OutputFile;
  readonly inDoubtFile: OutputFile;
  /** Reads the input's calls again, and gives each its key. */
  readonly read: () => AsyncIterable<InputCall>;
  readonly key: (call: InputCall) => string;
}

/**
 * Writes the summary and the output files. A file that cannot be written (its folder removed
 * or made read-only during the run) is reported after the summary, on stderr: the calls were
 * sent, and the ledger records them. Resolves with whether a file was left unwritten.
 */
export async function summarize(
  run: SummaryOf,
  report: BulkReport,
  failedCalls: ReadonlyMap<string, KeyedCall>,
  io: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream },
  shown: (text: string, max?: number) => string,
): Promise<boolean> {
  const { stdout, stderr } = io;
  const { ledger } = run;
  const unwritten: string[] = [];
  const written = (write: () => Promise<void>): Promise<boolean> =>
    write().then(
      () => true,
      (error: unknown) => {
        unwritten.push((error as Error).message);
        return false;
      },
    );
  const failuresWritten =
    report.failures.length > 0 && (await written(() => writeFailures(run.failuresFile, report, failedCalls)));
  stdout.write(summaryLine(run, report, shown));
  if (report.stopReason !== undefined)
    stdout.write(
      `${report.stopReason.replace("maxPauseMs", "--max-pause").replace("the same runId and ledger", "the same command")}\n`,
    );
  for (const failure of report.failures.slice(0, 10))
    stdout.write(`  failed ${shown(failure.key)}: ${shown(failure.message, 1000)}\n`);
  if (report.failures.length > 10) stdout.write(`  … and ${report.failures.length - 10} more\n`);
  if (failuresWritten)
    stdout.write(`Failed calls written to ${shown(run.failuresFile.path)} (feed it back with --input).\n`);
  if (report.inDoubt > 0) {
    const inDoubtWritten = await written(() =>
      writeInDoubt(run.inDoubtFile, report.inDoubtKeys, run.read(), run.key, report.inDoubtFingerprints),
    );
    const check =
      ledger === undefined
        ? "check them at the store: with --no-ledger, running again sends them again"
        : "check them before --rerun-in-doubt";
    stdout.write(
      `In doubt (a POST or PATCH may have been acted on; ${check}): ${report.inDoubtKeys
        .slice(0, 20)
        .map((itemKey) => shown(itemKey))
        .join(", ")}${report.inDoubt > 20 ? ", …" : ""}\n`,
    );
    if (inDoubtWritten)
      stdout.write(`All ${report.inDoubt} calls in doubt written to ${shown(run.inDoubtFile.path)}.\n`);
  }
  if (unwritten.length === 0) return false;
  const again =
    ledger === undefined
      ? "Only the summary above is left of those calls; with --no-ledger, running the same command again sends every call again."
      : `The ledger ${shown(ledger)} records every call: run the same command again with --failures and --in-doubt paths in a folder you can write, and the files are written (failed calls are sent again; calls in doubt are not, without --rerun-in-doubt).`;
  stderr.write(`\nstore-admin-sdk bulk: ${unwritten.map((message) => shown(message, 1000)).join("; ")}. ${again}\n`);
  return true;
}

/** The counts, and how to go on when the run was stopped. */
function summaryLine(run: SummaryOf, report: BulkReport, shown: (text: string) => string): string {
  const verb = run.dryRun ? "Dry run: " : "";
  const stopped = run.dryRun
    ? " (stopped)"
    : run.ledger === undefined
      ? " (stopped: with --no-ledger, running the same command again sends every call again)"
      : ` (stopped: run the same command again to go on; the ledger ${shown(run.ledger)} records what was done)`;
  return (
    `${verb}${report.done} done, ${report.failed} failed, ${report.skipped} skipped, ${report.inDoubt} in doubt in ${duration(report.durationMs)}` +
    `${report.stopped ? stopped : ""}.\n`
  );
}

/** Writes each failure that stands with its call, as a JSON line that can be fed back as `--input`. */
function writeFailures(
  output: OutputFile,
  report: BulkReport,
  failedCalls: ReadonlyMap<string, KeyedCall>,
): Promise<void> {
  return writeOutput(output, async (write) => {
    for (const failure of report.failures) {
      const call = failedCalls.get(failure.key);
      if (!call) continue;
      const { line, invalid: _invalid, text, key: _key, ...parts } = call;
      await write(
        `${JSON.stringify({ ...parts, failure: { key: failure.key, line, status: failure.status, message: failure.message, text } })}\n`,
      );
    }
  });
}

/**
 * Writes the calls of the keys in doubt to `output`, one JSON line each: the call as it was read
 * and `inDoubt: { key, line }`. The input is read again rather than kept: a run of millions of
 * calls holds only the keys in doubt. A key no line has any more (in doubt since an earlier
 * input) is written with the call the ledger recorded for it, or its key alone in a ledger of
 * 0.3.0, which recorded no calls.
 */
async function writeInDoubt(
  output: OutputFile,
  keys: readonly string[],
  calls: AsyncIterable<InputCall>,
  key: (call: InputCall) => string,
  recorded: Readonly<Record<string, string>> = {},
): Promise<void> {
  const left = new Set(keys);
  await writeOutput(output, async (write) => {
    for await (const call of calls) {
      if (left.size === 0) break;
      const itemKey = key(call);
      if (!left.delete(itemKey)) continue;
      const { line, invalid: _invalid, text: _text, ...parts } = call;
      await write(`${JSON.stringify({ ...parts, inDoubt: { key: itemKey, line } })}\n`);
    }
    for (const itemKey of left) {
      const fingerprint = recorded[itemKey];
      const parts = fingerprint === undefined ? {} : (JSON.parse(fingerprint) as [string, object])[1];
      await write(`${JSON.stringify({ ...parts, inDoubt: { key: itemKey } })}\n`);
    }
  });
}
