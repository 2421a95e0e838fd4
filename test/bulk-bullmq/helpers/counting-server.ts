/**
 * The store the queue tests' workers talk to: node:http on 127.0.0.1 (a free port), in the test
 * process, counting what it receives: each request's method, path, key (the first numeric path
 * segment: `/subscriptions/7/renew/` → "7"), arrival time and `traceparent`. It answers `200 {"id": key}`
 * (201 to a POST) unless a test's `answer()` says otherwise: a delay, a 429 with
 * `Retry-After`, a 500. A request without the expected bearer token gets a 401.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface Received {
  method: string;
  path: string;
  key: string;
  /** Arrival time, `Date.now()` of the test process. */
  at: number;
  /** Arrival and send time (the sender's `x-sent-at` header, if any), `performance.timeOrigin + performance.now()` of each process. */
  arrivedAt: number;
  sentAt: number | undefined;
  status: number;
  /** The sender's `x-worker` header (the test workers send their pid). */
  worker: string;
  /** The request's W3C `traceparent` header, if any. */
  traceparent: string | undefined;
  /** The request's `Idempotency-Key` header, if any. */
  idempotencyKey: string | undefined;
  /** Whether the answer has been sent. */
  answered: boolean;
}

/** What the server does with one request; unset fields take the defaults. */
export interface Answer {
  status?: number;
  /** The body, as JSON (default: `{"id": key}` for a success, `{"detail": …}` otherwise). */
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface CountingServer {
  /** `http://127.0.0.1:PORT`: the workers' `apiUrl`. */
  readonly url: string;
  readonly requests: readonly Received[];
  /** Decides each answer from the request and how many arrived before it (0-based). */
  answer(
    decide: ((request: { method: string; path: string; key: string; index: number }) => Answer | undefined) | undefined,
  ): void;
  /** Requests received per key, for one method or all. */
  countByKey(method?: string): Map<string, number>;
  /** The most requests that arrived within any `windowMs` (a sliding window, ends included). */
  maxInWindow(windowMs?: number): number;
  reset(): void;
  close(): Promise<void>;
}

export async function startCountingServer(token: string): Promise<CountingServer> {
  const requests: Received[] = [];
  let decide: Parameters<CountingServer["answer"]>[0];
  const sockets = new Set<Socket>();

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const at = Date.now();
    const arrivedAt = performance.timeOrigin + performance.now();
    const sentAt = request.headers["x-sent-at"] === undefined ? undefined : Number(request.headers["x-sent-at"]);
    const method = request.method ?? "GET";
    const path = (request.url ?? "/").split("?")[0]!;
    const key = /\/(\d+)\//.exec(path)?.[1] ?? "";
    const index = requests.length;
    const answer =
      request.headers.authorization === `Bearer ${token}`
        ? (decide?.({ method, path, key, index }) ?? {})
        : { status: 401 };
    const status = answer.status ?? (method === "POST" ? 201 : 200);
    const worker = String(request.headers["x-worker"] ?? "");
    const traceparent = request.headers.traceparent as string | undefined;
    const idempotencyKey = request.headers["idempotency-key"] as string | undefined;
    const received: Received = {
      method,
      path,
      key,
      at,
      arrivedAt,
      sentAt,
      status,
      worker,
      traceparent,
      idempotencyKey,
      answered: false,
    };
    requests.push(received);
    request.resume();
    request.once("end", () => {
      const reply = (): void => {
        const body =
          answer.body !== undefined
            ? JSON.stringify(answer.body)
            : status < 300
              ? JSON.stringify({ id: Number(key) || 1 })
              : JSON.stringify({ detail: `status ${status}` });
        response.writeHead(status, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          ...answer.headers,
        });
        response.end(body);
        received.answered = true;
      };
      if (answer.delayMs) setTimeout(reply, answer.delayMs);
      else reply();
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer(next) {
      decide = next;
    },
    countByKey(method) {
      const counts = new Map<string, number>();
      for (const r of requests)
        if (method === undefined || r.method === method) counts.set(r.key, (counts.get(r.key) ?? 0) + 1);
      return counts;
    },
    maxInWindow(windowMs = 1000) {
      const times = requests.map((r) => r.at).sort((a, b) => a - b);
      let max = 0;
      for (let end = 0, start = 0; end < times.length; end++) {
        while (times[end]! - times[start]! >= windowMs) start++;
        max = Math.max(max, end - start + 1);
      }
      return max;
    },
    reset() {
      requests.length = 0;
      decide = undefined;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
