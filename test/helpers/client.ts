/**
 * Clients for the contract tests, and a recording server to see exactly what goes on the wire.
 *
 * - `createTestClient()`: the SDK's client against the Prism mock the global setup started
 *   (Prism serves the contract's paths at its root, hence `apiUrl`).
 * - `recordingServer()`: an in-process `node:http` server on 127.0.0.1 (a free port) that
 *   records every request (method, URL, headers, raw body bytes) and answers
 *   `200 {"ok":true}`, or the replies a test queued. Nothing is mocked in the client: the
 *   request goes through the SDK's middleware, retries, timeout and a real socket.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { Socket } from "node:net";
import { afterEach, beforeEach, expect } from "vitest";
import { createStoreAdminClient, type StoreAdminClient, type StoreAdminClientOptions } from "../../src/index.js";
import { prismUrl } from "./prism.js";

/** The token every test client sends (Prism only checks that a bearer token is present). */
export const TEST_TOKEN = "test-token";

/** The version header value the contract allows (spec part 9), written out here on purpose. */
export const EXPECTED_API_VERSION = "2024-04-01";

/** Options a test may change; the URL is the helper's business. */
export type ClientOverrides = Partial<Omit<StoreAdminClientOptions, "baseUrl" | "apiUrl">>;

/** The SDK's client against the Prism mock, with {@link TEST_TOKEN}. */
export function createTestClient(overrides: ClientOverrides = {}): StoreAdminClient {
  return createStoreAdminClient({ apiUrl: prismUrl(), accessToken: TEST_TOKEN, ...overrides });
}

/**
 * The data of a successful call, typed as the operation declares it. Fails the test, with
 * the error body, unless the call succeeded with `status`.
 *
 * The parameter is the call's own result type, so no caller casts: `NonNullable<R["data"]>`
 * of openapi-fetch's union is exactly the declared success body.
 */
export function expectOk<R extends { data?: unknown; error?: unknown; response: Response }>(
  result: R,
  status = 200,
): NonNullable<R["data"]> {
  expect(result.error, `unexpected error body (status ${result.response.status})`).toBeUndefined();
  expect(result.response.status).toBe(status);
  expect(result.data).toBeDefined();
  return result.data as NonNullable<R["data"]>;
}

/** One entry of Prism's `validation` list (the 422 it generates for an invalid request). */
export interface PrismValidationEntry {
  location: string[];
  message: string;
  code?: string | number;
}

/** The `validation` list of an error body, checked entry by entry (the contract's `ErrorBody` is open). */
export function validationOf(body: unknown): PrismValidationEntry[] {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return [];
  const list = (body as { validation?: unknown }).validation;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item): PrismValidationEntry[] => {
    if (item === null || typeof item !== "object") return [];
    const { location, message, code } = item as Record<string, unknown>;
    if (!Array.isArray(location) || typeof message !== "string") return [];
    return [{ location: location.map(String), message, ...(typeof code === "string" || typeof code === "number" ? { code } : {}) }];
  });
}

// ─── Recording server ───────────────────────────────────────────────────────────────

/** A request as the recording server received it. */
export interface RecordedRequest {
  method: string;
  /** Path and query exactly as sent (`/users/?email=…`). */
  url: string;
  /** The path without the query. */
  path: string;
  /** The query, parsed. */
  query: URLSearchParams;
  /** Node lower-cases header names. */
  headers: IncomingHttpHeaders;
  /** The raw body bytes (empty when there was none). */
  body: Buffer;
}

/** What the server answers to one request. */
export interface ScriptedReply {
  /** @default 200 */
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON (`content-type: application/json`) unless a string, which is sent as is. @default {"ok":true} */
  body?: unknown;
}

export interface RecordingServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** Every request received, in order of arrival. */
  requests: RecordedRequest[];
  /** Queues replies for the next requests, one each; afterwards the default reply is used again. */
  reply(...replies: ScriptedReply[]): void;
  /** The SDK's client with `apiUrl` set to this server and {@link TEST_TOKEN}. */
  client(overrides?: ClientOverrides): StoreAdminClient;
  /** Stops listening and destroys open keep-alive connections. Safe to call twice. */
  close(): Promise<void>;
}

const DEFAULT_REPLY: ScriptedReply = { status: 200, body: { ok: true } };

/** Starts a {@link RecordingServer} on 127.0.0.1, port 0 (the OS picks a free one). */
export async function recordingServer(): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const queue: ScriptedReply[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = req.url ?? "";
      const parsed = new URL(url, "http://127.0.0.1");
      requests.push({
        method: req.method ?? "",
        url,
        path: parsed.pathname,
        query: parsed.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      const reply = queue.shift() ?? DEFAULT_REPLY;
      const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? DEFAULT_REPLY.body);
      res.writeHead(reply.status ?? 200, {
        ...(typeof reply.body === "string" ? {} : { "content-type": "application/json" }),
        "content-length": String(Buffer.byteLength(text)),
        ...reply.headers,
      });
      res.end(text);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("recording server: no TCP address");
  const url = `http://127.0.0.1:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    url,
    requests,
    reply: (...replies) => void queue.push(...replies),
    client: (overrides = {}) => createStoreAdminClient({ apiUrl: url, accessToken: TEST_TOKEN, ...overrides }),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

/** The parts of a recorded `multipart/form-data` body, parsed by the platform's own parser. */
export async function formDataOf(recorded: RecordedRequest): Promise<FormData> {
  const contentType = recorded.headers["content-type"];
  if (!contentType?.startsWith("multipart/form-data")) {
    throw new Error(`not a multipart request: content-type ${String(contentType)}`);
  }
  return new Response(new Uint8Array(recorded.body), { headers: { "content-type": contentType } }).formData();
}

/**
 * A recording server started before each test of the enclosing `describe` and closed after
 * it; call the returned function to reach the current one.
 */
export function useRecordingServer(): () => RecordingServer {
  let server: RecordingServer | undefined;
  beforeEach(async () => {
    server = await recordingServer();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return () => {
    if (!server) throw new Error("useRecordingServer(): the server exists only inside a test");
    return server;
  };
}
