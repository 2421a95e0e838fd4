/** The multipart body serializer: what a Blob-carrying body becomes on the wire. */
import { describe, expect, it } from "vitest";
import { serializeBody, toFormData } from "../../src/multipart.js";

describe("serializeBody", () => {
  it("sends a body holding a File as form data, keeping the file name", async () => {
    const form = serializeBody({ files: new File(["hello"], "a.txt", { type: "text/plain" }) });
    expect(form).toBeInstanceOf(FormData);
    const file = (form as FormData).get("files") as File;
    expect(file.name).toBe("a.txt");
    expect(await file.text()).toBe("hello");
  });

  it("repeats the field for an array of files, naming a bare Blob after its field", () => {
    const form = serializeBody({ files: [new File(["a"], "a.txt"), new Blob(["b"])], note: 7 }) as FormData;
    expect((form.getAll("files") as File[]).map((f) => f.name)).toEqual(["a.txt", "files"]);
    expect(form.get("note")).toBe("7");
  });

  it("leaves JSON bodies to openapi-fetch's serializer", () => {
    expect(serializeBody({ title: "Coffee", tags: ["a"] })).toBe('{"title":"Coffee","tags":["a"]}');
    expect(serializeBody({ files: [] })).toBe('{"files":[]}');
  });

  it("passes a caller's FormData through", () => {
    const form = new FormData();
    expect(serializeBody(form)).toBe(form);
  });
});

describe("toFormData", () => {
  it("skips undefined and null fields", () => {
    const form = toFormData({ a: undefined, b: null, c: "x" });
    expect([...form.keys()]).toEqual(["c"]);
  });

  it("refuses a nested object, naming the field", () => {
    expect(() => toFormData({ meta: { a: 1 } })).toThrow(/multipart field "meta" must be a Blob, a File, a string/);
  });
});
