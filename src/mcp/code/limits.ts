/**
 * Code mode's options, checked when the server is made: the mode's name and the limits of one
 * `execute`, each with a default (and a flag of `store-admin-sdk mcp`).
 */
import { mustBe } from "#shared";

/** The limits of one `execute`. */
export interface CodeModeLimits {
  /** CPU time the code may run, in milliseconds (`--cpu-ms`). @default 5000 */
  cpuMs?: number | undefined;
  /** The sandbox's memory, in bytes (`--memory-mb`). @default 64 MiB */
  memoryBytes?: number | undefined;
  /** The sandbox's stack, in bytes (`--stack-kb`). @default 256 KiB; at most 384 KiB, what QuickJS's WebAssembly stack holds with room for the engine's own frames */
  stackBytes?: number | undefined;
  /** The most `store.*` calls one execute makes (`--max-calls`); a list's page is one call. @default 50 */
  maxCalls?: number | undefined;
  /** Wall-clock time one execute may take, type check and store calls included (`--timeout-ms`): its worker is terminated. @default 30000 */
  timeoutMs?: number | undefined;
  /** How many executes run at once (`--max-executes`); 16 more wait, and one past those is refused at once. @default 4 */
  maxExecutes?: number | undefined;
  /** Wall-clock time the type check of one execute may take (`--check-ms`): its worker is terminated. @default 10000 */
  checkMs?: number | undefined;
  /** The heap of each worker thread that checks or runs code, in bytes (`--worker-memory-mb`). @default 512 MiB */
  workerMemoryBytes?: number | undefined;
}

const MB = 1024 * 1024;
const CODE_MODE_DEFAULTS: Required<CodeModeLimits> = {
  cpuMs: 5_000,
  memoryBytes: 64 * MB,
  stackBytes: 256 * 1024,
  maxCalls: 50,
  timeoutMs: 30_000,
  maxExecutes: 4,
  checkMs: 10_000,
  workerMemoryBytes: 512 * MB,
};

/** Each limit's smallest and largest value: a sandbox must be able to start, and a limit must limit. */
const RANGES: Record<keyof CodeModeLimits, readonly [number, number]> = {
  cpuMs: [10, 600_000],
  memoryBytes: [4 * MB, 4 * 1024 * MB],
  stackBytes: [64 * 1024, 384 * 1024],
  maxCalls: [1, 10_000],
  timeoutMs: [100, 3_600_000],
  maxExecutes: [1, 64],
  checkMs: [100, 600_000],
  workerMemoryBytes: [128 * MB, 16 * 1024 * MB],
};

/** The `code` option (an own property), checked against the server's `mode`: what is wrong is named. */
export function codeModeLimits(options: { code?: unknown }, mode: string): Required<CodeModeLimits> {
  const given = Object.hasOwn(options, "code") ? options.code : undefined;
  if (given === undefined) return { ...CODE_MODE_DEFAULTS };
  if (mode !== "code") throw new TypeError('code (the limits of code mode) is given, but mode is not "code".');
  if (given === null || typeof given !== "object" || Array.isArray(given))
    throw new TypeError(
      `code takes { ${Object.keys(RANGES)
        .map((name) => `${name}?`)
        .join(", ")} }, got ${JSON.stringify(given)}.`,
    );
  const limits = { ...CODE_MODE_DEFAULTS };
  for (const [name, value] of Object.entries(given as Record<string, unknown>)) {
    if (!Object.hasOwn(RANGES, name))
      throw new TypeError(`code.${name} is not a limit; the limits are ${Object.keys(RANGES).join(", ")}.`);
    if (value === undefined) continue;
    const [low, high] = RANGES[name as keyof CodeModeLimits];
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < low || value > high)
      mustBe(`code.${name}`, `a whole number from ${low} to ${high}`, value, JSON.stringify);
    limits[name as keyof CodeModeLimits] = value;
  }
  return limits;
}
