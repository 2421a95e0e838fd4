/**
 * `npm run release [-- <x.y.z>] [--date YYYY-MM-DD]`: makes a release in one step, so that
 * its date, its contract snapshot, package.json's version and its tag cannot disagree.
 *
 * Refuses unless `npm run release:check` passes, the work tree is clean,
 * `## [Unreleased]` has entries and the project's checks pass: `npm test` (the contract's
 * lint, the generated code, the build, the types, the docs and the whole suite), or, with
 * `--skip-tests`, only `npm run build` and `npm run typecheck`. Nothing is changed until all
 * of them pass. `STORE_ADMIN_RELEASE_CHECKS` replaces the checks' command line (the release's
 * own test sets it, so that it does not run the whole suite inside the suite). The version defaults to the smallest the contract's change
 * since the last release allows (a patch when the contract did not change); a version given
 * must be above that. Then it dates the `## [Unreleased]` entries as `## [x.y.z] - date`
 * (today, UTC, by default) under a fresh empty `## [Unreleased]`, keeps the contract as
 * `openapi/released/store-admin-<x.y.z>.yaml`, sets the version in package.json,
 * package-lock.json and src/core/version.ts, commits, and tags the commit `v<x.y.z>`.
 * Push the commit and the tag, then publish.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { checkRelease } from "./release-check.js";
import {
  changelogEntry,
  compareVersions,
  nextVersion,
  parseVersion,
  snapshotPath,
  UNRELEASED,
} from "./contract-diff/release.js";
import { CONTRACT_PATH } from "./contract-diff/document.js";

/** Files that state the package's version, each with the edit that sets it. */
const VERSION_FILES: Record<string, (text: string, version: string) => string> = {
  "package.json": (text, v) => text.replace(/^(  "version": )"[^"]*"/m, `$1"${v}"`),
  // The lock file states it twice: at the top and for the root package ("packages" → "").
  "package-lock.json": (text, v) =>
    text
      .replace(/^(  "version": )"[^"]*"/m, `$1"${v}"`)
      .replace(/^(    "": \{\n(?: {6}.*\n)*? {6}"version": )"[^"]*"/m, `$1"${v}"`),
  "src/core/version.ts": (text, v) => text.replace(/(export const VERSION = )"[^"]*"/, `$1"${v}"`),
  // The registry form of the MCP client configuration pins the version `npx -y` fetches: a
  // placeholder until a release has the command, then the newest release (test/house.test.ts).
  "docs/mcp.md": (text, v) =>
    text.replace(/"store-admin-sdk@(?:\d+\.\d+\.\d+[^"]*|<version>)"/g, `"store-admin-sdk@${v}"`),
};

/** The command line of the checks a release runs first, in a shell (see the header). */
export function releaseChecks(skipTests: boolean, env: NodeJS.ProcessEnv = process.env): string {
  return env.STORE_ADMIN_RELEASE_CHECKS ?? (skipTests ? "npm run build && npm run typecheck" : "npm test");
}

/** Runs the checks with their output shown; throws, naming the command, when they fail or leave the work tree changed. */
function runChecks(root: string, command: string, git: (...args: string[]) => string): void {
  console.error(`release: running the project's checks first: ${command}`);
  const result = spawnSync(command, { cwd: root, shell: true, stdio: ["ignore", "inherit", "inherit"] });
  const how =
    result.error !== undefined
      ? result.error.message
      : result.status === null
        ? `stopped by ${result.signal}`
        : `exit ${result.status}`;
  if (result.status !== 0)
    throw new Error(`the checks failed (\`${command}\`: ${how}); nothing was changed. Fix them, then release.`);
  const changed = git("status", "--porcelain").trimEnd();
  if (changed !== "")
    throw new Error(
      `the checks (\`${command}\`) changed the work tree, so what they checked is not what would be released; nothing was released:\n${changed}`,
    );
}

export async function release(
  root: string,
  options: { version?: string | undefined; date?: string | undefined; skipTests?: boolean | undefined },
): Promise<string> {
  const git = (...args: string[]): string => execFileSync("git", args, { cwd: root, encoding: "utf8" });
  if (git("status", "--porcelain").trim() !== "")
    throw new Error(
      "the work tree has uncommitted changes: commit or stash them, so that the release commit holds only the release.",
    );
  const check = await checkRelease(root);
  if (check.problems.length > 0)
    throw new Error(
      `\`npm run release:check\` refuses the record as it stands:\n${check.problems.map((p) => `- ${p}`).join("\n")}`,
    );
  const changelog = readFileSync(join(root, "CHANGELOG.md"), "utf8");
  if ((changelogEntry(changelog, "Unreleased") ?? "").trim() === "")
    throw new Error(`CHANGELOG.md's \`${UNRELEASED}\` section is empty: there is nothing to release.`);

  const least = nextVersion(check.released, check.bump === "none" ? "patch" : check.bump);
  const version = options.version ?? least;
  parseVersion(version);
  if (compareVersions(version, least) < 0)
    throw new Error(
      `${version} is too low: after ${check.released} a ${check.bump} contract change needs at least ${least}.`,
    );
  const date = options.date ?? new Date().toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`--date ${date} is not YYYY-MM-DD.`);
  const tag = `v${version}`;
  if (git("tag", "--list", tag).trim() !== "") throw new Error(`the tag ${tag} exists already.`);
  if (options.skipTests === true)
    console.error(
      "release: --skip-tests: the test suite does not run, so a defect only the tests catch ships in this release.",
    );
  runChecks(root, releaseChecks(options.skipTests === true), git);

  writeFileSync(
    join(root, "CHANGELOG.md"),
    changelog.replace(/^## \[Unreleased\][^\n]*\n/m, `${UNRELEASED}\n\n## [${version}] - ${date}\n`),
  );
  copyFileSync(join(root, CONTRACT_PATH), join(root, snapshotPath(version)));
  const changed = ["CHANGELOG.md", snapshotPath(version)];
  for (const [file, edit] of Object.entries(VERSION_FILES)) {
    if (!existsSync(join(root, file))) continue;
    const before = readFileSync(join(root, file), "utf8");
    const after = edit(before, version);
    if (after === before) throw new Error(`${file}: found no version to set.`);
    writeFileSync(join(root, file), after);
    changed.push(file);
  }
  git("add", "--", ...changed);
  git("commit", "-q", "-m", `Release ${version}`);
  git("tag", "-a", tag, "-m", `store-admin-sdk ${version}`);
  return version;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({
    options: { date: { type: "string" }, "skip-tests": { type: "boolean" } },
    allowPositionals: true,
  });
  release(process.cwd(), { version: positionals[0], date: values.date, skipTests: values["skip-tests"] }).then(
    (version) =>
      console.log(
        `release: ${version} dated, its contract kept as ${snapshotPath(version)}, committed and tagged v${version}. Push the commit and the tag (git push --follow-tags), then publish.`,
      ),
    (error: unknown) => {
      console.error(`release: refused: ${(error as Error).message}`);
      process.exit(1);
    },
  );
}
