/**
 * `maxResponseBytes`: response bodies are bounded in decoded bytes while they are read, for
 * 2xx and error bodies alike, and the limit is never retried. A gzip bomb (about 2 MB on the
 * wire, 2 GiB decoded) must neither crash the process nor take memory far past the limit.
 */
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { buildClient } from "../../src/client/client.js";
import { ResponseTooLargeError } from "../../src/core/errors.js";
import type { StoreAdminClient, StoreAdminClientOptions } from "../../src/core/types.js";
import { TEST_TOKEN, useFaultServer } from "../helpers/fault-server.js";
import { recordingSleep } from "../helpers/scripted-fetch.js";
import { rejection } from "../helpers/outcome.js";

const MIB = 1024 * 1024;
const server = useFaultServer();

function client(apiUrl: string, overrides: Partial<StoreAdminClientOptions> = {}): StoreAdminClient {
  return buildClient({ apiUrl, accessToken: TEST_TOKEN, timeoutMs: 20_000, ...overrides } as StoreAdminClientOptions, {
    sleep: recordingSleep().sleep,
    random: () => 0,
  });
}

const getUser = (store: StoreAdminClient) => store.GET("/users/{id}/", { params: { path: { id: 1 } } });

describe("maxResponseBytes", () => {
  it("a 2xx body past the default (32 MiB) fails with ResponseTooLargeError naming the limit, and a GET is not resent", async () => {
    server().enqueue({ status: 200, body: { id: 1, padding: "x".repeat(33 * MIB) } });
    const error = await rejection(getUser(client(server().url)));
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toBe(
      "[GET /users/{id}/] 200 OK with a body over maxResponseBytes (33554432 bytes, decoded); reading stopped; not resent.",
    );
    expect((error as ResponseTooLargeError).maxResponseBytes).toBe(32 * MIB);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ status: 200, maxResponseBytes: 32 * MIB });
    expect(server().count("GET", "/users/1/")).toBe(1);
  });

  it("error bodies are bounded too: a 503 past the limit is not retried", async () => {
    server().enqueue({ status: 503, body: { detail: "x".repeat(2 * MIB) } });
    const error = await rejection(getUser(client(server().url, { maxResponseBytes: MIB })));
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).status).toBe(503);
    expect(server().count("GET", "/users/1/")).toBe(1);
  });

  it("a body of exactly the limit is read; one byte more is not", async () => {
    const body = JSON.stringify({ id: 1, padding: "x".repeat(1000) });
    const size = Buffer.byteLength(body);
    server().enqueue({ status: 200, body, headers: { "content-type": "application/json" } });
    const { data } = await getUser(client(server().url, { maxResponseBytes: size }));
    expect(data).toMatchObject({ id: 1 });
    server().enqueue({ status: 200, body, headers: { "content-type": "application/json" } });
    await expect(getUser(client(server().url, { maxResponseBytes: size - 1 }))).rejects.toBeInstanceOf(
      ResponseTooLargeError,
    );
  });

  it('a body the caller streams (parseAs: "stream") is counted too', async () => {
    server().enqueue({ status: 200, body: { padding: "x".repeat(2 * MIB) } });
    const { data } = await client(server().url, { maxResponseBytes: MIB }).GET("/users/{id}/", {
      params: { path: { id: 1 } },
      parseAs: "stream",
    });
    await expect(new Response(data as unknown as ReadableStream).text()).rejects.toBeInstanceOf(ResponseTooLargeError);
  });

  it("a body that arrives in several chunks, split inside a character, reads whole, as json and as text", async () => {
    const body = Buffer.from(JSON.stringify({ id: 1, first_name: "Åsa", last_name: "Ödmark 🙂" }));
    const at = [body.indexOf(Buffer.from("Å")) + 1, body.indexOf(Buffer.from("🙂")) + 2];
    const parts = [body.subarray(0, at[0]), body.subarray(at[0], at[1]), body.subarray(at[1])];
    const split = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
      // Each part in a write of its own, a few milliseconds apart: the client reads them as separate chunks.
      const next = (i: number): void =>
        void (i < parts.length ? res.write(parts[i], () => setTimeout(() => next(i + 1), 20)) : res.end());
      next(0);
    });
    await new Promise<void>((resolve) => split.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(split.address() as { port: number }).port}`;
      const store = client(url, { maxResponseBytes: body.length });
      expect((await getUser(store)).data).toEqual({ id: 1, first_name: "Åsa", last_name: "Ödmark 🙂" });
      const { data } = await store.GET("/users/{id}/", { params: { path: { id: 1 } }, parseAs: "text" });
      expect(data).toBe(body.toString());
    } finally {
      split.closeAllConnections();
      await new Promise((resolve) => split.close(resolve));
    }
  });

  it("refuses a maxResponseBytes that is not a positive number", () => {
    expect(() => client(server().url, { maxResponseBytes: 0 })).toThrow(
      new TypeError("maxResponseBytes must be a positive number of bytes, got 0."),
    );
  });
});

describe("a gzip bomb", () => {
  let bomb: Server | undefined;
  const sockets = new Set<Socket>();
  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => (bomb ? bomb.close(() => resolve()) : resolve()));
    bomb = undefined;
  });

  it("2 MB on the wire, 2 GiB decoded: a ResponseTooLargeError, one request, memory near the limit", async () => {
    // 2,048 gzip members of 1 MiB of zeros each: a valid gzip stream (RFC 1952 §2.2) that inflates 1000-fold.
    const member = gzipSync(Buffer.alloc(MIB), { level: 9 });
    const wire = Buffer.concat(Array.from({ length: 2048 }, () => member));
    expect(wire.length).toBeLessThan(2.5 * MIB);
    let requests = 0;
    bomb = createServer((_req, res) => {
      requests++;
      res.writeHead(200, {
        "content-type": "application/json",
        "content-encoding": "gzip",
        "content-length": String(wire.length),
      });
      res.end(wire);
    });
    bomb.on("connection", (socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => bomb!.listen(0, "127.0.0.1", resolve));
    const address = bomb.address() as { port: number };

    global.gc?.();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    let peakHeap = before.heapUsed + before.arrayBuffers;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peakRss = Math.max(peakRss, now.rss);
      peakHeap = Math.max(peakHeap, now.heapUsed + now.arrayBuffers);
    }, 5);
    try {
      const error = await rejection(getUser(client(`http://127.0.0.1:${address.port}`)));
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect((error as Error).message).toContain("maxResponseBytes (33554432 bytes, decoded)");
    } finally {
      clearInterval(sampler);
    }
    expect(requests).toBe(1);
    const mib = (bytes: number) => (bytes / MIB).toFixed(0);
    console.info(
      `gzip bomb: peak RSS +${mib(peakRss - before.rss)} MiB, heap and buffers +${mib(peakHeap - before.heapUsed - before.arrayBuffers)} MiB (limit 32 MiB)`,
    );
    // The limit is 32 MiB; reading stops there. Allow the decoder's and the text buffers' overhead.
    expect(peakRss - before.rss).toBeLessThan(256 * MIB);
    expect(peakHeap - (before.heapUsed + before.arrayBuffers)).toBeLessThan(256 * MIB);
  });
});

describe("maxResponseBytes holds however the body is read", () => {
  /**
   * A server that answers every request with an endless JSON body, 64 KiB at a time and only as
   * fast as the client reads (it waits for "drain"), and counts the bytes it managed to send
   * before the client went away.
   */
  let endless: Server | undefined;
  const sockets = new Set<Socket>();
  let sent = 0;
  let requests = 0;
  let closed: Promise<void> = Promise.resolve();
  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => (endless ? endless.close(() => resolve()) : resolve()));
    endless = undefined;
  });

  async function startEndless(): Promise<string> {
    sent = 0;
    requests = 0;
    const chunk = Buffer.from(`"${"x".repeat(64 * 1024 - 4)}",`);
    endless = createServer((_req, res) => {
      requests++;
      let open = true;
      closed = new Promise((resolve) => res.on("close", resolve));
      res.on("close", () => (open = false));
      res.writeHead(200, { "content-type": "application/json" });
      res.write("[");
      const pump = (): void => {
        while (open) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
      };
      pump();
    });
    endless.on("connection", (socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => endless!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(endless.address() as { port: number }).port}`;
  }

  /** A client of the endless server with a 1 MiB limit; a read that is not counted runs into timeoutMs. */
  const limited = (url: string) => client(url, { maxResponseBytes: MIB, timeoutMs: 10_000, maxRetries: 0 });

  /** What the server sent before the client stopped reading, once the connection has closed. */
  async function sentWhenClosed(): Promise<number> {
    await closed;
    return sent;
  }

  /** Every way of reading ends with ResponseTooLargeError, the server having sent little past the limit. */
  async function expectStopped(name: string, read: Promise<unknown>): Promise<void> {
    const error = await rejection(read);
    const bytes = await sentWhenClosed();
    console.info(`${name}: ${(error as Error).name}, the server sent ${(bytes / MIB).toFixed(1)} MiB (limit 1 MiB)`);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(requests).toBe(1);
    // The limit, plus what sat in the socket buffers and the decoder when reading stopped.
    expect(bytes).toBeLessThan(16 * MIB);
  }

  it.each(["json", "text", "blob", "arrayBuffer"])('parseAs: "%s"', async (parseAs) => {
    const url = await startEndless();
    await expectStopped(parseAs, getUserAs(limited(url), { parseAs }));
  });

  it('parseAs: "stream": the caller\'s read of the stream', async () => {
    const url = await startEndless();
    const { data } = await getUserAs(limited(url), { parseAs: "stream" });
    await expectStopped("stream", new Response(data as ReadableStream).arrayBuffer());
  });

  it("a middleware that re-wraps the body (new Response(response.body, response))", async () => {
    const store = limited(await startEndless());
    store.use({ onResponse: ({ response }) => new Response(response.body, response) });
    await expectStopped("re-wrapped by middleware", getUser(store));
  });

  it("a middleware that reads a clone, or the body stream itself", async () => {
    const store = limited(await startEndless());
    store.use({ onResponse: async ({ response }) => void (await response.clone().arrayBuffer()) });
    await expectStopped("a clone read by middleware", getUser(store));
    const streaming = limited(await startEndless());
    streaming.use({
      onResponse: async ({ response }) => {
        const reader = response.body!.getReader();
        while (!(await reader.read()).done);
      },
    });
    await expectStopped("the body stream read by middleware", getUser(streaming));
  });

  it.each(["bytes", "formData", "clone", "body"])(
    'parseAs: "%s" is refused before sending, naming the values it takes',
    async (parseAs) => {
      const url = await startEndless();
      const error = await rejection(getUserAs(limited(url), { parseAs }));
      expect(error).toEqual(
        new TypeError(
          `[GET /users/{id}/] parseAs must be one of json, text, blob, arrayBuffer, stream, got ${parseAs}. The request was not sent.`,
        ),
      );
      expect(requests).toBe(0);
    },
  );
});

const getUserAs = (store: StoreAdminClient, init: Record<string, unknown>) =>
  store.GET("/users/{id}/", { params: { path: { id: 1 } }, ...init } as never) as Promise<{ data?: unknown }>;
