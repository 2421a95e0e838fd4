/**
 * paginate() and paginate.pages() against an in-process node:http server on 127.0.0.1,
 * where Prism's static examples cannot produce several pages. The server counts what it
 * receives, so each test can say exactly how many pages were fetched.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createStoreAdminClient, NotFoundError, PaginationError, type StoreAdminClient } from "../../src/index.js";

interface Received {
  method: string;
  path: string;
  cursor: string | null;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
}

/** Pages keyed by cursor ("" = first page); each answer is `[status, body]`. */
let script = new Map<string, [number, unknown]>();
const received: Received[] = [];
let server: Server;
let apiUrl: string;
/** A second server standing in for a foreign origin: it must never be contacted. */
let foreign: Server;
let foreignHits = 0;
let foreignUrl: string;

function users(from: number, count: number): { id: number; email: string }[] {
  return Array.from({ length: count }, (_, i) => ({ id: from + i, email: `user${from + i}@example.org` }));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    received.push({
      method: req.method ?? "",
      path: url.pathname,
      cursor: url.searchParams.get("cursor"),
      query: url.searchParams,
      headers: req.headers,
    });
    const [status, body] = script.get(url.searchParams.get("cursor") ?? "") ?? [404, { detail: "Not found." }];
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  foreign = createServer((_req, res) => {
    foreignHits++;
    res.writeHead(500).end();
  });
  server.listen(0, "127.0.0.1");
  foreign.listen(0, "127.0.0.1");
  await Promise.all([once(server, "listening"), once(foreign, "listening")]);
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  foreignUrl = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  foreign.closeAllConnections();
  await Promise.all([new Promise((r) => server.close(r)), new Promise((r) => foreign.close(r))]);
});

let store: StoreAdminClient;
beforeEach(() => {
  script = new Map();
  received.length = 0;
  foreignHits = 0;
  store = createStoreAdminClient({ apiUrl, accessToken: "sk_test_pages", maxRetries: 0 });
});

/** Scripts `pageCount` pages of `perPage` users; `next` carries the cursor of the following page. */
function scriptPages(
  pageCount: number,
  perPage: number,
  nextUrl = (cursor: string) => `${apiUrl}/users/?cursor=${cursor}&is_blocked=false`,
): void {
  for (let page = 0; page < pageCount; page++) {
    const cursor = page === 0 ? "" : `c${page}`;
    const next = page + 1 < pageCount ? nextUrl(`c${page + 1}`) : null;
    script.set(cursor, [200, { next, previous: null, results: users(page * perPage + 1, perPage) }]);
  }
}

describe("paginate", () => {
  it("follows next until it is null, yielding every item in order", async () => {
    scriptPages(5, 3);
    const ids: number[] = [];
    for await (const user of store.paginate("/users/", { params: { query: { is_blocked: false } } }))
      ids.push(user.id!);
    expect(ids).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(received.map((r) => r.cursor)).toEqual([null, "c1", "c2", "c3", "c4"]);
    // the caller's filters are kept on every page, with the headers the client adds
    for (const request of received) {
      expect(request.path).toBe("/users/");
      expect(request.query.get("is_blocked")).toBe("false");
      expect(request.headers["x-store-api-version"]).toBe("2024-04-01");
      expect(request.headers.authorization).toBe("Bearer sk_test_pages");
    }
  });

  it("keeps every item in order when next() is called again before a page has arrived", async () => {
    scriptPages(3, 2);
    const iterator = store.paginate("/users/")[Symbol.asyncIterator]();
    const steps = await Promise.all(Array.from({ length: 8 }, () => iterator.next()));
    expect(steps.map((step) => (step.done ? "done" : step.value.id))).toEqual([1, 2, 3, 4, 5, 6, "done", "done"]);
    expect(received.map((r) => r.cursor)).toEqual([null, "c1", "c2"]);
  });

  it("return() ends the walk: no further page is fetched and next() is done", async () => {
    scriptPages(3, 2);
    const iterator = store.paginate("/users/")[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ id: 1 });
    expect(await iterator.return()).toEqual({ value: undefined, done: true });
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
    expect(received).toHaveLength(1);
  });

  it("pages() yields whole pages", async () => {
    scriptPages(3, 2);
    const sizes: number[] = [];
    for await (const page of store.paginate.pages("/users/")) sizes.push(page.results.length);
    expect(sizes).toEqual([2, 2, 2]);
  });

  it("stops fetching when the loop breaks early", async () => {
    scriptPages(10, 5);
    let seen = 0;
    for await (const _user of store.paginate("/users/")) {
      if (++seen === 7) break;
    }
    expect(seen).toBe(7);
    expect(received).toHaveLength(2); // page 2 held item 7; page 3 was never requested
  });

  it("ends with an error instead of looping when a cursor comes back", async () => {
    script.set("", [200, { next: `${apiUrl}/users/?cursor=A`, results: users(1, 1) }]);
    script.set("A", [200, { next: `${apiUrl}/users/?cursor=B`, results: users(2, 1) }]);
    script.set("B", [200, { next: `${apiUrl}/users/?cursor=A`, results: users(3, 1) }]);
    const ids: number[] = [];
    const walk = async () => {
      for await (const user of store.paginate("/users/")) ids.push(user.id!);
    };
    await expect(walk()).rejects.toThrow(PaginationError);
    await expect(walk()).rejects.toThrow(
      "[GET /users/] pagination stopped after 3 page(s): the server sent the cursor of an earlier page again; stopping instead of looping.",
    );
    expect(ids).toEqual([1, 2, 3, 1, 2, 3]);
    expect(received.map((r) => r.cursor)).toEqual([null, "A", "B", null, "A", "B"]);
  });

  it("takes only the cursor from a foreign-origin next and asks its own API root", async () => {
    scriptPages(3, 1, (cursor) => `${foreignUrl}/steal/?cursor=${cursor}`);
    const ids: number[] = [];
    for await (const user of store.paginate("/users/")) ids.push(user.id!);
    expect(ids).toEqual([1, 2, 3]);
    expect(foreignHits).toBe(0);
    expect(received.map((r) => `${r.path}?cursor=${r.cursor}`)).toEqual([
      "/users/?cursor=null",
      "/users/?cursor=c1",
      "/users/?cursor=c2",
    ]);
  });

  it("accepts a relative next link", async () => {
    scriptPages(2, 1, (cursor) => `/api/admin/users/?cursor=${cursor}`);
    const ids: number[] = [];
    for await (const user of store.paginate("/users/")) ids.push(user.id!);
    expect(ids).toEqual([1, 2]);
  });

  it("throws the typed error of a failed page, after yielding the pages before it", async () => {
    scriptPages(2, 2);
    script.set("c1", [404, { detail: "Not found." }]);
    const ids: number[] = [];
    let failure: unknown;
    try {
      for await (const user of store.paginate("/users/")) ids.push(user.id!);
    } catch (error) {
      failure = error;
    }
    expect(ids).toEqual([1, 2]);
    expect(failure).toBeInstanceOf(NotFoundError);
    expect(failure).toMatchObject({ status: 404, scope: "users:read", operation: { method: "GET", path: "/users/" } });
    expect(String(failure)).not.toContain("sk_test_pages");
  });

  it("rejects a page without a results array and a next link without a cursor", async () => {
    script.set("", [200, { next: null, items: [] }]);
    await expect(store.paginate("/users/").next()).rejects.toThrow(
      "[GET /users/] pagination stopped after 0 page(s): the page has no `results` array.",
    );
    script.set("", [200, { next: `${apiUrl}/users/?page=2`, results: [] }]);
    const walk = store.paginate.pages("/users/");
    expect((await walk.next()).done).toBe(false); // the first page is yielded
    await expect(walk.next()).rejects.toThrow(
      /after 1 page\(s\): the page's `next` link carries no `cursor` parameter/,
    );
  });

  it("walks a list operation with a path parameter", async () => {
    script.set("", [200, { next: `${apiUrl}/users/7/notes/?cursor=n2`, results: [{ id: 1, message: "a" }] }]);
    script.set("n2", [200, { next: null, results: [{ id: 2, message: "b" }] }]);
    const messages: string[] = [];
    for await (const note of store.paginate("/users/{id}/notes/", { params: { path: { id: 7 } } }))
      messages.push(note.message!);
    expect(messages).toEqual(["a", "b"]);
    expect(received.map((r) => r.path)).toEqual(["/users/7/notes/", "/users/7/notes/"]);
  });

  it("refuses a path that is not a list operation, at run time too, sending nothing", async () => {
    const call = () => store.paginate("/users/{id}/" as never, { params: { path: { id: 1 } } } as never).next();
    await expect(call()).rejects.toThrow(TypeError);
    await expect(call()).rejects.toThrow(
      /takes a list operation \(\/users\/, \/users\/\{id\}\/notes\/, \/gift-cards\/\)/,
    );
    expect(received).toHaveLength(0);
  });
});
