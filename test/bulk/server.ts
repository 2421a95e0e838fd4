/**
 * The bulk tests' server: on 127.0.0.1 (a free port), it counts what it receives (per key, per
 * one-second window) and answers every operation with a small valid body. A test scripts it
 * with `respond`: a status, headers (a 429 with `Retry-After`), a delay. `GET /gift-cards/`
 * serves `cards` gift cards in pages of `pageSize`, with real cursors.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach } from "vitest";

export interface Received {
  method: string;
  /** The path without the query. */
  path: string;
  query: URLSearchParams;
  /** The last numeric segment of the path (the item's id), if any. */
  id: string | undefined;
  body: string;
  authorization: string | undefined;
  /** `Date.now()` when the request's head arrived. */
  at: number;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  delayMs?: number;
  /** Sent as it is instead of `body` (no content type unless `headers` gives one). */
  rawBody?: string;
  /** After the head and the first half of the body, wait this long before the rest. */
  stallMs?: number;
}

export interface BulkServer {
  /** `http://127.0.0.1:PORT`: pass it as `apiUrl`. */
  url: string;
  received: Received[];
  /** Return an answer to override the default one (undefined: the default). */
  respond: ((request: Received) => Answer | undefined | Promise<Answer | undefined>) | undefined;
  /** The most requests the server was answering at once. */
  maxConcurrent: number;
  /** Gift cards `GET /gift-cards/` serves, and its page size. */
  cards: number;
  pageSize: number;
  /** How many requests with this method reached `id`'s path. */
  count(method: string, id: string | number): number;
  /** The most requests (of `method`, or all) that arrived within any `windowMs` (default 1,000). */
  maxInWindow(method?: string, windowMs?: number): number;
  reset(): void;
  close(): Promise<void>;
}

const ID_IN_PATH = /\/(\d+)\/(?:[a-z-]+\/)?$/;

/** Starts a server; stop it with `close()`. */
export async function startBulkServer(): Promise<BulkServer> {
  const counts = new Map<string, number>();
  const state: BulkServer = {
    url: "",
    received: [],
    respond: undefined,
    maxConcurrent: 0,
    cards: 0,
    pageSize: 50,
    count: (method, id) => counts.get(`${method} ${id}`) ?? 0,
    maxInWindow(method, windowMs = 1000) {
      const times = state.received
        .filter((r) => method === undefined || r.method === method)
        .map((r) => r.at)
        .sort((a, b) => a - b);
      let most = 0;
      for (let i = 0, j = 0; j < times.length; j++) {
        while (times[j]! - times[i]! >= windowMs) i++;
        most = Math.max(most, j - i + 1);
      }
      return most;
    },
    reset() {
      state.received.length = 0;
      counts.clear();
      state.respond = undefined;
      state.maxConcurrent = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  let concurrent = 0;
  const server: Server = createServer((req, res) => {
    const at = Date.now();
    concurrent++;
    state.maxConcurrent = Math.max(state.maxConcurrent, concurrent);
    res.on("close", () => concurrent--);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void (async () => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1");
        const id = ID_IN_PATH.exec(url.pathname)?.[1];
        const received: Received = {
          method: req.method ?? "GET",
          path: url.pathname,
          query: url.searchParams,
          id,
          body: Buffer.concat(chunks).toString("utf8"),
          authorization: req.headers.authorization,
          at,
        };
        state.received.push(received);
        if (id !== undefined) counts.set(`${received.method} ${id}`, (counts.get(`${received.method} ${id}`) ?? 0) + 1);
        const answer = (await state.respond?.(received)) ?? defaultAnswer(received, state);
        if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
        if (res.destroyed) return;
        const status = answer.status ?? 200;
        if (answer.rawBody !== undefined) {
          res.writeHead(status, answer.headers);
          res.end(answer.rawBody);
          return;
        }
        const body = answer.body === undefined || status === 204 ? undefined : JSON.stringify(answer.body);
        res.writeHead(status, {
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...answer.headers,
        });
        if (answer.stallMs && body !== undefined) {
          res.write(body.slice(0, body.length >> 1));
          await new Promise((resolve) => setTimeout(resolve, answer.stallMs));
          if (res.destroyed) return;
          res.end(body.slice(body.length >> 1));
          return;
        }
        res.end(body);
      })();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** A gift card as the list serves it. */
export function card(id: number): Record<string, unknown> {
  return { id, code: `CARD-${id}`, balance: "10.00", expired_at: null };
}

function defaultAnswer(request: Received, state: BulkServer): Answer {
  if (request.method === "GET" && request.path === "/gift-cards/") {
    const from = Number(request.query.get("cursor") ?? "0");
    const to = Math.min(state.cards, from + state.pageSize);
    const results = Array.from({ length: Math.max(0, to - from) }, (_, i) => card(from + i + 1));
    const next = to < state.cards ? `${state.url}/gift-cards/?cursor=${to}` : null;
    return { body: { next, previous: null, results } };
  }
  const id = Number(request.id ?? 1);
  return { status: request.method === "POST" ? 201 : 200, body: { id } };
}

/**
 * A test file's bed: one server for the file (started before its tests, reset before each, closed
 * after) and a temporary folder, removed after. `server` stands for the one started, so that a
 * test reads and scripts it as its own (`server.received`, `server.respond = …`).
 */
export function bulkTestBed(prefix: string): {
  server: BulkServer;
  dir: string;
  file: (name: string, content?: string | Buffer) => string;
} {
  let started: BulkServer | undefined;
  const current = (): BulkServer => started ?? assert.fail("the bulk test server is used before beforeAll started it");
  const server = new Proxy({} as BulkServer, {
    get: (_, key) => Reflect.get(current(), key),
    set: (_, key, value) => Reflect.set(current(), key, value),
  });
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let files = 0;
  beforeAll(async () => {
    started = await startBulkServer();
  });
  afterAll(async () => {
    await started?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => started?.reset());
  const file = (name: string, content?: string | Buffer): string => {
    const path = join(dir, `${++files}-${name}`);
    if (content !== undefined) writeFileSync(path, content);
    return path;
  };
  return { server, dir, file };
}
