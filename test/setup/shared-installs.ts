/**
 * Vitest global setup: a folder for the run's packed tarball and consumer installs, shared by
 * every test file (test/package/tarball.ts). The first file that needs the tarball packs it
 * there and the first that needs a consumer project with a given set of packages installs it
 * there; the others copy what is there. Nothing is packed or installed here, so a run that
 * needs neither pays nothing. Tests read the folder with `inject("sharedInstallsDir")`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's folder of shared installs: the tarball and one consumer project per set of packages. */
    sharedInstallsDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), "store-admin-sdk-shared-"));
  project.provide("sharedInstallsDir", dir);
  return () => rm(dir, { recursive: true, force: true });
}
