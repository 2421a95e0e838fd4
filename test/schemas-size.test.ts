/**
 * What `store-admin-sdk/schemas` costs an application (scripts/size.ts, on the built entry):
 * importing one schema loads the Standard Schema wrapper and that schema's line, not the client,
 * not the other schemas (each is marked pure, so a bundler drops the unused), and its first
 * `validate` loads that schema's validator module alone.
 */
import { describe, expect, it, beforeAll } from "vitest";
import { bundleSize } from "../scripts/size.js";
import { ensureBuilt } from "./package/tarball.js";
import * as schemas from "../src/schemas/index.js";

const ENTRY = "dist/src/schemas/index.js";

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

describe("store-admin-sdk/schemas in an application's bundle", () => {
  it("import { User } loads no client and no other schema at start, under 1 kB min+gz", async () => {
    const user = await bundleSize(ENTRY, ["User"]);
    const paths = user.inputs.map((input) => input.path);
    expect(paths).toEqual(expect.arrayContaining(["src/schemas/standard-schema.ts", "generated/schemas/index.ts"]));
    expect(
      paths.filter(
        (path) =>
          /^(src\/(client|core|testing)\/|node_modules\/)/.test(path) ||
          path === "src/index.ts" ||
          path === "src/shared.ts",
      ),
    ).toEqual([]);
    expect(user.gzipBytes).toBeLessThan(1024);
    console.info(
      `[size] import { User } from "store-admin-sdk/schemas": ${user.gzipBytes} B at start, ${user.lazyGzipBytes} B on its first validate`,
    );
  });

  it("a schema's first validate loads its own validator, not every schema's", async () => {
    const [user, all] = await Promise.all([bundleSize(ENTRY, ["User"]), bundleSize(ENTRY, Object.keys(schemas))]);
    expect(user.totalGzipBytes * 5).toBeLessThan(all.totalGzipBytes);
  });
});
