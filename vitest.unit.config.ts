import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

/**
 * `npm run test:unit`: the fast lane. The layering of src/ (its import graph), the client, its
 * faults and retries, the methods and their generator, pagination, the testing kit and the
 * contract checked against Prism, from
 * the sources: no build, no browser, no Redis, nothing downloaded (no consumer install, no
 * runtime). `npm test` runs these and everything else.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      "test/unit/**/*.test.ts",
      "test/architecture/**/*.test.ts",
      "test/faults/**/*.test.ts",
      "test/contract/**/*.test.ts",
      "test/methods/**/*.test.ts",
      "test/pagination/**/*.test.ts",
      "test/spec/**/*.test.ts",
      "test/testing/**/*.test.ts",
      "test/schemas/**/*.test.ts",
      "test/mcp/result.test.ts",
      "test/mcp/options.test.ts",
      "test/smoke.test.ts",
      "test/house.test.ts",
      "test/setup/without-tools.test.ts",
    ],
    // These files wait on sockets and timers more than they compute: two at a time on two cores.
    maxWorkers: 2,
    // The kit in other runtimes (Bun, Deno: downloaded) and its bundle size (a build).
    exclude: ["test/testing/runtimes.test.ts", "test/testing/size.test.ts"],
  },
});
