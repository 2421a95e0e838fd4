/**
 * Vitest setup file, run in each test worker: a process a test starts with an environment of
 * its own (`env: { PATH }`, as the MCP and bulk tests start the command) still carries the
 * run's mark, so the end-of-run check (test/setup/leaks.ts) sees it if it is left running.
 * node:child_process's functions are wrapped to add the mark to an explicit `env`, and the ESM
 * named exports are synced, so `import { spawn } from "node:child_process"` in a test or a
 * library gets the wrapped one. Nothing else about the call changes.
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { promisify } from "node:util";
import { RUN_MARK } from "./leaks.js";

const mark = process.env[RUN_MARK];
const NAMES = ["spawn", "spawnSync", "execFile", "execFileSync", "exec", "execSync", "fork"] as const;

/** The call's arguments, with the mark added to an options object that brings its own `env`. */
const withMark = (args: unknown[]): unknown[] =>
  args.map((arg, i) => {
    if (i === 0 || typeof arg !== "object" || arg === null || Array.isArray(arg)) return arg;
    const env = (arg as { env?: NodeJS.ProcessEnv }).env;
    return env === undefined || env === null ? arg : { ...arg, env: { ...env, [RUN_MARK]: mark } };
  });

if (mark !== undefined) {
  const module = childProcess as unknown as Record<
    string,
    ((...args: unknown[]) => unknown) & { [promisify.custom]?: (...args: unknown[]) => unknown }
  >;
  for (const name of NAMES) {
    const original = module[name]!;
    const wrapped = Object.assign(function (this: unknown, ...args: unknown[]) {
      return original.apply(this, withMark(args));
    }, original);
    // util.promisify(execFile) and promisify(exec) resolve { stdout, stderr } through this.
    const custom = original[promisify.custom];
    if (custom !== undefined)
      Object.defineProperty(wrapped, promisify.custom, { value: (...args: unknown[]) => custom(...withMark(args)) });
    module[name] = wrapped;
  }
  syncBuiltinESMExports();
}
