/**
 * How every benchmark measures on a shared, noisy machine: each variant is sampled once per
 * round, in an order that rotates every round, and a ratio is taken per round (paired), so a
 * slow spell hits both sides of it alike. Figures are medians with their quartiles.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface Summary {
  median: number;
  q1: number;
  q3: number;
}

export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new Error("summarize() needs at least one sample");
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => {
    const position = (sorted.length - 1) * q;
    const low = Math.floor(position);
    return sorted[low]! + (sorted[Math.ceil(position)]! - sorted[low]!) * (position - low);
  };
  return { median: at(0.5), q1: at(0.25), q3: at(0.75) };
}

/** Per-round ratios `a[i] / b[i]`, summarised. */
export function pairedRatio(a: readonly number[], b: readonly number[]): Summary {
  return summarize(a.map((x, i) => x / b[i]!));
}

/** `**median** (IQR q1–q3)`, one table cell. */
export function cell(s: Summary, format: (n: number) => string): string {
  return `**${format(s.median)}** (IQR ${format(s.q1)}–${format(s.q3)})`;
}
export const int = (n: number): string => Math.round(n).toLocaleString("en-US");
export const times = (n: number): string => `${n.toFixed(2)}×`;

/** Runs the collector (benchmarks run under `node --expose-gc`). */
export const collectGarbage = (): void => (globalThis as { gc?: () => void }).gc?.();

export type Op = () => Promise<unknown>;

/**
 * A request over a network spans several turns of the event loop, one over a stub fetch
 * none; V8 keeps WeakRef targets (undici makes one per Request that follows a signal) until
 * the turn ends. So every variant yields every 16 ops, or the heap would grow with the sample.
 */
const OPS_PER_TURN = 16;
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** ops/s of `op` run `count` times, or (`untilMs`) for about that long, yielding every 16 ops. */
async function opsPerSecond(op: Op, count: number, untilMs = Number.POSITIVE_INFINITY): Promise<number> {
  const start = performance.now();
  let done = 0;
  const timed = untilMs !== Number.POSITIVE_INFINITY; // a timed sample reads no clock per op
  while (done < count && (!timed || performance.now() - start < untilMs)) {
    await op();
    if (++done % OPS_PER_TURN === 0) await nextTurn();
  }
  return (done * 1000) / (performance.now() - start);
}

/**
 * ops/s samples of each variant, one request in flight at a time: two warm-up passes that
 * also size a sample to about `sampleMs` (250 ms unless said), then `rounds` rounds of one
 * sample per variant, in an order that rotates every round. Shorter samples over more rounds
 * pair each variant with the others more closely in time, so a change in the machine's load
 * moves both sides of a ratio alike.
 */
export async function compareOps(
  variants: Record<string, Op>,
  { quick, rounds, sampleMs: fullSampleMs = 250 }: MeasureOptions,
): Promise<Record<string, number[]>> {
  const names = Object.keys(variants);
  const sampleMs = quick ? 100 : fullSampleMs;
  const counts: Record<string, number> = {};
  for (const name of [...names, ...names]) {
    const rate = await opsPerSecond(variants[name]!, Number.POSITIVE_INFINITY, quick ? 150 : 750);
    counts[name] = Math.max(20, Math.round((rate * sampleMs) / 1000));
  }
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < (quick ? 5 : rounds); round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length]!;
      await nextTurn();
      collectGarbage();
      samples[name]!.push(await opsPerSecond(variants[name]!, counts[name]!));
    }
  }
  return samples;
}

/** How {@link compareOps} samples: rounds, and the length of one sample in ms. */
export interface MeasureOptions {
  quick: boolean;
  rounds: number;
  sampleMs?: number;
}

/** Runs `child.ts <name> <args…>` in a fresh `node --expose-gc` process; resolves with what it sends back. */
export function inChild<T>(name: string, ...args: string[]): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const script = fileURLToPath(new URL("./child.ts", import.meta.url));
    const child = fork(script, [name, ...args], { execArgv: ["--expose-gc", "--import", "tsx"] });
    let result: T | undefined;
    child.on("message", (message) => (result = message as T));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0 && result !== undefined) resolve(result);
      else reject(new Error(`benchmark ${name} exited with code ${code}`));
    });
  });
}

/** A benchmark's part of docs/performance.md. */
export interface Section {
  title: string;
  /** The method note: what is measured, against what, how often. */
  note: string;
  /** Each table's first row is its header. */
  tables: string[][][];
  /** Its rows of the summary table: measure, result, goal, status. */
  summary: string[][];
}

export const status = (met: boolean): string => (met ? "met" : "**missed**");

/** Prose written over several source lines, as one line of Markdown. */
export const oneLine = (text: string): string => text.trim().replace(/\s*\n\s*/g, " ");
