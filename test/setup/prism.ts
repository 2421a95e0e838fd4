/**
 * Vitest global setup: one Prism mock per test run, shared by every test file.
 * Tests read its URL with `inject("prismUrl")` (see test/helpers/prism.ts).
 *
 * PRISM_SPEC=path/to/draft.yaml serves another OpenAPI file, for trying a draft.
 */
import { resolve } from "node:path";
import type { TestProject } from "vitest/node";
import { CONTRACT_PATH } from "../../scripts/facts.js";
import { startMock } from "../../scripts/mock.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Root URL of the Prism mock, e.g. `http://127.0.0.1:41234`: pass it as `apiUrl`. */
    prismUrl: string;
    /** Absolute path of the OpenAPI file the mock serves. */
    prismSpecPath: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const specPath = resolve(process.env.PRISM_SPEC ?? CONTRACT_PATH);
  const mock = await startMock({ specPath });
  project.provide("prismUrl", mock.url);
  project.provide("prismSpecPath", specPath);
  // Vitest calls the returned function once all test files have finished.
  return () => mock.stop();
}
