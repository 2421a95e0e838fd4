/**
 * Vitest global setup: the run fails when a process it started is still alive at its end
 * (a server a test did not stop, or stopped through a launcher that left the real one running).
 *
 * Which processes are the run's: those whose environment carries this run's mark. The mark is
 * set here, first of the global setups, so Prism, the test workers and everything they start
 * inherit it; it stays in `/proc/<pid>/environ` when the parent dies (a parent link does not:
 * an orphan's parent is init), after `setsid`, through a shim that execs or spawns the real
 * binary. A run started inside the run (a test running vitest) adds its own mark to the list,
 * so its processes are the outer run's too. Processes of other runs on the machine carry other
 * marks and are neither flagged nor touched: the check only reads. A process a test starts with
 * an environment of its own gets the mark added (test/setup/mark-children.ts, in each worker);
 * one that a child process starts with a new environment of its own is not seen.
 *
 * Linux only (`/proc`); elsewhere the check does nothing.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile, readlink } from "node:fs/promises";

/** The environment variable holding the marks of the runs a process belongs to, space-separated. */
export const RUN_MARK = "STORE_ADMIN_TEST_RUNS";

/** How long a process of the run may take to exit after the last test file (a worker being stopped, a child that exits when its pipe closes). */
const GRACE_MS = 5_000;

interface RunProcess {
  pid: number;
  ppid: number;
  command: string;
  cwd: string;
}

export default function setup(): (() => Promise<void>) | undefined {
  if (!existsSync("/proc/self/environ")) return undefined;
  const mark = randomUUID();
  process.env[RUN_MARK] = [process.env[RUN_MARK], mark].filter(Boolean).join(" ");
  // Returned first, so called last: vitest tears the global setups down in reverse order, and
  // the setups listed after this one (Prism) stop what they started before the check looks.
  return async () => {
    const left = await stillAlive(mark);
    if (left.length === 0) return;
    // A teardown that throws is only logged by vitest, with exit code 0.
    process.exitCode = 1;
    throw new Error(
      `The test run left ${left.length} process(es) it started running:\n` +
        left.map(({ pid, ppid, command, cwd }) => `  pid ${pid} (parent ${ppid}, in ${cwd}): ${command}`).join("\n") +
        `\nA test that starts a process must stop it, the process that serves and not a launcher, and wait for its exit. To stop these: kill ${left.map(({ pid }) => pid).join(" ")}`,
    );
  };
}

/** The run's processes, waiting up to GRACE_MS for those on their way out. */
async function stillAlive(mark: string): Promise<RunProcess[]> {
  const deadline = Date.now() + GRACE_MS;
  for (;;) {
    const found = await runProcesses(mark);
    if (found.length === 0 || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function runProcesses(mark: string): Promise<RunProcess[]> {
  const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name)).map(Number);
  const found = await Promise.all(pids.map((pid) => (pid === process.pid ? undefined : runProcess(pid, mark))));
  return found.filter((entry): entry is RunProcess => entry !== undefined);
}

/** The process if it is alive and carries the mark; undefined if not, or if it exits (or is not ours to read) meanwhile. */
async function runProcess(pid: number, mark: string): Promise<RunProcess | undefined> {
  try {
    const environ = await readFile(`/proc/${pid}/environ`, "utf8");
    const marks = environ.split("\0").find((entry) => entry.startsWith(`${RUN_MARK}=`));
    if (
      !marks
        ?.slice(RUN_MARK.length + 1)
        .split(" ")
        .includes(mark)
    )
      return undefined;
    // After the command's name, which may hold spaces and parentheses: state, parent pid, …
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (state === "Z" || state === "X") return undefined; // exited, not yet reaped by its parent
    const command = (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0").join(" ").trim();
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => "?");
    return { pid, ppid: Number(ppid), command, cwd };
  } catch {
    return undefined;
  }
}
