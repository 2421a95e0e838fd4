/**
 * The bundle of `import { createStoreAdminClient }` (scripts/size.ts, after the build) stays
 * within its ceiling, so it cannot grow unnoticed. The goal of 8 kB is not met yet:
 * docs/performance.md says by how much and what the bytes are.
 */
import { describe, expect, it } from "vitest";
import { bundleSize, CEILING_GZIP_BYTES, GOAL_GZIP_BYTES } from "../scripts/size.js";

describe("bundle size (scripts/size.ts)", () => {
  it(`keeps \`import { createStoreAdminClient }\` within ${CEILING_GZIP_BYTES} B min+gz (goal ${GOAL_GZIP_BYTES} B)`, async () => {
    const { minBytes, gzipBytes, inputs } = await bundleSize();
    // What is measured is the whole client: our built files and openapi-fetch, not an empty bundle.
    const paths = inputs.map((input) => input.path);
    expect(paths).toContain("src/client.ts");
    expect(paths).toContain("node_modules/openapi-fetch/dist/index.mjs");
    // The operation methods are part of the client: their table and the function that builds them.
    expect(paths).toContain("src/methods.ts");
    expect(paths).toContain("generated/method-table.ts");
    console.info(`bundle: ${gzipBytes} B min+gz (${minBytes} B minified), ${gzipBytes - GOAL_GZIP_BYTES} B over the goal`);
    expect(gzipBytes, `the bundle is ${gzipBytes} B min+gz, over the ceiling; run \`npx tsx scripts/size.ts\` to see its inputs`).toBeLessThanOrEqual(
      CEILING_GZIP_BYTES,
    );
  });

  it("measures any entry and names: bare openapi-fetch's createClient is a fraction of ours", async () => {
    const ours = await bundleSize();
    const bare = await bundleSize("openapi-fetch", ["default as createClient"]);
    expect(bare.inputs.map((input) => input.path)).toEqual(["node_modules/openapi-fetch/dist/index.mjs"]);
    expect(bare.gzipBytes).toBeLessThan(ours.gzipBytes);
  });
});
