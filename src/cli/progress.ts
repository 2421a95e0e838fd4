/**
 * The command's progress: on a terminal, one line redrawn in place (a bar, done, failed, rate,
 * ETA); elsewhere (a log, a pipe), a plain line now and then, so that logs stay readable.
 */
import type { BulkProgress } from "../bulk/types.js";

const BAR_WIDTH = 24;
/** The narrowest bar drawn: below it, the percentage says as much. */
const MIN_BAR_WIDTH = 8;
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

/** How much of the counters a line has room for: every label in full, shorter labels, or no `skipped`. */
type Detail = "full" | "short" | "least";

/**
 * `done 410 · failed 10 · 12.0/s · ETA 0:48`. The rate (and the ETA, which follows from it) only
 * once a call was sent: until then it measures no call (a resume that skips what is done and
 * fails the lines it cannot read sends nothing, at whatever pace).
 */
function counters(p: BulkProgress, sent: boolean, detail: Detail = "full"): string {
  const parts = [`done ${p.done}`, `failed ${p.failed}`];
  if (p.skipped > 0 && detail !== "least") parts.push(`${detail === "full" ? "skipped" : "skip"} ${p.skipped}`);
  if (p.inDoubt > 0) parts.push(`${detail === "full" ? "in doubt" : "doubt"} ${p.inDoubt}`);
  if (sent) {
    parts.push(`${p.perSecond.toFixed(1)}/s`);
    if (p.etaMs !== undefined) parts.push(`ETA ${duration(p.etaMs)}`);
  }
  return parts.join(" · ");
}

/** What may open the line, widest first: the bar (shrinking), then the share and counts alone. */
function heads(p: BulkProgress): string[] {
  const ended = p.done + p.failed + p.skipped + p.inDoubt;
  if (p.total === undefined || p.total <= 0) return [`${ended}`, ""];
  const share = Math.min(1, ended / p.total);
  const percent = `${String(Math.floor(share * 100)).padStart(3)}%`;
  const bars = [];
  for (let width = BAR_WIDTH; width >= MIN_BAR_WIDTH; width--) {
    const filled = Math.round(share * width);
    bars.push(`[${"█".repeat(filled)}${"░".repeat(width - filled)}] ${percent} ${ended}/${p.total}`);
  }
  return [...bars, `${percent} ${ended}/${p.total}`, percent.trimStart(), ""];
}

/**
 * The redrawn line of a terminal, `columns` wide at most (less one: a line that fills the last
 * column wraps on some terminals): `[██████░░░░] 42% 420/1000 · done 410 · failed 10 · 12.0/s ·
 * ETA 0:48`. What matters (done, failed, rate, ETA) stays; to fit, the bar narrows and goes, then
 * the labels shorten, then `skipped` goes. Every glyph used is one column wide.
 */
function barLine(p: BulkProgress, sent: boolean, columns = 80): string {
  const room = columns - 1;
  for (const detail of ["full", "short", "least"] as const) {
    const tail = counters(p, sent, detail);
    for (const head of heads(p)) {
      const line = head === "" ? tail : `${head} · ${tail}`;
      if (line.length <= room) return line;
    }
  }
  // A terminal narrower than the counters themselves: cut.
  return counters(p, sent, "least")
    .slice(0, Math.max(0, room))
    .replace(/[ ·]+$/, "");
}

/** What progress is written to: a terminal (`columns` wide) or not. */
interface ProgressTarget {
  write(text: string): void;
  terminal: boolean;
  columns?: number;
}

/** Progress on `stream`: redrawn on a terminal, plain lines otherwise. `sent()` says whether a call was sent yet. */
export function progressOutput(stream: ProgressTarget, sent: () => boolean): ProgressOutput {
  if (stream.terminal) {
    let drawn = false;
    return {
      update(p) {
        // Carriage return and "erase line": the bar stays on one line.
        stream.write(`\r\x1b[2K${barLine(p, sent(), stream.columns || 80)}`);
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
      stream.write(
        `progress: ${counters(p, sent())}${p.total === undefined ? "" : ` (${p.done + p.failed + p.skipped + p.inDoubt}/${p.total})`}\n`,
      );
    },
    finish() {
      if (pending) stream.write(`progress: ${counters(pending, sent())}\n`);
    },
  };
}
