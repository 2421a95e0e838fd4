/**
 * Measurement helpers shared by the benchmarks: summaries (median, quartiles, min, max) and
 * an interleaved ops/s comparison. The machine is shared and noisy, so every variant is
 * sampled once per round, in a rotating order, and ratios are taken per round (paired):
 * a slow spell of the machine then hits both sides of a ratio alike.
 */

/** Median, quartiles and range of a set of samples. */
export interface Summary {
  median: number;
  q1: number;
  q3: number;
  min: number;
  max: number;
  n: number;
}

function quantile(sorted: readonly number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new Error("summarize() needs at least one sample");
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    n: sorted.length,
  };
}

/** Per-round ratios `a[i] / b[i]` of two paired sample lists. */
export function pairedRatio(a: readonly number[], b: readonly number[]): Summary {
  if (a.length !== b.length) throw new Error("pairedRatio() needs paired samples of equal length");
  return summarize(a.map((x, i) => x / b[i]!));
}

/** Runs the garbage collector when the process was started with --expose-gc. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export type Op = () => Promise<unknown>;

export interface CompareOptions {
  /** Time each variant runs before measuring, also used to size the samples. */
  warmupMs: number;
  /** Target duration of one sample. */
  sampleMs: number;
  /** Samples per variant (one per round). */
  rounds: number;
}

/** ops/s samples of each variant, index i of every list taken in round i. */
export type OpsSamples = Record<string, number[]>;

/**
 * Ops between two turns of the event loop. A request over a network spans several turns;
 * one over a stub fetch spans none, and V8 keeps every WeakRef target made during a turn
 * alive until it ends (ECMAScript ClearKeptObjects). undici makes a WeakRef per Request that
 * follows a signal, so a long stub loop that never yields would grow the heap, and the cost
 * of collecting it, with the sample length. Every variant yields alike.
 */
const OPS_PER_TURN = 16;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function runCount(op: Op, count: number): Promise<number> {
  const start = performance.now();
  for (let i = 1; i <= count; i++) {
    await op();
    if (i % OPS_PER_TURN === 0) await nextTurn();
  }
  return (count * 1000) / (performance.now() - start);
}

async function runFor(op: Op, ms: number): Promise<number> {
  let count = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    for (let i = 0; i < OPS_PER_TURN; i++) await op();
    await nextTurn();
    count += OPS_PER_TURN;
  }
  return (count * 1000) / (performance.now() - start);
}

/**
 * Measures the ops/s of each variant: a warm-up that also sizes a sample to about
 * `sampleMs`, then `rounds` rounds of one sample per variant, rotating the order each round.
 * Each op runs to completion before the next starts (one request in flight); the event
 * loop turns every `OPS_PER_TURN` ops.
 */
export async function compareOps(variants: Record<string, Op>, options: CompareOptions): Promise<OpsSamples> {
  const names = Object.keys(variants);
  const counts: Record<string, number> = {};
  for (let pass = 0; pass < 2; pass++) {
    for (const name of names) {
      const rate = await runFor(variants[name]!, options.warmupMs / 2);
      counts[name] = Math.max(20, Math.round((rate * options.sampleMs) / 1000));
    }
  }
  const samples: OpsSamples = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length]!;
      await nextTurn();
      collectGarbage();
      samples[name]!.push(await runCount(variants[name]!, counts[name]!));
    }
  }
  return samples;
}

/** ops/s summaries of each variant and the paired ratios asked for, keyed `"a/b"`. */
export interface Comparison {
  opsPerSec: Record<string, Summary>;
  ratios: Record<string, Summary>;
}

export function compare(samples: OpsSamples, pairs: ReadonlyArray<readonly [string, string]>): Comparison {
  return {
    opsPerSec: Object.fromEntries(Object.entries(samples).map(([name, list]) => [name, summarize(list)])),
    ratios: Object.fromEntries(pairs.map(([a, b]) => [`${a}/${b}`, pairedRatio(samples[a]!, samples[b]!)])),
  };
}

/** Options every benchmark gets from `scripts/bench.ts`. */
export interface BenchOptions {
  /** Fewer, shorter samples: a smoke run, not figures to publish. */
  quick: boolean;
}

/** The sampling plan of an ops/s comparison. */
export function opsPlan({ quick }: BenchOptions): CompareOptions {
  return quick ? { warmupMs: 300, sampleMs: 100, rounds: 5 } : { warmupMs: 1500, sampleMs: 250, rounds: 15 };
}
