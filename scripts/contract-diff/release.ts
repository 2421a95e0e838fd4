/**
 * Release hygiene: which version a contract change needs, and whether package.json and
 * CHANGELOG.md say so.
 *
 * The last released contract is kept in the repository as
 * `openapi/released/store-admin-<version>.yaml` (one file), so the check works from a fresh
 * clone, where tags may be missing.
 *
 * Versions follow semver, with the 0.x reading npm's caret ranges give it: `^0.1.0` means
 * `>=0.1.0 <0.2.0`, so while the version is 0.x a breaking ("major") change moves the
 * minor number (0.1.0 → 0.2.0), and an additive ("minor") or a "patch" change moves the
 * patch number (0.1.0 → 0.1.1). From 1.0.0 on, each moves its own number.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Bump } from "./kinds.js";

export const RELEASED_DIR = "openapi/released";

type Version = [number, number, number];

export function parseVersion(text: string): Version {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(text.trim());
  if (match === null) throw new Error(`"${text}" is not a plain x.y.z version.`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

export function compareVersions(a: string, b: string): number {
  const [x, y] = [parseVersion(a), parseVersion(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return 0;
}

/** The smallest version after `released` that a change of size `bump` allows. */
export function nextVersion(released: string, bump: Bump): string {
  const [major, minor, patch] = parseVersion(released);
  if (bump === "none") return released;
  if (major === 0) return bump === "major" ? `0.${minor + 1}.0` : `0.${minor}.${patch + 1}`;
  if (bump === "major") return `${major + 1}.0.0`;
  if (bump === "minor") return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** The released snapshot: its path (relative to the repository root) and version. */
export function releasedContract(root: string): { path: string; version: string } {
  const dir = join(root, RELEASED_DIR);
  const files = readdirSync(dir).filter((f) => /^store-admin-\d+\.\d+\.\d+\.yaml$/.test(f));
  if (files.length !== 1) throw new Error(`${RELEASED_DIR}/ must hold exactly one store-admin-<version>.yaml (the last released contract); found ${files.length}.`);
  const file = files[0] as string;
  return { path: `${RELEASED_DIR}/${file}`, version: file.replace(/^store-admin-|\.yaml$/g, "") };
}

/** Whether CHANGELOG.md has a `## [x.y.z]` entry for this version. */
export function hasChangelogEntry(changelog: string, version: string): boolean {
  const escaped = version.replace(/\./g, "\\.");
  return new RegExp(`^## \\[${escaped}\\]`, "m").test(changelog);
}

/**
 * What is wrong with a release, given the contract's change since the last release: an
 * empty list when package.json's version moved at least as far as `bump` requires and
 * CHANGELOG.md has its entry.
 */
export function releaseProblems(input: { releasedVersion: string; bump: Bump; packageVersion: string; changelog: string }): string[] {
  const { releasedVersion, bump, packageVersion, changelog } = input;
  const problems: string[] = [];
  const required = nextVersion(releasedVersion, bump);
  if (compareVersions(packageVersion, releasedVersion) < 0) {
    problems.push(`package.json's version ${packageVersion} is older than the last release, ${releasedVersion}.`);
  } else if (compareVersions(packageVersion, required) < 0) {
    problems.push(
      `The contract changed since ${releasedVersion} in a way that needs a ${bump} release, so package.json's version must be at least ${required} (it is ${packageVersion}). ` +
        `Run \`npm run contract:diff -- --base ${RELEASED_DIR}/store-admin-${releasedVersion}.yaml --changelog\` for the report and a draft changelog entry.`,
    );
  }
  if (!hasChangelogEntry(changelog, packageVersion)) {
    problems.push(`CHANGELOG.md has no entry "## [${packageVersion}]" for package.json's version.`);
  }
  return problems;
}
