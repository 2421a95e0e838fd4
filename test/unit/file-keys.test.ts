/**
 * The stable key of a file generated per operation or per schema (scripts/file-keys.ts): the
 * checked identifier lower-cased, with a short hash of the exact name. Names that differ in
 * case only get keys that differ, a long name a short key, and unchecked text none at all.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileKey } from "../../scripts/file-keys.js";
import { ROOT } from "../package/tarball.js";

describe("fileKey", () => {
  it("is the identifier lower-cased with a hash of the exact name, the same every time", () => {
    expect(fileKey("getUser", "getUser")).toMatch(/^getuser_[0-9a-f]{8}$/);
    expect(fileKey("getUser", "getUser")).toBe(fileKey("getUser", "getUser"));
  });

  it("gives names that differ in case only keys that differ in more than case", () => {
    const [a, b] = [fileKey("getUser", "getUser"), fileKey("GetUser", "GetUser")];
    expect(a.toLowerCase()).not.toBe(b.toLowerCase());
  });

  it("keeps a long name's key short, and refuses what is not a checked identifier", () => {
    expect(fileKey(`a${"b".repeat(300)}`, "long").length).toBeLessThanOrEqual(49);
    for (const unchecked of ["../etc/passwd", "a/b", "a b", "", "1abc"])
      expect(() => fileKey(unchecked, unchecked)).toThrow(/is not a checked identifier/);
  });

  it("names every per-operation and per-schema file of generated/, none two alike on a file system that ignores case", () => {
    for (const dir of ["testing/ops", "validators/responses", "validators/schemas"]) {
      const names = readdirSync(join(ROOT, "generated", dir));
      expect(
        names.filter((name) => !/^[a-z0-9_]+_[0-9a-f]{8}\.ts$/.test(name)),
        dir,
      ).toEqual([]);
      expect(new Set(names.map((name) => name.toLowerCase())).size, dir).toBe(names.length);
    }
  });
});
