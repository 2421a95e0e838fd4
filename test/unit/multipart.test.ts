/** Multipart bodies: what a Blob-carrying body becomes on the wire, built once per call. */
import { describe, expect, it } from "vitest";
import { createStoreAdminClient } from "../../src/client/client.js";
import { formBody, toFormData } from "../../src/client/multipart.js";

/** A client whose fetch records each attempt as a Request and answers the next status (a 429 is retried). */
function recordingClient(statuses: number[]) {
  const sent: Request[] = [];
  const store = createStoreAdminClient({
    apiUrl: "https://store.test/api/admin",
    accessToken: "t",
    fetch: async (input, init) => {
      sent.push(new Request(input, init));
      const status = statuses.shift() ?? 200;
      return Response.json({ id: 1 }, { status, headers: status === 429 ? { "retry-after": "0" } : {} });
    },
  });
  return { store, sent };
}

describe("formBody: the one media type a call is sent in", () => {
  const json = { filesMultipart: true } as const;
  it("sends JSON where JSON is chosen, multipart as soon as the body holds a file, a Blob in a list or is a FormData", () => {
    expect(formBody({ text: "hi" }, json)).toBeUndefined();
    expect(formBody({ text: "hi", attachment: new Blob(["x"]) }, json)).toBeInstanceOf(FormData);
    expect(formBody({ files: ["a", new File(["x"], "x.txt")] }, json)).toBeInstanceOf(FormData);
    const form = new FormData();
    form.append("text", "hi");
    expect(formBody(form, json)).toBe(form);
    // Without multipart offered, a file is no reason to change: the caller's body goes as the contract says.
    expect(formBody({ text: "hi", attachment: new Blob(["x"]) }, {})).toBeUndefined();
  });

  it("sends a URL-encoded form where that is the form offered, refusing a file it cannot carry", () => {
    const encoded = formBody({ colour: "red", count: 2, tags: ["a", "b"], gone: undefined }, { form: true });
    expect(encoded).toBeInstanceOf(URLSearchParams);
    expect(String(encoded)).toBe("colour=red&count=2&tags=a&tags=b");
    expect(() => formBody({ colour: new Blob(["x"]) }, { form: true })).toThrow(
      'form field "colour" is a file, which a URL-encoded form cannot carry.',
    );
  });

  it("sends multipart where multipart is chosen, with or without a file", () => {
    expect(formBody({ note: "n" }, { multipart: true })).toBeInstanceOf(FormData);
    expect(formBody(undefined, { multipart: true })).toBeInstanceOf(FormData);
  });
});

describe("toFormData", () => {
  it("keeps a File's name and repeats the field for an array, naming a bare Blob after its field", async () => {
    const form = toFormData({ files: [new File(["a"], "a.txt"), new Blob(["b"])], note: 7 });
    expect((form.getAll("files") as File[]).map((f) => f.name)).toEqual(["a.txt", "files"]);
    expect(await (form.getAll("files")[0] as File).text()).toBe("a");
    expect(form.get("note")).toBe("7");
  });

  it("skips undefined and null fields", () => {
    const form = toFormData({ a: undefined, b: null, c: "x" });
    expect([...form.keys()]).toEqual(["c"]);
  });

  it("refuses a nested object, naming the field, and a body that is not an object of fields", () => {
    expect(() => toFormData({ meta: { a: 1 } })).toThrow(/multipart field "meta" must be a Blob, a string/);
    for (const body of [null, "text", [new Blob(["x"])], new Blob(["x"])]) {
      expect(() => toFormData(body)).toThrow(/a multipart body must be an object of form fields/);
    }
  });
});

describe("multipart operations through the client", () => {
  it("sends { files } as multipart/form-data with the file's bytes and name", async () => {
    const { store, sent } = recordingClient([201]);
    await store.POST("/tickets/attachments/", {
      body: { files: new File(["hello"], "a.txt", { type: "text/plain" }) },
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.get("content-type")).toMatch(/^multipart\/form-data; boundary=/);
    const file = (await sent[0]!.formData()).get("files") as File;
    expect([file.name, await file.text()]).toEqual(["a.txt", "hello"]);
  });

  it("sends form data even without a file, since the operation takes form data", async () => {
    const { store, sent } = recordingClient([201]);
    await store.POST("/tickets/attachments/", { body: {} });
    expect(sent[0]!.headers.get("content-type")).toMatch(/^multipart\/form-data; boundary=/);
    expect([...(await sent[0]!.formData()).keys()]).toEqual([]);
  });

  it("sends the same bytes on a retry, even if the caller changed the body meanwhile", async () => {
    const { store, sent } = recordingClient([429, 200]);
    const body = { first_name: "Astrid" };
    const pending = store.PATCH("/users/{id}/", { params: { path: { id: 1 } }, body });
    body.first_name = "Changed";
    await pending;
    expect(sent).toHaveLength(2);
    expect(await Promise.all(sent.map((r) => r.text()))).toEqual([
      '{"first_name":"Astrid"}',
      '{"first_name":"Astrid"}',
    ]);
  });

  it("refuses a body that is not an object of fields before sending anything", async () => {
    const { store, sent } = recordingClient([]);
    await expect(store.POST("/tickets/attachments/", { body: "text" } as never)).rejects.toThrow(
      /a multipart body must be an object of form fields/,
    );
    expect(sent).toHaveLength(0);
  });
});
