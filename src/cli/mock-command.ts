/// <reference types="node" />
/**
 * `store-admin-sdk mock [--port N] [--log FILE] [--handlers FILE] [--grace S]`: the testing kit's mock
 * (`createMockStore()`) served over HTTP on 127.0.0.1, for a test runner in any language or
 * process (as stripe-mock serves Stripe's users). Each request is validated against the
 * contract and answered by a handler or the contract's examples, as in process; each is
 * written to the request log, one JSON line written before its answer is sent (so in the order
 * of the answers): method, path, query, body, status, time of arrival, never a header (so never
 * the token). SIGTERM or Ctrl-C stops taking requests, gives those in flight `--grace` seconds,
 * answers the rest 503, writes their lines, and exits 0; so does the exit of the process that
 * started it (`npx`, which does not pass SIGTERM on), so that stopping the launcher stops it.
 */
import { once } from "node:events";
import { closeSync, constants, fstatSync, ftruncateSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type Command, InvalidArgumentError } from "commander";
import { secondsOption } from "./seconds-option.js";
import { API_ROOT_PATH, redact } from "#shared";
import { queryOf } from "../testing/query.js";
import type { MockStore } from "../testing/types.js";

/** Prism's port: a script written for `npm run mock`'s default keeps working. */
const DEFAULT_PORT = 4010;

/** How often the mock looks whether the process that started it is still there. */
const LAUNCHER_POLL_MS = 250;

/** Seconds the requests in flight get to be answered after SIGTERM, by default. */
const DEFAULT_GRACE_SECONDS = 5;
/** The longest --grace: a day, well under setTimeout's limit (2^31 - 1 ms, about 24.8 days). */
const MAX_GRACE_SECONDS = 86_400;
/** How long a --handlers module may take to load and set up before the command gives up on it. */
const SETUP_TIMEOUT_MS = 10_000;
/** The largest request body read (413 above it): far above any call of the contract. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** The largest body a log line holds; a longer one is logged as its size. */
const MAX_LOGGED_BODY_BYTES = 1024 * 1024;
/**
 * The deepest JSON body read (400 beyond it): far beyond any body of the contract, and shallow
 * enough that parsing, validating and logging it never exhausts the stack.
 */
const MAX_JSON_DEPTH = 512;

// The API root under the server is API_ROOT_PATH, as a store serves it: `baseUrl` is the server's address. Requests at the root are served too (as Prism does).

interface MockFlags {
  port: number;
  grace: number;
  log?: string;
  handlers?: string;
}

/** One line of the request log. */
interface MockLogEntry {
  method: string;
  /** The path under the API root, as sent (`/users/42/`). */
  path: string;
  /** The query, a value per name (an array for a repeated name). */
  query: Record<string, string | string[]>;
  /** The JSON body, parsed; the text of another body; `null` when there was none; a note of its size for a body over 1 MiB. */
  body: unknown;
  status: number;
  /** When the request arrived (ISO 8601). */
  time: string;
}

const port = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535)
    throw new InvalidArgumentError(
      `--port must be a whole number from 0 to 65535 (0: any free port), got ${JSON.stringify(value)}.`,
    );
  return n;
};

/** Adds the `mock` command to `program`. */
export function mockCommand(program: Command, io: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream }): Command {
  return program
    .command("mock")
    .description(
      "Serve the testing kit's mock of the API over HTTP on 127.0.0.1: requests checked against the contract, answers from handlers or the contract's examples, a request log.",
    )
    .option("--port <n>", `port on 127.0.0.1 (0: any free port; default ${DEFAULT_PORT})`, port, DEFAULT_PORT)
    .option(
      "--log <file>",
      "request log, emptied once the mock listens: one JSON line per request, written before its answer is sent (method, path, query, body, status, time)",
    )
    .option("--handlers <file>", "a JavaScript module whose default export receives the mock and calls mock.on(…)")
    .option(
      "--grace <seconds>",
      `on SIGTERM or Ctrl-C, how long the requests in flight may take; the rest are answered 503 (default ${DEFAULT_GRACE_SECONDS})`,
      secondsOption("--grace", MAX_GRACE_SECONDS),
      DEFAULT_GRACE_SECONDS,
    )
    .addHelpText(
      "after",
      `
Point the SDK at it with baseUrl http://127.0.0.1:PORT (or apiUrl http://127.0.0.1:PORT${API_ROOT_PATH}).
SIGTERM or Ctrl-C stops taking requests, gives those in flight --grace seconds, answers the
rest 503 (each logged), and exits 0; so does the exit of the process that started it (npx
stopped by its process id). A --log that cannot be opened, is not a regular file or is
the --handlers module, a --handlers module that cannot be loaded, throws, or does not settle
within ${SETUP_TIMEOUT_MS / 1000} s, or a port in use exits 2 before it listens, the log untouched.`,
    )
    .action(async (flags: MockFlags) => {
      // Exits at once: a handler still pending (a promise that never settles, a timer) must not
      // hold the process once the log is complete.
      process.exit(await serve(flags, io));
    });
}

/** Loads `--handlers` and runs its default export on `mock`; resolves an error message, or undefined when it is set up. */
async function setUpHandlers(mock: MockStore, handlers: string): Promise<string | undefined> {
  const file = resolve(handlers);
  let setup: unknown;
  try {
    setup = ((await import(pathToFileURL(file).href)) as { default?: unknown }).default;
  } catch (error) {
    return `--handlers ${handlers}: could not be loaded: ${(error as Error).message}`;
  }
  if (typeof setup !== "function") {
    return `--handlers ${handlers}: its default export must be a function receiving the mock (export default (mock) => mock.on(…)), got ${typeof setup}.`;
  }
  try {
    await (setup as (mock: MockStore) => unknown)(mock);
  } catch (error) {
    return `--handlers ${handlers}: its function threw: ${(error as Error).message}`;
  }
  return undefined;
}

/**
 * `--log`: opened before the server listens and emptied only once it listens (a run that cannot
 * start leaves the file as it was), never through a symlink; throws a message naming it. Append
 * mode: should the file be emptied under the running mock, its next line starts the file
 * instead of following a hole of NUL bytes. Non-blocking: a FIFO is refused, not waited on.
 */
function openLog(file: string, handlers: string | undefined): number {
  let fd: number;
  try {
    fd = openSync(
      file,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      0o644,
    );
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const why =
      code === "ENOENT"
        ? "its folder does not exist"
        : code === "ELOOP"
          ? "it is a symlink; give the log's own path"
          : code === "ENXIO"
            ? "it is not a regular file"
            : message;
    throw new Error(`--log ${file}: cannot be opened (${why}).`);
  }
  // Checked on what was opened, not on the name: nothing can change between the check and the use.
  const opened = fstatSync(fd);
  const module = handlers === undefined ? undefined : statSync(handlers);
  const problem = !opened.isFile()
    ? `--log ${file}: cannot be opened (it is not a regular file).`
    : module && module.dev === opened.dev && module.ino === opened.ino
      ? `--log ${file} is the same file as --handlers ${handlers}: emptying it would destroy the module. Give --log another path.`
      : undefined;
  if (problem === undefined) return fd;
  closeSync(fd);
  throw new Error(problem);
}

/** A request being answered: what its log line needs, and whether the line is written. */
interface InFlight {
  entry: Omit<MockLogEntry, "status" | "body">;
  response: ServerResponse;
  body: unknown;
  logged: boolean;
}

type Io = { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream };

/** The running mock: its flags and streams, the log file, and the requests being answered. */
interface Serving {
  flags: MockFlags;
  io: Io;
  fd: number | undefined;
  /** Set by a failed write: no further lines are written. */
  logFailed: boolean;
  inFlight: Set<InFlight>;
  /** Called when the last request in flight is answered, once a shutdown waits for them. */
  drained: (() => void) | undefined;
}

async function serve(flags: MockFlags, io: Io): Promise<number> {
  // Loaded as the bulk command's dry run loads it: the command starts without the kit's validators.
  const { createMockStore } = await import("../testing/index.js");
  // The log is the record of what it received: the mock itself keeps no request.
  const mock = createMockStore({ recordRequests: false });
  const problem = flags.handlers ? await setUpHandlersWithin(mock, flags.handlers) : undefined;
  if (problem !== undefined) {
    io.stderr.write(`${problem}\n`);
    return 2;
  }
  const state: Serving = { flags, io, fd: undefined, logFailed: false, inFlight: new Set(), drained: undefined };
  try {
    state.fd = flags.log ? openLog(flags.log, flags.handlers) : undefined;
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  const server = createServer((request, response) => answer(state, mock, request, response));
  if (!(await listening(state, server))) return 2;
  const reason = await new Promise<string>((resolveReason) => {
    process.once("SIGTERM", () => resolveReason("SIGTERM"));
    process.once("SIGINT", () => resolveReason("SIGINT"));
    watchLauncher(() => resolveReason("its launcher exited"));
  });
  await stop(state, server, reason);
  return 0;
}

/**
 * Calls `gone` once the process that started the mock has exited. `npx store-admin-sdk mock`
 * (npm exec) runs the command as `sh -c …` and passes no SIGTERM on: a script that stops npx by
 * its process id would leave the mock serving. A signal cannot tell us, and neither can stdin
 * (inherited from the script, it stays open), but the parent's exit can: the mock is reparented,
 * so `process.ppid` changes (polled on an unref'd timer: it holds nothing open). SIGTERM to npm
 * takes its shell down too; SIGKILL leaves the shell waiting on the mock, so under npm exec with
 * a shell as parent, npm (the shell's parent, read from /proc on Linux) is watched as well.
 * Started directly (`node …/store-admin-sdk mock`), the parent is whatever started it: a test
 * runner or a script that exits stops its mock too.
 */
function watchLauncher(gone: () => void): void {
  const parent = process.ppid;
  const launcher =
    process.env.npm_command === "exec" && /^(ba|da|z)?sh$/.test(procField(parent, "comm") ?? "")
      ? parentOf(parent)
      : undefined;
  const timer = setInterval(() => {
    if (process.ppid === parent && (launcher === undefined || parentOf(parent) === launcher)) return;
    clearInterval(timer);
    gone();
  }, LAUNCHER_POLL_MS);
  timer.unref();
}

/** `/proc/<pid>/<field>`, trimmed; undefined where there is no /proc (not Linux) or no such process. */
function procField(pid: number, field: "comm" | "stat"): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${field}`, "utf8").trim();
  } catch {
    return undefined;
  }
}

/** The parent of process `pid`, from /proc (Linux); undefined elsewhere or once it is gone. */
function parentOf(pid: number): number | undefined {
  const stat = procField(pid, "stat");
  // `pid (comm) state ppid …`: the name may hold spaces and parentheses, so read after the last ")".
  const ppid = stat === undefined ? Number.NaN : Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

/** `setUpHandlers`, given {@link SETUP_TIMEOUT_MS} to settle. */
async function setUpHandlersWithin(mock: MockStore, handlers: string): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<string>((done) => {
    timer = setTimeout(
      () =>
        done(
          `--handlers ${handlers}: neither loaded nor set up within ${SETUP_TIMEOUT_MS / 1000} s (does its default export return a promise that never settles?).`,
        ),
      SETUP_TIMEOUT_MS,
    );
  });
  const problem = await Promise.race([setUpHandlers(mock, handlers), timedOut]);
  clearTimeout(timer);
  return problem;
}

/** Writes the request's line, once, before its answer is sent: a client that has its answer finds its line. */
function log(state: Serving, request: InFlight, status: number): void {
  if (request.logged) return;
  request.logged = true;
  if (state.fd === undefined || state.logFailed) return;
  const { method, path, query, time } = request.entry;
  const entry: MockLogEntry = { method, path, query, body: request.body, status, time };
  try {
    const bytes = Buffer.from(`${lineOf(entry)}\n`);
    for (let at = 0; at < bytes.length; ) at += writeSync(state.fd, bytes, at, bytes.length - at);
  } catch (error) {
    state.logFailed = true;
    state.io.stderr.write(
      `mock: --log ${state.flags.log} could not be written (${(error as Error).message}); no further lines are written.\n`,
    );
  }
}

/** The server's request handler: `handle`, and a 500 should it fail. */
function answer(state: Serving, mock: MockStore, request: IncomingMessage, response: ServerResponse): void {
  handle(
    mock,
    request,
    response,
    state.inFlight,
    (current, status) => log(state, current, status),
    state.fd !== undefined,
  )
    .catch((error: unknown) => {
      state.io.stderr.write(`mock: ${(error as Error).message}\n`);
      // Answered all the same: a client must not wait for its own timeout.
      if (!response.headersSent)
        response
          .writeHead(500, { "content-type": "application/json" })
          .end(JSON.stringify({ detail: `The mock failed: ${(error as Error).message}` }));
    })
    .finally(() => {
      if (state.inFlight.size === 0) state.drained?.();
    });
}

/** Listens on 127.0.0.1, then empties the log and says where; false (said on stderr) when it cannot listen. */
async function listening(state: Serving, server: Server): Promise<boolean> {
  const { flags, io } = state;
  server.listen(flags.port, "127.0.0.1");
  try {
    await once(server, "listening");
  } catch (error) {
    io.stderr.write(`mock: cannot listen on 127.0.0.1:${flags.port}: ${(error as Error).message}\n`);
    return false;
  }
  if (state.fd !== undefined) ftruncateSync(state.fd);
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : flags.port}`;
  io.stdout.write(`store-admin-sdk mock listening on ${url} (baseUrl ${url}, apiUrl ${url}${API_ROOT_PATH})\n`);
  return true;
}

/** No new connection; the requests in flight get the grace time, then the rest are answered 503 (each logged). */
async function stop(state: Serving, server: Server, reason: string): Promise<void> {
  const { flags, inFlight } = state;
  server.close();
  server.closeIdleConnections();
  if (inFlight.size > 0) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      new Promise<void>((done) => (state.drained = done)),
      new Promise<void>((done) => (timer = setTimeout(done, flags.grace * 1000))),
    ]);
    clearTimeout(timer);
  }
  for (const request of inFlight) {
    log(state, request, 503);
    if (!request.response.headersSent) {
      request.response.writeHead(503, { "content-type": "application/json", connection: "close" });
      request.response.end(
        JSON.stringify({ detail: `The mock stopped (${reason}) before this request was answered.` }),
      );
    }
  }
  server.closeAllConnections();
  if (state.fd !== undefined) closeSync(state.fd);
  state.io.stderr.write(
    `store-admin-sdk mock stopped (${reason})${inFlight.size > 0 ? `: ${inFlight.size} request(s) not answered within --grace ${flags.grace} s were answered 503` : ""}\n`,
  );
}

/**
 * Answers one request through the mock, writing its line with `log` just before the answer. A
 * body over {@link MAX_BODY_BYTES} is answered 413 unread. The request is in `inFlight` until it
 * is answered, so that a shutdown can answer it 503 (then its late answer is dropped).
 */
async function handle(
  mock: MockStore,
  request: IncomingMessage,
  response: ServerResponse,
  inFlight: Set<InFlight>,
  log: (request: InFlight, status: number) => void,
  logging: boolean,
): Promise<void> {
  const target = new URL(request.url ?? "/", "http://127.0.0.1");
  const path = target.pathname.startsWith(`${API_ROOT_PATH}/`)
    ? target.pathname.slice(API_ROOT_PATH.length)
    : target.pathname;
  const method = request.method ?? "GET";
  const current: InFlight = {
    entry: { method, path, query: queryOf(target.searchParams), time: new Date().toISOString() },
    response,
    body: null,
    logged: false,
  };
  inFlight.add(current);
  try {
    const headers = new Headers();
    for (let i = 0; i + 1 < request.rawHeaders.length; i += 2)
      headers.append(request.rawHeaders[i]!, request.rawHeaders[i + 1]!);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      size += (chunk as Buffer).byteLength;
      if (size > MAX_BODY_BYTES) {
        current.body = `[a body of more than ${MAX_BODY_BYTES} bytes, not read]`;
        log(current, 413);
        response.writeHead(413, { "content-type": "application/json", connection: "close" });
        response.end(JSON.stringify({ detail: `The mock reads request bodies of ${MAX_BODY_BYTES} bytes at most.` }));
        return;
      }
      chunks.push(chunk as Buffer);
    }
    const bytes = Buffer.concat(chunks);
    if (JSON_MEDIA_TYPE.test(headers.get("content-type") ?? "") && nestedDeeperThan(bytes, MAX_JSON_DEPTH)) {
      current.body = `[a JSON body nested more than ${MAX_JSON_DEPTH} levels deep, ${bytes.byteLength} bytes]`;
      log(current, 400);
      response.writeHead(400, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          type: "about:blank",
          title: "Bad Request",
          status: 400,
          detail: `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep; the mock reads ${MAX_JSON_DEPTH} at most.`,
        }),
      );
      return;
    }
    const token = /^Bearer (.+)$/.exec(headers.get("authorization") ?? "")?.[1];
    // Read for the log only: without one, a large body is not parsed a second time.
    if (logging) current.body = bodyOf(bytes, headers.get("content-type"), token);
    const hasBody = method !== "GET" && method !== "HEAD" && bytes.byteLength > 0;
    let answer: Response;
    try {
      answer = await mock.fetch(`${mock.url}${path}${target.search}`, {
        method,
        headers,
        body: hasBody ? bytes : undefined,
      });
    } catch (error) {
      // A handler that threw is a bug in the test: a 500 saying so. Response.error(): the connection is cut.
      if (error instanceof TypeError && /Response\.error\(\)/.test(error.message)) {
        current.logged = true;
        response.destroy();
        return;
      }
      answer = Response.json({ detail: `The mock failed: ${(error as Error).message}` }, { status: 500 });
    }
    const body = Buffer.from(await answer.arrayBuffer());
    if (current.logged) return; // answered 503 by the shutdown meanwhile
    log(current, answer.status);
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(body);
  } finally {
    inFlight.delete(current);
  }
}

const JSON_MEDIA_TYPE = /^\s*application\/([\w.-]+\+)?json/i;

/** Whether a JSON text opens more than `max` arrays and objects within one another (strings skipped); one pass, no parse. */
function nestedDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (inString) {
      if (byte === 0x5c)
        i++; // a backslash: the next byte is escaped
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > max) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
  return false;
}

/** A log line; a body JSON cannot write (a `BigInt`, a stack too deep) is logged as a note, so that writing a line never throws. */
function lineOf(entry: MockLogEntry): string {
  try {
    return JSON.stringify(entry);
  } catch (error) {
    return JSON.stringify({ ...entry, body: `[a body that cannot be logged: ${(error as Error).name}]` });
  }
}

/** The body as the log keeps it, with the request's token scrubbed should a body carry it. */
function bodyOf(bytes: Buffer, contentType: string | null, token: string | undefined): unknown {
  if (bytes.byteLength === 0) return null;
  if (bytes.byteLength > MAX_LOGGED_BODY_BYTES)
    return `[a body of ${bytes.byteLength} bytes, over the log's limit of ${MAX_LOGGED_BODY_BYTES}]`;
  const text = redact(bytes.toString("utf8"), token ? [token] : []);
  if (JSON_MEDIA_TYPE.test(contentType ?? "")) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
