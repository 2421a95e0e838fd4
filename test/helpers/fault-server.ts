/**
 * An in-process HTTP server on 127.0.0.1 (a free port) that answers each request with the
 * next scripted behaviour — a response, a delay, a stall after the headers, a reset, a body
 * cut short — and records every request it receives, so tests can assert exact counts.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { afterEach, beforeEach } from "vitest";

/** What the server does with one request. */
export interface Fault {
  /** @default 200 */
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON (with `content-type: application/json`). */
  body?: unknown;
  /** Wait this long before sending anything. */
  delayMs?: number;
  /** Send the headers and the first half of the body, then nothing more (the connection stays open). */
  stallAfterHeaders?: boolean;
  /** Reset the connection before any response (the request was received). */
  destroy?: boolean;
  /** Announce a longer `Content-Length` than sent, send part of the body, then close the connection. */
  truncate?: boolean;
  /** Never answer at all. */
  hang?: boolean;
}

/** A request as the server saw it. */
export interface ReceivedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FaultServer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Every request received, in order of arrival. */
  requests: ReceivedRequest[];
  /** Queues behaviours for the next requests, one each. */
  enqueue(...faults: Fault[]): void;
  /** Requests received with this method and exact URL path (query ignored). */
  count(method: string, path: string): number;
  /** Stops listening, destroys open connections and cancels pending replies. */
  close(): Promise<void>;
}

/** Answers a request when the queue is empty: `200 {"ok": true}` unless given. */
export type Fallback = (request: ReceivedRequest, index: number) => Fault;

const defaultFallback: Fallback = () => ({ status: 200, body: { ok: true } });

export async function startFaultServer(fallback: Fallback = defaultFallback): Promise<FaultServer> {
  const queue: Fault[] = [];
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();

  const later = (ms: number, action: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      action();
    }, ms);
    timers.add(timer);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const received: ReceivedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      const index = requests.push(received) - 1;
      const fault = queue.shift() ?? fallback(received, index);
      const act = (): void => respond(fault, res);
      if (fault.delayMs) later(fault.delayMs, act);
      else act();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("fault server: no port");

  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    enqueue: (...faults) => void queue.push(...faults),
    count: (method, path) => requests.filter((r) => r.method === method && r.url.split("?")[0] === path).length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

function respond(fault: Fault, res: ServerResponse): void {
  if (fault.hang) return;
  if (fault.destroy) {
    res.socket?.destroy();
    return;
  }
  const status = fault.status ?? 200;
  const isText = typeof fault.body === "string";
  const body = fault.body === undefined ? "" : isText ? (fault.body as string) : JSON.stringify(fault.body);
  const headers: Record<string, string> = {
    ...(fault.body !== undefined && !isText ? { "content-type": "application/json" } : {}),
    ...fault.headers,
  };
  const half = body.slice(0, Math.floor(body.length / 2));
  if (fault.stallAfterHeaders) {
    // Chunked, so that the client cannot know the body is incomplete and waits for more.
    res.writeHead(status, headers);
    res.write(half);
    return;
  }
  if (fault.truncate) {
    res.writeHead(status, { ...headers, "content-length": String(Buffer.byteLength(body) + 100) });
    res.write(half);
    res.socket?.end(() => res.socket?.destroy());
    return;
  }
  res.writeHead(status, { ...headers, "content-length": String(Buffer.byteLength(body)) });
  res.end(body);
}

/** The token the fault tests send; it must never show up in an error or a log line. */
export const TEST_TOKEN = "sk_test_secret";

/** A request as openapi-fetch would build it: JSON body, bearer token, optional signal. */
export function apiRequest(
  baseUrl: string,
  method: string,
  path: string,
  init: { body?: unknown; signal?: AbortSignal } = {},
): Request {
  return new Request(baseUrl + path, {
    method,
    headers: {
      Authorization: `Bearer ${TEST_TOKEN}`,
      "X-Store-API-Version": "2024-04-01",
      ...(init.body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: init.body === undefined ? null : JSON.stringify(init.body),
    signal: init.signal ?? null,
  });
}

/** A port on 127.0.0.1 where nothing listens (a server is opened there and closed). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return `http://127.0.0.1:${address.port}`;
}

/**
 * A fault server started before each test of the enclosing suite (or file) and closed after
 * it; call the returned function to reach the current one.
 */
export function useFaultServer(): () => FaultServer {
  let server: FaultServer | undefined;
  beforeEach(async () => {
    server = await startFaultServer();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return () => {
    if (!server) throw new Error("useFaultServer(): the server exists only inside a test");
    return server;
  };
}
