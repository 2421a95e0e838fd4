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

async function opsPerSecond(op: Op, count: number): Promise<number> {
  const start = performance.now();
  for (let i = 1; i <= count; i++) {
    await op();
    if (i % OPS_PER_TURN === 0) await nextTurn();
  }
  return (count * 1000) / (performance.now() - start);
}

/** ops/s of `op` run for about `ms`. */
async function warmUp(op: Op, ms: number): Promise<number> {
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
 * ops/s samples of each variant, one request in flight at a time: two warm-up passes that
 * also size a sample to about 250 ms, then `rounds` rounds of one sample per variant, in an
 * order that rotates every round.
 */
export async function compareOps(variants: Record<string, Op>, { quick, rounds }: { quick: boolean; rounds: number }): Promise<Record<string, number[]>> {
  const names = Object.keys(variants);
  const sampleMs = quick ? 100 : 250;
  const counts: Record<string, number> = {};
  for (const name of [...names, ...names]) {
    const rate = await warmUp(variants[name]!, quick ? 150 : 750);
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

/** Runs `scripts/bench/child.ts <name> <args…>` in a fresh `node --expose-gc` process and returns what it sends back. */
export function inChild<T>(name: string, ...args: string[]): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const child = fork(fileURLToPath(new URL("./child.ts", import.meta.url)), [name, ...args], { execArgv: ["--expose-gc", "--import", "tsx"] });
    let result: T | undefined;
    child.on("message", (message) => (result = message as T));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 && result !== undefined ? resolve(result) : reject(new Error(`${name} exited with code ${code}`))));
  });
}
