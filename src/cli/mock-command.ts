/// <reference types="node" />
/**
 * `store-admin-sdk mock [--port N] [--log FILE] [--handlers FILE]`: the testing kit's mock
 * (`createMockStore()`) served over HTTP on 127.0.0.1, for a test runner in any language or
 * process (as stripe-mock serves Stripe's users). Each request is validated against the
 * contract and answered by a handler or the contract's examples, as in process; each is
 * written to the request log, one JSON line in the order they arrived: method, path, query,
 * body, status, time, never a header (so never the token). SIGTERM or Ctrl-C stops taking
 * requests, answers those in flight, writes their lines, and exits 0.
 */
import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Command, InvalidArgumentError } from "commander";
import { redact } from "../internal/redact.js";
import type { MockStore } from "../testing/types.js";

/** Prism's port: a script written for `npm run mock`'s default keeps working. */
const DEFAULT_PORT = 4010;

/** The API root under the server, as a store serves it: `baseUrl` is the server's address. Requests at the root are served too (as Prism does). */
const API_ROOT_PATH = "/api/admin";

interface MockFlags {
  port: number;
  log?: string;
  handlers?: string;
}

/** One line of the request log. */
export interface MockLogEntry {
  method: string;
  /** The path under the API root, as sent (`/users/42/`). */
  path: string;
  /** The query, a value per name (an array for a repeated name). */
  query: Record<string, string | string[]>;
  /** The JSON body, parsed; the text of another body; `null` when there was none. */
  body: unknown;
  status: number;
  /** When the request arrived (ISO 8601). */
  time: string;
}

const port = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new InvalidArgumentError(`--port must be a whole number from 0 to 65535 (0: any free port), got ${JSON.stringify(value)}.`);
  return n;
};

/** Adds the `mock` command to `program`. */
export function mockCommand(program: Command, io: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream }): Command {
  return program
    .command("mock")
    .description("Serve the testing kit's mock of the API over HTTP on 127.0.0.1: requests checked against the contract, answers from handlers or the contract's examples, a request log.")
    .option("--port <n>", `port on 127.0.0.1 (0: any free port; default ${DEFAULT_PORT})`, port, DEFAULT_PORT)
    .option("--log <file>", "request log: one JSON line per request, in order (method, path, query, body, status, time)")
    .option("--handlers <file>", "a JavaScript module whose default export receives the mock and calls mock.on(…)")
    .addHelpText(
      "after",
      `
Point the SDK at it with baseUrl http://127.0.0.1:PORT (or apiUrl http://127.0.0.1:PORT/api/admin).
SIGTERM or Ctrl-C answers the requests in flight, completes the log, and exits 0; a bad
--handlers module exits 2.`,
    )
    .action(async (flags: MockFlags) => {
      process.exitCode = await serve(flags, io);
    });
}

async function serve(flags: MockFlags, io: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream }): Promise<number> {
  // Loaded as the bulk command's dry run loads it: the command starts without the kit's validators.
  const { createMockStore } = await import("../testing/index.js");
  const mock = createMockStore();
  if (flags.handlers) {
    const file = resolve(flags.handlers);
    let setup: unknown;
    try {
      setup = ((await import(pathToFileURL(file).href)) as { default?: unknown }).default;
    } catch (error) {
      io.stderr.write(`--handlers ${flags.handlers}: could not be loaded: ${(error as Error).message}\n`);
      return 2;
    }
    if (typeof setup !== "function") {
      io.stderr.write(`--handlers ${flags.handlers}: its default export must be a function receiving the mock (export default (mock) => mock.on(…)), got ${typeof setup}.\n`);
      return 2;
    }
    try {
      await (setup as (mock: MockStore) => unknown)(mock);
    } catch (error) {
      io.stderr.write(`--handlers ${flags.handlers}: its function threw: ${(error as Error).message}\n`);
      return 2;
    }
  }
  const log = flags.log ? createWriteStream(flags.log, { flags: "a" }) : undefined;
  const ordered = orderedLog(log);
  const server = createServer((request, response) => {
    const written = ordered.reserve();
    handle(mock, request, response).then(written, (error: unknown) => {
      io.stderr.write(`mock: ${(error as Error).message}\n`);
      written(undefined);
    });
  });
  server.listen(flags.port, "127.0.0.1");
  try {
    await once(server, "listening");
  } catch (error) {
    io.stderr.write(`mock: cannot listen on 127.0.0.1:${flags.port}: ${(error as Error).message}\n`);
    return 2;
  }
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : flags.port}`;
  io.stdout.write(`store-admin-sdk mock listening on ${url} (baseUrl ${url}, apiUrl ${url}${API_ROOT_PATH})\n`);

  const signal = await new Promise<NodeJS.Signals>((resolveSignal) => {
    process.once("SIGTERM", () => resolveSignal("SIGTERM"));
    process.once("SIGINT", () => resolveSignal("SIGINT"));
  });
  // No new connection; the requests in flight are answered (their connections then close).
  server.closeIdleConnections();
  await new Promise<void>((closed) => server.close(() => closed()));
  await ordered.drained();
  if (log) await new Promise<void>((ended) => log.end(ended));
  io.stderr.write(`store-admin-sdk mock stopped (${signal})\n`);
  return 0;
}

/** Answers one request through the mock; resolves the log entry (undefined when there is none to write). */
async function handle(mock: MockStore, request: IncomingMessage, response: ServerResponse): Promise<MockLogEntry | undefined> {
  const time = new Date().toISOString();
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  const target = new URL(request.url ?? "/", "http://127.0.0.1");
  const path = target.pathname.startsWith(`${API_ROOT_PATH}/`) ? target.pathname.slice(API_ROOT_PATH.length) : target.pathname;
  const headers = new Headers();
  for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) headers.append(request.rawHeaders[i]!, request.rawHeaders[i + 1]!);
  const method = request.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD" && bytes.byteLength > 0;
  let answer: Response;
  try {
    answer = await mock.fetch(`${mock.url}${path}${target.search}`, { method, headers, body: hasBody ? bytes : undefined });
  } catch (error) {
    // A handler that threw is a bug in the test: a 500 saying so. Response.error(): the connection is cut.
    if (error instanceof TypeError && /Response\.error\(\)/.test(error.message)) {
      response.destroy();
      return undefined;
    }
    answer = Response.json({ detail: `The mock failed: ${(error as Error).message}` }, { status: 500 });
  }
  const body = Buffer.from(await answer.arrayBuffer());
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  response.end(body);
  const token = /^Bearer (.+)$/.exec(headers.get("authorization") ?? "")?.[1];
  return { method, path, query: queryOf(target.searchParams), body: bodyOf(bytes, headers.get("content-type"), token), status: answer.status, time };
}

function queryOf(params: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    query[name] = values.length === 1 ? values[0]! : values;
  }
  return query;
}

/** The body as the log keeps it, with the request's token scrubbed should a body carry it. */
function bodyOf(bytes: Buffer, contentType: string | null, token: string | undefined): unknown {
  if (bytes.byteLength === 0) return null;
  const text = redact(bytes.toString("utf8"), token ? [token] : []);
  if (/^\s*application\/([\w.-]+\+)?json/i.test(contentType ?? "")) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * Writes log entries in the order their requests arrived: each request reserves its place on
 * arrival, and a line is written once every earlier one is.
 */
function orderedLog(log: WriteStream | undefined): { reserve(): (entry: MockLogEntry | undefined) => void; drained(): Promise<void> } {
  const pending: Array<{ entry?: MockLogEntry | undefined; settled: boolean }> = [];
  let waiters: Array<() => void> = [];
  const flush = (): void => {
    while (pending.length > 0 && pending[0]!.settled) {
      const { entry } = pending.shift()!;
      if (entry && log) log.write(`${JSON.stringify(entry)}\n`);
    }
    if (pending.length === 0) {
      for (const waiter of waiters) waiter();
      waiters = [];
    }
  };
  return {
    reserve() {
      const slot: { entry?: MockLogEntry | undefined; settled: boolean } = { settled: false };
      pending.push(slot);
      return (entry) => {
        slot.entry = entry;
        slot.settled = true;
        flush();
      };
    },
    drained: () => (pending.length === 0 ? Promise.resolve() : new Promise<void>((done) => waiters.push(done))),
  };
}
