/** The bulk command as a child process, its output collected; `whileRunning` may signal it (Ctrl-C); `stdin` is piped to it. */
import { spawn } from "node:child_process";

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Node itself runs `script` (no npx or shell between), so that a SIGINT reaches the process that runs the job. */
export function runCommand(
  nodeArgs: string[],
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    whileRunning?: ((pid: number) => Promise<void>) | undefined;
    stdin?: string | undefined;
  },
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, nodeArgs, {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    child.stdin?.on("error", () => undefined); // a command that refuses its stdin closes it unread
    child.stdin?.end(options.stdin);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    void options.whileRunning?.(child.pid!);
  });
}

/** Rows as a JSON-lines file's text. */
export const jsonl = (rows: unknown[]): string => rows.map((row) => JSON.stringify(row)).join("\n") + "\n";
