/**
 * The loopback server of the end-to-end and pagination benchmarks: node:http with keep-alive
 * on 127.0.0.1 (a free port), in a worker thread, so its work and its heap (a worker has its
 * own) stay out of the client's measurements. Routes, under any path prefix:
 * - `GET  …/users/{id}/`            → the contract's `User` example, with that id
 * - `POST …/products/`              → reads the JSON body, answers 201 with a `Product`
 * - `GET  /n{count}/users/?cursor=` → page `cursor` of `count` users, `PAGE_SIZE` per page
 * A request without the bearer token gets 401, so every client is seen to send it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import { PRODUCT_JSON, TOKEN, USER_JSON } from "./fixtures.js";

export const PAGE_SIZE = 100;

/** Starts the server in a worker thread; resolves once it listens, with `http://127.0.0.1:PORT`. */
export async function startLoopbackServer(): Promise<{ url: string; close(): Promise<void> }> {
  // The worker runs this file; it needs tsx's loader, which a worker does not inherit on Node 20.
  const source = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})
    .then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(source, { eval: true });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once("message", (message: { port: number }) => resolve(message.port));
    worker.once("error", reject);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      const exited = new Promise((resolve) => worker.once("exit", resolve));
      worker.postMessage("close");
      await exited;
    },
  };
}

// `{"id":42,…}` split after the id, so that a page of users is built by concatenation.
const USER_TAIL = USER_JSON.slice(USER_JSON.indexOf(","));
const userJson = (id: number): string => `{"id":${id}${USER_TAIL}`;
const cursorFor = (page: number): string => Buffer.from(`p=${page}`).toString("base64url");
const pageOf = (cursor: string): number => Number(Buffer.from(cursor, "base64url").toString().slice(2));

function listPage(origin: string, prefix: string, count: number, cursor: string | null): string {
  const page = cursor === null ? 0 : pageOf(cursor);
  const first = page * PAGE_SIZE;
  const users: string[] = [];
  for (let id = first + 1; id <= Math.min(count, first + PAGE_SIZE); id++) users.push(userJson(id));
  const link = (p: number): string => `"${origin}${prefix}/users/?cursor=${cursorFor(p)}"`;
  const next = first + PAGE_SIZE < count ? link(page + 1) : "null";
  const previous = page > 0 ? link(page - 1) : "null";
  return `{"next":${next},"previous":${previous},"results":[${users.join(",")}]}`;
}

function send(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  response.end(body);
}

function handle(origin: string, request: IncomingMessage, response: ServerResponse, body: string): void {
  if (request.headers.authorization !== `Bearer ${TOKEN}`) return send(response, 401, `{"detail":"missing token"}`);
  const url = new URL(request.url ?? "/", origin);
  const list = /^(\/n(\d+))\/users\/$/.exec(url.pathname);
  if (request.method === "GET" && list) {
    return send(response, 200, listPage(origin, list[1]!, Number(list[2]), url.searchParams.get("cursor")));
  }
  const user = /\/users\/(\d+)\/$/.exec(url.pathname);
  if (request.method === "GET" && user) return send(response, 200, userJson(Number(user[1])));
  if (request.method === "POST" && url.pathname.endsWith("/products/")) {
    JSON.parse(body); // a server parses what it is sent
    return send(response, 201, PRODUCT_JSON);
  }
  send(response, 404, `{"detail":"not found"}`);
}

function serve(): void {
  const server = createServer({ keepAlive: true }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => handle(origin, request, response, Buffer.concat(chunks).toString()));
  });
  server.keepAliveTimeout = 60_000;
  let origin = "";
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    origin = `http://127.0.0.1:${address.port}`;
    parentPort!.postMessage({ port: address.port });
  });
  parentPort!.once("message", () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

if (!isMainThread) serve();
