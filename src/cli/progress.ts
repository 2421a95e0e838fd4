/**
 * The command's progress: on a terminal, one line redrawn in place (a bar, done, failed, rate,
 * ETA); elsewhere (a log, a pipe), a plain line now and then, so that logs stay readable.
 */
import type { BulkProgress } from "../bulk/types.js";

const BAR_WIDTH = 24;
/** Between two plain lines, at least. */
const PLAIN_EVERY_MS = 2_000;

interface ProgressOutput {
  /** Receives `onProgress`'s counters. */
  update(progress: BulkProgress): void;
  /** Ends the redrawn line before the summary is printed. */
  finish(): void;
}

/** `1:05`, `1:02:03`. */
export function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

function counters(p: BulkProgress): string {
  const parts = [`done ${p.done}`, `failed ${p.failed}`];
  if (p.skipped > 0) parts.push(`skipped ${p.skipped}`);
  if (p.inDoubt > 0) parts.push(`in doubt ${p.inDoubt}`);
  parts.push(`${p.perSecond.toFixed(1)}/s`);
  if (p.etaMs !== undefined) parts.push(`ETA ${duration(p.etaMs)}`);
  return parts.join(" · ");
}

/** The redrawn line of a terminal: `[██████░░░░] 42% 420/1000 · done 410 · failed 10 · 12.0/s · ETA 0:48`. */
function barLine(p: BulkProgress, columns = 80): string {
  const ended = p.done + p.failed + p.skipped + p.inDoubt;
  let head = `${ended}`;
  if (p.total !== undefined && p.total > 0) {
    const share = Math.min(1, ended / p.total);
    const filled = Math.round(share * BAR_WIDTH);
    head = `[${"█".repeat(filled)}${"░".repeat(BAR_WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}% ${ended}/${p.total}`;
  }
  const line = `${head} · ${counters(p)}`;
  return line.length > columns - 1 ? line.slice(0, columns - 1) : line;
}

/** What progress is written to: a terminal (`columns` wide) or not. */
interface ProgressTarget {
  write(text: string): void;
  terminal: boolean;
  columns?: number;
}

/** Progress on `stream`: redrawn on a terminal, plain lines otherwise. */
export function progressOutput(stream: ProgressTarget): ProgressOutput {
  if (stream.terminal) {
    let drawn = false;
    return {
      update(p) {
        // Carriage return and "erase line": the bar stays on one line.
        stream.write(`\r\x1b[2K${barLine(p, stream.columns || 80)}`);
        drawn = true;
      },
      finish() {
        if (drawn) stream.write("\n");
      },
    };
  }
  let last = -Infinity;
  let pending: BulkProgress | undefined;
  return {
    update(p) {
      const now = performance.now();
      pending = p;
      if (now - last < PLAIN_EVERY_MS) return;
      last = now;
      pending = undefined;
      stream.write(`progress: ${counters(p)}${p.total === undefined ? "" : ` (${p.done + p.failed + p.skipped + p.inDoubt}/${p.total})`}\n`);
    },
    finish() {
      if (pending) stream.write(`progress: ${counters(pending)}\n`);
    },
  };
}
