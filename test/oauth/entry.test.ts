/**
 * store-admin-sdk/oauth stays out of the main entry: an application that only makes a client
 * bundles neither src/oauth/ nor oauth4webapi (scripts/size.ts measures that bundle), and the
 * built main entry does not import them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { bundleSize } from "../../scripts/size.js";
import { ROOT } from "../package/tarball.js";

it("is in no part of the main entry's bundle", async () => {
  const { inputs } = await bundleSize();
  const paths = inputs.map((input) => input.path);
  expect(paths).toContain("src/client/client.ts");
  expect(paths.filter((path) => path.includes("oauth"))).toEqual([]);
  expect(readFileSync(join(ROOT, "dist", "src", "index.js"), "utf8")).not.toMatch(/oauth/i);
});
