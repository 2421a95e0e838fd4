/**
 * A real redis-server for the queue tests and the queue benchmark: started on a free port of 127.0.0.1 with a
 * temporary directory and no persistence, stopped by its process id. `stop()` and `start()`
 * again on the same port stand for "Redis lost mid-run, then back".
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisServer {
  readonly host: "127.0.0.1";
  readonly port: number;
  /** The running server's process id (undefined while stopped). */
  readonly pid: number | undefined;
  /** Starts the server (again) on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops the server by its pid (SIGKILL: a lost Redis, not a clean shutdown) and waits for its exit. */
  stop(): Promise<void>;
  /** Stops the server and removes its directory. */
  dispose(): Promise<void>;
}

/** A port no one listens on right now (the kernel's pick for port 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * @param options.persistent append-only file, fsync'd on every write: the data survives a kill
 *   (for "Redis lost, then back"). Otherwise nothing is saved.
 * @param options.port a port to use (default: a free one).
 */
export async function startRedis(options: { persistent?: boolean; port?: number } = {}): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), "store-admin-sdk-redis-"));
  const port = options.port ?? (await freePort());
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    if (child) throw new Error(`redis-server on port ${port} is already running (pid ${child.pid})`);
    const started = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--dir",
        dir,
        ...(options.persistent ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"]),
        // DUMP writes strings as they are, so a scan of every key's bytes sees any text in it.
        "--rdbcompression",
        "no",
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    child = started;
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start within 10 s:\n${output}`)), 10_000);
      started.stdout!.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
        if (output.includes("Ready to accept connections")) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      started.once("error", (error) => {
        clearTimeout(timer);
        reject(new Error(`Could not run redis-server (is it installed? .ci/run installs it): ${error.message}`));
      });
      started.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code} before it was ready:\n${output}`));
      });
    });
    // Keep reading its output so that a full pipe never blocks it.
    started.stdout!.resume();
  }

  async function stop(): Promise<void> {
    const running = child;
    if (!running || running.pid === undefined) return;
    child = undefined;
    if (running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    process.kill(running.pid, "SIGKILL");
    await exited;
  }

  await start();
  return {
    host: "127.0.0.1",
    port,
    get pid() {
      return child?.pid;
    },
    start,
    stop,
    async dispose() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
