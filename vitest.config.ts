import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // The door the subsystems import (`#shared`), from its source: package.json's `imports` names
  // the built file, for the package. tsconfig.json's `paths` does the same for tsc and tsx.
  resolve: { alias: { "#shared": fileURLToPath(new URL("./src/shared.ts", import.meta.url)) } },
  test: {
    include: ["test/**/*.test.ts"],
    // leaks.ts first: its teardown runs last, after Prism's, and fails the run if a process
    // the run started is still alive. prism.ts starts one Prism mock for the whole run
    // (about 2 s) and provides its URL to tests.
    globalSetup: ["test/setup/leaks.ts", "test/setup/prism.ts"],
    // In each test worker: a process started with an environment of its own carries the mark too.
    setupFiles: ["test/setup/mark-children.ts"],
    // Contract tests make a few requests to a local mock; 20 s is generous even on 2 cores.
    testTimeout: 20_000,
    // Hooks may start Prism (the global setup, or a test of scripts/mock.ts) on a busy machine.
    hookTimeout: 120_000,
  },
});
