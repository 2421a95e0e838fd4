/**
 * `paginate.pages()` used directly: return() while a page is in flight aborts that request
 * (the server sees its connection closed before it answered) instead of waiting for it. The
 * second page never comes, so a return() that waited for it would never settle.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStoreAdminClient } from "../../src/index.js";

let url = "";
const received: string[] = [];
/** Resolves when the server sees the connection of an unanswered request close. */
let abortedAtServer: Promise<string>;
let sawAbort: (url: string) => void;
const hanging = new Set<ServerResponse>();
const server = createServer((request, response) => {
  received.push(request.url ?? "");
  if (!(request.url ?? "").includes("cursor=")) {
    response
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ next: `${url}/users/?cursor=c2`, previous: null, results: [{ id: 1 }] }));
    return;
  }
  // The second page: never answered; the test learns of the client's abort from the closed connection.
  hanging.add(response);
  response.on("close", () => {
    hanging.delete(response);
    if (!response.writableEnded) sawAbort(request.url ?? "");
  });
});

beforeAll(async () => {
  abortedAtServer = new Promise((resolve) => (sawAbort = resolve));
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const response of hanging) response.destroy();
  await new Promise<void>((closed) => server.close(() => closed()));
});

describe("paginate.pages() used directly", () => {
  it("return() with a page in flight aborts its request at the server, and the pending next() ends the walk", async () => {
    const store = createStoreAdminClient({ apiUrl: url, accessToken: "test-token", maxRetries: 0 });
    const walk = store.paginate.pages("/users/");
    const first = await walk.next();
    expect(first.done).toBe(false);
    expect(first.value?.results.map((user) => user.id)).toEqual([1]);
    const pending = walk.next();
    while (received.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));

    await walk.return(undefined);
    expect(await abortedAtServer).toBe("/users/?cursor=c2");
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(await walk.next()).toEqual({ value: undefined, done: true });
    expect(received).toEqual(["/users/", "/users/?cursor=c2"]);
  });

  it("breaking out of a for await loop ends the walk without another request", async () => {
    received.length = 0;
    const store = createStoreAdminClient({ apiUrl: url, accessToken: "test-token", maxRetries: 0 });
    for await (const page of store.paginate.pages("/users/")) {
      expect(page.nextCursor).toBe("c2");
      break;
    }
    expect(received).toEqual(["/users/"]);
  });
});
