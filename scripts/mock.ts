/**
 * Starts a Prism mock of `openapi/store-admin.yaml` on a free port of 127.0.0.1.
 *
 * Shared by the vitest global setup (`test/setup/prism.ts`) and by developers:
 * `npm run mock [spec.yaml]` starts it and prints the URL to pass as `apiUrl`.
 * Prism serves the spec's paths at its root (not under `/api/admin`), which is
 * why callers use `apiUrl`, never `baseUrl`.
 *
 * Only Node built-ins: this file runs before anything is built.
 */
import { spawn } from "node:child_process";
import { access } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer, type AddressInfo } from "node:net";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { CONTRACT_PATH } from "./facts.js";

/** Prism prints this once its HTTP server accepts connections. */
const READY_LINE = "Prism is listening on";
/** Start-up takes about 2 s here; the bound leaves room for a loaded 2-core CI machine. */
const READY_TIMEOUT_MS = 30_000;
/** How long Prism gets to exit after SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 3_000;
/** Extra attempts when another process takes our free port before Prism binds it. */
const PORT_RACE_RETRIES = 2;
/** Prism logs ~6 lines per request; keep the tail so a long session cannot grow without bound. */
const MAX_LOG_CHARS = 1_000_000;

export interface StartMockOptions {
  /** OpenAPI file to serve, relative to the cwd. @default openapi/store-admin.yaml of this project */
  specPath?: string;
  /** Port to listen on. @default a free port picked at start (retried if Prism loses a race for it) */
  port?: number;
  /** Only loopback: the mock must never be reachable from another machine. @default "127.0.0.1" */
  host?: "127.0.0.1";
}

export interface MockServer {
  /** Root URL of the mock, e.g. `http://127.0.0.1:41234`: pass it as `apiUrl`. */
  url: string;
  port: number;
  /** Process id of the Prism child. */
  pid: number;
  /** Everything Prism wrote to stdout and stderr so far. */
  log(): string;
  /** SIGTERM, then SIGKILL after a grace period; resolves once Prism has exited. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts Prism and resolves once it listens.
 *
 * Rejects with an error that includes Prism's log if Prism exits first (a
 * broken spec, a taken port) or does not become ready within 30 s.
 *
 * @example
 * const mock = await startMock();
 * const store = createStoreAdminClient({ apiUrl: mock.url, accessToken: "test" });
 * await mock.stop();
 */
export async function startMock(options: StartMockOptions = {}): Promise<MockServer> {
  const specPath = resolve(options.specPath ?? CONTRACT_PATH);
  const host = options.host ?? "127.0.0.1";
  // Failing here takes a millisecond; letting Prism find out takes two seconds.
  await access(specPath).catch(() => {
    throw new Error(
      `Cannot start the Prism mock: no OpenAPI file at ${specPath}. Pass specPath to serve another file.`,
    );
  });

  for (let attempt = 0; ; attempt++) {
    const port = options.port ?? (await findFreePort(host));
    try {
      return await launchPrism(specPath, host, port);
    } catch (error) {
      // Between closing our probe socket and Prism binding, another process may take
      // the port. Only a port we picked ourselves may be swapped for another.
      const lostRace = error instanceof PrismStartError && error.log.includes("EADDRINUSE");
      if (!lostRace || options.port !== undefined || attempt >= PORT_RACE_RETRIES) throw error;
    }
  }
}

class PrismStartError extends Error {
  constructor(
    message: string,
    readonly log: string,
  ) {
    super(`${message}\n--- Prism log ---\n${log.trimEnd()}\n--- end of Prism log ---`);
    this.name = "PrismStartError";
  }
}

/** Asks the OS for an unused port by binding port 0, then releases it for Prism. */
function findFreePort(host: string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once("error", reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolvePort(port));
    });
  });
}

/**
 * Prism's entry script, resolved from this file rather than the cwd, so the
 * script works from any directory and always uses the version pinned here.
 * It is run with this Node (`process.execPath`) instead of through the
 * `.bin/prism` shim, so the child's pid is Prism itself and PATH is irrelevant.
 */
function prismEntry(): string {
  const require = createRequire(import.meta.url);
  return require.resolve("@stoplight/prism-cli/dist/index.js");
}

function launchPrism(specPath: string, host: string, port: number): Promise<MockServer> {
  const child = spawnPrism(specPath, host, port);
  const log = captureLog(child);
  const { stop, closed } = stopper(child);
  return whenReady(child, { specPath, host, port }, log, stop, closed);
}

/** Prism's child process, started on `host:port` for `specPath`, its output piped and uncoloured. */
function spawnPrism(specPath: string, host: string, port: number) {
  const args = [
    "mock",
    specPath,
    "-h",
    host,
    "-p",
    String(port),
    "--errors",
    // Prism forks a worker when NODE_ENV=production; one process is what stop() can kill by pid.
    "--multiprocess=false",
  ];
  return spawn(process.execPath, [prismEntry(), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    // Plain text: the log is matched for readiness and shown in error messages.
    env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" },
  });
}

/** Prism's child process, as `spawnPrism` starts it: stdout and stderr piped. */
type Prism = ReturnType<typeof spawnPrism>;

/** Prism's stdout and stderr kept as one log of at most MAX_LOG_CHARS; the function reads it as it is now. */
function captureLog(child: Prism): () => string {
  let log = "";
  const append = (chunk: Buffer) => {
    log += chunk.toString("utf8");
    if (log.length > MAX_LOG_CHARS) log = log.slice(-MAX_LOG_CHARS);
  };
  child.stdout.on("data", append);
  child.stderr.on("data", append);
  return () => log;
}

/** Prism's `stop()` (once, SIGTERM then SIGKILL), registered with a kill on the parent's exit, and its "close". */
function stopper(child: Prism): {
  stop: () => Promise<void>;
  closed: Promise<void>;
} {
  // Registered now, so a fast exit cannot be missed. "exit" means the pid has been
  // reaped; "close" also waits for the pipes, so a failure message has the whole log.
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const closed = new Promise<void>((done) => child.once("close", () => done()));
  // If the parent dies without calling stop() (a crashed test run), take Prism along.
  const killOnParentExit = () => child.kill("SIGKILL");
  process.once("exit", killOnParentExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      // child.kill() signals this child's pid only, and does nothing once it has been reaped.
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const escalate = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
        await exited;
        clearTimeout(escalate);
      }
      process.removeListener("exit", killOnParentExit);
    })();
    return stopping;
  };
  return { stop, closed };
}

/** The mock once Prism logs READY_LINE; a PrismStartError with the log if it exits, fails to run or takes too long. */
function whenReady(
  child: Prism,
  { specPath, host, port }: { specPath: string; host: string; port: number },
  log: () => string,
  stop: () => Promise<void>,
  closed: Promise<void>,
): Promise<MockServer> {
  return new Promise<MockServer>((resolveReady, reject) => {
    const fail = (message: string) => {
      cleanUp();
      // A child that never spawned has no pid and will emit neither "exit" nor "close".
      const gone = child.pid === undefined ? Promise.resolve() : stop().then(() => closed);
      void gone.then(() => reject(new PrismStartError(message, log())));
    };
    const onData = () => {
      if (!log().includes(READY_LINE)) return;
      cleanUp();
      resolveReady({ url: `http://${host}:${port}`, port, pid: child.pid!, log, stop });
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      fail(
        `Prism exited (${signal ?? `code ${code}`}) before listening on ${host}:${port} for ${specPath}. ` +
          (log().includes("EADDRINUSE")
            ? `Port ${port} is in use: pass another port, or none to get a free one.`
            : "Its log below says why; `npm run lint:openapi` checks the spec."),
      );
    const onError = (error: Error) =>
      fail(`Could not run Prism (${error.message}); is @stoplight/prism-cli installed?`);
    const timer = setTimeout(
      () => fail(`Prism did not report "${READY_LINE}" within ${READY_TIMEOUT_MS / 1000} s; stopped it.`),
      READY_TIMEOUT_MS,
    );
    const cleanUp = () => {
      clearTimeout(timer);
      child.stdout.off("data", onData);
      child.off("exit", onExit);
      child.off("error", onError);
    };
    child.stdout.on("data", onData);
    child.once("exit", onExit);
    child.once("error", onError);
  });
}

/** `npm run mock [spec.yaml]`: serve until Ctrl-C. */
async function main(): Promise<void> {
  const mock = await startMock({ specPath: process.argv[2] });
  console.log(
    `Prism mock at ${mock.url} (pid ${mock.pid}). Use it with ` +
      `createStoreAdminClient({ apiUrl: "${mock.url}", accessToken: "test" }). Ctrl-C stops it.`,
  );
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void mock.stop().then(() => process.exit(0)));
  }
  // Prism's pipes keep this process alive; the event loop only empties if Prism died on its own.
  process.once("beforeExit", () => {
    console.error(`Prism exited unexpectedly.\n${mock.log()}`);
    process.exitCode = 1;
  });
}

// Run only when executed directly (tsx scripts/mock.ts), not when imported by the test setup.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
