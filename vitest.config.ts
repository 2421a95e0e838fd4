import { relative } from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest (a minute or more each, mostly waiting on child processes: a
 * copy of the checkout regenerated and checked, consumer installs, tsc, browsers, runtimes),
 * started first so that none of them is left to end the run alone. Only the order depends on
 * this list: a file missing from it still runs.
 */
const LONGEST_FIRST = [
  "test/contract-growth/",
  "test/contract-text/attacks.test.ts",
  "test/contract-diff/foreign-references.test.ts",
  "test/mcp/bounds.test.ts",
  "test/mcp/code-mode-attacks.test.ts",
  "test/docs/reference.test.ts",
  "test/contract-diff/release.test.ts",
  "test/package/consumer.test.ts",
  "test/demo.test.ts",
  "test/bulk-bullmq/consumer.test.ts",
];

/** vitest's order (failed first, then longest by the last run's times), the longest files ahead. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification): number => {
      const path = relative(file.project.config.root, file.moduleId).split("\\").join("/");
      const index = LONGEST_FIRST.findIndex((prefix) => path.startsWith(prefix));
      return index < 0 ? LONGEST_FIRST.length : index;
    };
    // Array sort is stable: within a rank, vitest's own order stays.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // leaks.ts first: its teardown runs last, after Prism's, and fails the run if a process
    // the run started is still alive. prism.ts starts one Prism mock for the whole run
    // (about 2 s) and provides its URL to tests. shared-installs.ts gives the run one folder
    // for its packed tarball and consumer installs (test/package/tarball.ts).
    globalSetup: ["test/setup/leaks.ts", "test/setup/prism.ts", "test/setup/shared-installs.ts"],
    // In each test worker: a process started with an environment of its own carries the mark too.
    setupFiles: ["test/setup/mark-children.ts"],
    // Most files wait on child processes (tsc, Prism, npm, a browser, Redis, other runtimes) or
    // sockets more than they compute: four at a time pays even on two cores, where vitest
    // would pick one (its default is the cores less one).
    maxWorkers: 4,
    sequence: { sequencer: LongestFirst },
    // Contract tests make a few requests to a local mock; 20 s is generous even on 2 cores.
    testTimeout: 20_000,
    // Hooks may start Prism (the global setup, or a test of scripts/mock.ts) on a busy machine.
    hookTimeout: 120_000,
  },
});
