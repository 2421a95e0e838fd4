/**
 * `STORE_ADMIN_LOG=debug|info|warn` turns the built-in logger on without a code change
 * (`printEnvLog` in logger.ts says what each level prints). Read once per client from `process.env`, and
 * only where it can be read without asking: Node, Bun; Deno 2 only with the permission already
 * granted (reading would prompt for it, or throw); browsers and Workers have none, and logging
 * stays off. A `logger` given in code wins.
 */
import { printEnvLog, type Logger } from "../core/logger.js";

const NAME = "STORE_ADMIN_LOG";

interface Runtime {
  Deno?: { permissions: { querySync(descriptor: { name: "env"; variable: string }): { state: string } } };
  process?: { env?: Record<string, string | undefined> };
}

/** The logger `STORE_ADMIN_LOG` asks for; `undefined` when it is unset or cannot be read. */
export function envLogger(): Logger | undefined {
  const { Deno, process } = globalThis as Runtime;
  // Deno's querySync() reports the permission's state and never prompts; its `process.env` would.
  const level =
    !Deno || Deno.permissions.querySync({ name: "env", variable: NAME }).state === "granted"
      ? process?.env?.[NAME]
      : undefined;
  return level ? (event) => printEnvLog(level, event) : undefined;
}
