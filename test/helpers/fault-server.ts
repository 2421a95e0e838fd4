/**
 * The one HTTP server of the tests: in-process, on 127.0.0.1 (a free port). It records every
 * request it receives (method, URL, headers, body), so tests can assert exactly what went on
 * the wire and how often, and answers each with the next scripted behaviour: a response, a
 * delay, a stall after the headers, a reset, a body cut short. With nothing queued it answers
 * `200 {"ok":true}`. Nothing is mocked in the client: a request goes through the SDK's
 * middleware, retries, timeout and a real socket.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { afterEach, beforeEach } from "vitest";
import { createStoreAdminClient, type StoreAdminClient, type StoreAdminClientOptions } from "../../src/index.js";

/**
 * The token every test client sends. It looks like a secret on purpose: it must never show up
 * in an error or a log event. (Prism only checks that a bearer token is present.)
 */
export const TEST_TOKEN = "sk_test_secret";

/** Options a test may change; the URL is the helper's business. */
export type ClientOverrides = Partial<Omit<StoreAdminClientOptions, "baseUrl" | "apiUrl">>;

/** What the server does with one request. */
export interface Fault {
  /** @default 200 */
  status?: number;
  headers?: Record<string, string>;
  /** A string or bytes (a gzip member, say) are sent as they are; anything else as JSON (with `content-type: application/json`). No body when absent. */
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

/** A request as the server received it. */
export interface ReceivedRequest {
  method: string;
  /** Path and query exactly as sent (`/users/?email=…`). */
  url: string;
  /** The path as sent, without the query. */
  path: string;
  /** The query, parsed. */
  query: URLSearchParams;
  /** Node lower-cases header names. */
  headers: IncomingHttpHeaders;
  /** The body as UTF-8 text (empty when there was none). */
  body: string;
  /** The raw body bytes, for binary (multipart) bodies. */
  bytes: Buffer;
}

export interface FaultServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** Every request received, in order of arrival. */
  requests: ReceivedRequest[];
  /** Queues behaviours for the next requests, one each; afterwards the fallback answers again. */
  enqueue(...faults: Fault[]): void;
  /** Requests received with this method and exact URL path (query ignored). */
  count(method: string, path: string): number;
  /** The SDK's client with `apiUrl` set to this server and {@link TEST_TOKEN}. */
  client(overrides?: ClientOverrides): StoreAdminClient;
  /** Stops listening, destroys open connections and cancels pending replies. Safe to call twice. */
  close(): Promise<void>;
}

/** Answers a request when the queue is empty: `200 {"ok": true}` unless given. */
export type Fallback = (request: ReceivedRequest, index: number) => Fault;

const defaultFallback: Fallback = () => ({ status: 200, body: { ok: true } });

/** Starts a {@link FaultServer} on 127.0.0.1, port 0 (the OS picks a free one). */
export async function startFaultServer(fallback: Fallback = defaultFallback): Promise<FaultServer> {
  const queue: Fault[] = [];
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = req.url ?? "";
      const queryAt = url.includes("?") ? url.indexOf("?") : url.length;
      const bytes = Buffer.concat(chunks);
      const received: ReceivedRequest = {
        method: req.method ?? "",
        url,
        path: url.slice(0, queryAt),
        query: new URLSearchParams(url.slice(queryAt + 1)),
        headers: req.headers,
        body: bytes.toString("utf8"),
        bytes,
      };
      const index = requests.push(received) - 1;
      const fault = queue.shift() ?? fallback(received, index);
      if (!fault.delayMs) return respond(fault, res);
      const timer = setTimeout(() => {
        timers.delete(timer);
        respond(fault, res);
      }, fault.delayMs);
      timers.add(timer);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("test server: no TCP address");
  const url = `http://127.0.0.1:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    url,
    requests,
    enqueue: (...faults) => void queue.push(...faults),
    count: (method, path) => requests.filter((r) => r.method === method && r.path === path).length,
    client: (overrides = {}) => createStoreAdminClient({ apiUrl: url, accessToken: TEST_TOKEN, ...overrides }),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

function respond(fault: Fault, res: ServerResponse): void {
  if (fault.hang) return;
  if (fault.destroy) {
    res.socket?.destroy();
    return;
  }
  const status = fault.status ?? 200;
  const isText = typeof fault.body === "string" || fault.body instanceof Uint8Array;
  const body =
    fault.body === undefined ? "" : isText ? (fault.body as string | Uint8Array) : JSON.stringify(fault.body);
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

/**
 * A server started before each test of the enclosing `describe` (or file) and closed after
 * it; call the returned function to reach the current one.
 */
export function useFaultServer(fallback?: Fallback): () => FaultServer {
  let server: FaultServer | undefined;
  beforeEach(async () => {
    server = await startFaultServer(fallback);
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

/** The parts of a received `multipart/form-data` body, parsed by the platform's own parser. */
export async function formDataOf(request: ReceivedRequest): Promise<FormData> {
  const contentType = request.headers["content-type"];
  if (!contentType?.startsWith("multipart/form-data")) {
    throw new Error(`not a multipart request: content-type ${String(contentType)}`);
  }
  return new Response(new Uint8Array(request.bytes), { headers: { "content-type": contentType } }).formData();
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
