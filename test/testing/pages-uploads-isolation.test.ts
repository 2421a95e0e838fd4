/**
 * Pagination (hand-written `next` cursors, and `servePages()`), the multipart upload (files
 * reach the handler as Blobs), and isolation (two mocks share nothing; `reset()` clears one).
 */
import { describe, expect, it } from "vitest";
import type { Schemas } from "../../src/index.js";
import { servePages } from "../../src/testing/index.js";
import { mockedClient } from "./kit.js";

const users: Schemas["User"][] = Array.from({ length: 5 }, (_, i) => ({
  id: i + 1,
  email: `user${i + 1}@example.org`,
}));

describe("pagination", () => {
  it("servePages(): paginate() walks 5 customers in pages of 2, following the cursors, in 3 requests", async () => {
    const { mock, store } = mockedClient();
    mock.on("GET /users/", servePages(users, { pageSize: 2 }));
    const seen: number[] = [];
    for await (const user of store.paginate("/users/", { params: { query: { is_blocked: false } } }))
      seen.push(user.id!);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(mock.requests.map((r) => r.params.query)).toEqual([
      { is_blocked: false },
      { is_blocked: false, cursor: "2" },
      { is_blocked: false, cursor: "4" },
    ]);
  });

  it("servePages(): pages carry next and previous links; an unknown cursor is a 400", async () => {
    const { mock, store } = mockedClient();
    mock.on("GET /users/{id}/notes/", servePages([{ id: 1 }, { id: 2 }, { id: 3 }], { pageSize: 2 }));
    const first = await store.GET("/users/{id}/notes/", { params: { path: { id: 42 } } });
    expect(first.data).toEqual({
      next: `${mock.url}/users/42/notes/?cursor=2`,
      previous: null,
      results: [{ id: 1 }, { id: 2 }],
    });
    const second = await store.GET("/users/{id}/notes/", { params: { path: { id: 42 }, query: { cursor: "2" } } });
    expect(second.data).toEqual({ next: null, previous: `${mock.url}/users/42/notes/?cursor=0`, results: [{ id: 3 }] });
    const bad = await store.GET("/users/{id}/notes/", { params: { path: { id: 42 }, query: { cursor: "x" } } });
    expect(bad.response.status).toBe(400);
    expect(() => servePages(users, { pageSize: 0 })).toThrow("pageSize must be a whole number ≥ 1, got 0");
  });

  it("a hand-written handler serves pages with next cursors; paginate.pages() reads them", async () => {
    const { mock, store } = mockedClient();
    mock.on("GET /gift-cards/", ({ query }) =>
      query.cursor === undefined
        ? {
            status: 200,
            body: { next: `${mock.url}/gift-cards/?status=active&cursor=p2`, previous: null, results: [{ id: 1 }] },
          }
        : { status: 200, body: { next: null, previous: null, results: [{ id: 2 }, { id: 3 }] } },
    );
    const pages: number[][] = [];
    for await (const page of store.paginate.pages("/gift-cards/", { params: { query: { status: "active" } } })) {
      pages.push((page.results ?? []).map((card) => card.id!));
    }
    expect(pages).toEqual([[1], [2, 3]]);
    expect(mock.requestsTo("GET /gift-cards/").map((r) => r.params.query.cursor)).toEqual([undefined, "p2"]);
  });
});

describe("multipart upload", () => {
  it("the ticket attachment form is parsed: the handler gets the files as Blobs, with their names, types and bytes", async () => {
    const { mock, store } = mockedClient();
    const photo = new File([new Uint8Array([0xff, 0xd8, 0xff, 0xd9])], "damaged-box.jpg", { type: "image/jpeg" });
    const receipt = new File(["order,amount\n100234,49.90\n"], "receipt.csv", { type: "text/csv" });
    const received: Array<{ name: string; type: string; text: string }> = [];
    mock.on("POST /tickets/attachments/", async ({ body }) => {
      const files = body.files === undefined ? [] : Array.isArray(body.files) ? body.files : [body.files];
      for (const file of files) {
        expect(file).toBeInstanceOf(Blob);
        received.push({ name: (file as File).name, type: file.type, text: await file.text() });
      }
      return {
        status: 201,
        body: {
          id: 2201,
          comments: [{ id: 1, attachments: files.map((f, i) => ({ id: i + 1, file_name: (f as File).name })) }],
        },
      };
    });
    const { data, response } = await store.POST("/tickets/attachments/", { body: { files: [photo, receipt] } });
    expect(response.status).toBe(201);
    expect(data?.comments?.[0]?.attachments?.map((a) => a.file_name)).toEqual(["damaged-box.jpg", "receipt.csv"]);
    expect(received).toEqual([
      { name: "damaged-box.jpg", type: "image/jpeg", text: "\xff\xd8\xff\xd9".replace(/[\x80-\xff]/g, "\ufffd") },
      { name: "receipt.csv", type: "text/csv", text: "order,amount\n100234,49.90\n" },
    ]);
    expect(mock.requests[0]?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
  });

  it("a single file arrives as one Blob", async () => {
    const { mock, store } = mockedClient();
    let got: unknown;
    mock.on("POST /tickets/attachments/", ({ body }) => {
      got = body.files;
      return { status: 200, body: { id: 1 } };
    });
    await store.POST("/tickets/attachments/", { body: { files: new Blob(["hi"], { type: "text/plain" }) } });
    expect(got).toBeInstanceOf(Blob);
    expect(await (got as Blob).text()).toBe("hi");
  });
});

describe("isolation", () => {
  it("two mocks have their own URL, handlers and recorded requests", async () => {
    const a = mockedClient();
    const b = mockedClient();
    expect(a.mock.url).not.toBe(b.mock.url);
    a.mock.on("GET /users/{id}/", ({ path }) => ({ status: 200, body: { id: path.id, email: "a@example.org" } }));

    expect((await a.store.GET("/users/{id}/", { params: { path: { id: 1 } } })).data?.email).toBe("a@example.org");
    // b has no handler: the contract's example.
    expect((await b.store.GET("/users/{id}/", { params: { path: { id: 1 } } })).data?.email).toBe("astrid@example.org");
    expect(a.mock.requests).toHaveLength(1);
    expect(b.mock.requests).toHaveLength(1);

    // One mock's fetch never answers for another's URL: it fails as an unreachable address would.
    await expect(a.mock.fetch(`${b.mock.url}/users/1/`)).rejects.toThrow(TypeError);
    await expect(a.mock.fetch("http://127.0.0.1:9/users/1/")).rejects.toThrow(
      `this mock answers only requests under ${a.mock.url}/`,
    );
  });

  it("reset() removes the handlers and forgets the requests, of that mock only", async () => {
    const a = mockedClient();
    const b = mockedClient();
    for (const { mock } of [a, b]) mock.on("GET /gateways/{id}/", () => ({ status: 200, body: { id: 99 } }));
    await a.store.GET("/gateways/{id}/", { params: { path: { id: 3 } } });
    await b.store.GET("/gateways/{id}/", { params: { path: { id: 3 } } });
    const recorded = a.mock.requests;
    a.mock.reset();
    expect(recorded, "the same list, emptied").toHaveLength(0);
    expect(
      (await a.store.GET("/gateways/{id}/", { params: { path: { id: 3 } } })).data?.id,
      "back to the example",
    ).not.toBe(99);
    expect((await b.store.GET("/gateways/{id}/", { params: { path: { id: 3 } } })).data?.id).toBe(99);
    expect(b.mock.requests).toHaveLength(2);
  });
});
