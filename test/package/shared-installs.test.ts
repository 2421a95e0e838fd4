/**
 * The run's shared installs (test/setup/shared-installs.ts, test/package/tarball.ts): the
 * package is packed once per run and a consumer project installed once per set of packages;
 * each file gets a copy of its own, which it may change without changing another file's.
 */
import { existsSync } from "node:fs";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createConsumerProject, packTarball, sharedConsumerDir, type ConsumerProject } from "./tarball.js";

const projects: ConsumerProject[] = [];
afterAll(() => Promise.all(projects.map((project) => project.remove())));

const INSTALL_TIMEOUT_MS = 300_000;

describe("shared installs", () => {
  it(
    "packs once per run: every copy of the tarball has the bytes of the run's one",
    async () => {
      const shared = inject("sharedInstallsDir");
      expect(shared, "the run's global setup provides a folder of shared installs").toBeTruthy();
      const first = await createConsumerProject();
      projects.push(first);
      const record = JSON.parse(await readFile(join(shared, "pack.json"), "utf8")) as { tarball: string };
      expect(record.tarball.startsWith(shared)).toBe(true);
      const packed = await packTarball(first.dir);
      expect(packed.tarball).toBe(first.pack.tarball);
      expect(await readFile(packed.tarball)).toEqual(await readFile(record.tarball));
    },
    INSTALL_TIMEOUT_MS,
  );

  it(
    "installs once per set of packages, and each project is a copy of its own",
    async () => {
      const shared = inject("sharedInstallsDir");
      const [a, b] = [await createConsumerProject(), await createConsumerProject()];
      projects.push(a, b);
      // One install for both (and for the first test's project): the set of no extra packages.
      const template = sharedConsumerDir([])!;
      expect(template.startsWith(shared)).toBe(true);
      // Written once the install is done, and only then.
      const installedAt = (await stat(`${template}.json`)).mtimeMs;

      expect(a.dir).not.toBe(b.dir);
      for (const project of [a, b]) {
        expect(existsSync(join(project.dir, "node_modules", "store-admin-sdk", "dist", "src", "index.js"))).toBe(true);
        expect(existsSync(project.pack.tarball)).toBe(true);
        expect(project.pack.tarball.startsWith(project.dir)).toBe(true);
      }
      // A change in one project's node_modules is not seen in the other's, nor in the run's install.
      const readme = (dir: string) => join(dir, "node_modules", "store-admin-sdk", "README.md");
      const before = await readFile(readme(b.dir), "utf8");
      await writeFile(readme(a.dir), "changed by this test\n");
      expect(await readFile(readme(b.dir), "utf8")).toBe(before);
      expect(await readFile(readme(template), "utf8")).toBe(before);
      // Asking again installs nothing: the run's install is the same files as before.
      projects.push(await createConsumerProject());
      expect((await stat(`${template}.json`)).mtimeMs).toBe(installedAt);
    },
    INSTALL_TIMEOUT_MS,
  );
});
