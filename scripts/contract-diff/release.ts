/**
 * Release hygiene: which version a contract change needs, and whether package.json and
 * CHANGELOG.md say so.
 *
 * Each released contract is kept in the repository as
 * `openapi/released/store-admin-<version>.yaml`, so the check works from a fresh clone,
 * where tags may be missing; the check compares with the newest of them, the last release.
 *
 * Versions follow semver, with the 0.x reading npm's caret ranges give it: `^0.1.0` means
 * `>=0.1.0 <0.2.0`, so while the version is 0.x a breaking ("major") change moves the
 * minor number (0.1.0 → 0.2.0), and an additive ("minor") or a "patch" change moves the
 * patch number (0.1.0 → 0.1.1). From 1.0.0 on, each moves its own number.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { leafName, type Change } from "./compare.js";
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

/**
 * The version a change of size `bump` needs after `released`, and why, in one sentence
 * (the report and the changelog say it, so a `[0.2.1]` heading after "minor" is explained).
 */
export function releaseRule(released: string, bump: Bump): string {
  if (bump === "none") return `${released} stays: the contract did not change.`;
  const next = nextVersion(released, bump);
  const [major, minor] = parseVersion(released);
  if (major !== 0) return `After ${released} that is ${next}.`;
  return (
    `After ${released} that is ${next}: while the version is 0.x, npm's caret range \`^${released}\` takes every 0.${minor}.x automatically, ` +
    `so a breaking (major) change moves the minor number (0.${minor + 1}.0) and a minor or patch change the patch number.`
  );
}

/** The last released snapshot (the highest version in openapi/released/): its path (relative to the repository root) and version. */
export function releasedContract(root: string): { path: string; version: string } {
  const dir = join(root, RELEASED_DIR);
  const versions = readdirSync(dir)
    .map((f) => /^store-admin-(\d+\.\d+\.\d+)\.yaml$/.exec(f)?.[1])
    .filter((v): v is string => v !== undefined)
    .sort(compareVersions);
  const version = versions.at(-1);
  if (version === undefined) throw new Error(`${RELEASED_DIR}/ holds no store-admin-<version>.yaml: keep the contract of each release there.`);
  return { path: `${RELEASED_DIR}/store-admin-${version}.yaml`, version };
}

/** Whether CHANGELOG.md has a `## [x.y.z]` entry for this version. */
export function hasChangelogEntry(changelog: string, version: string): boolean {
  return changelogEntry(changelog, version) !== undefined;
}

/** The text of the `## [x.y.z]` entry, up to the next `## ` heading; undefined when there is none. */
export function changelogEntry(changelog: string, version: string): string | undefined {
  const escaped = version.replace(/\./g, "\\.");
  const start = new RegExp(`^## \\[${escaped}\\]`, "m").exec(changelog);
  if (start === null) return undefined;
  const rest = changelog.slice(start.index + start[0].length);
  const next = /^## /m.exec(rest);
  return rest.slice(0, next === null ? undefined : next.index);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * How a breaking change is named in a changelog entry: its field (`data.arn`), by its
 * last name in a code span (`` `arn` ``, `` `data.arn` ``, `` `Dispute.arn` `` all name
 * it), or, for a change to a whole call (an operation removed, a body made required), its
 * operation (`GET /disputes/{id}/`).
 */
export function changeName(change: Pick<Change, "field" | "operation">): string {
  const leaf = leafName(change.field);
  return leaf === "" ? (change.operation ?? "the document") : change.field;
}


/** Does the entry name this change (see {@link changeName})? */
export function namesChange(entry: string, change: Pick<Change, "field" | "operation">): boolean {
  const leaf = leafName(change.field);
  if (leaf === "") return change.operation !== null && entry.includes(change.operation);
  // A code span holding the name as a whole segment: `arn`, `data.arn`, `Dispute.arn`, `data.results[].arn`.
  return new RegExp(`\`[^\`\\n]*(?<![\\w-])${escapeRegExp(leaf)}(?![\\w-])[^\`\\n]*\``).test(entry);
}

/** The breaking changes an entry does not name, one line each (`data.arn` in GET /disputes/{id}/: field-removed). */
export function uncoveredChanges(entry: string, changes: readonly Change[]): string[] {
  const lines = changes.filter((c) => c.breaking && !namesChange(entry, c)).map((c) => `\`${changeName(c)}\` (${c.operation ?? "no operation"}: ${c.kind})`);
  return [...new Set(lines)];
}

/**
 * What is wrong with a release, given the contract's change since the last release: an
 * empty list when package.json's version moved at least as far as `bump` requires, and,
 * when it moved, CHANGELOG.md has its entry and the entry names every breaking change.
 * Each refusal names the changes it is about.
 */
export function releaseProblems(input: { releasedVersion: string; bump: Bump; packageVersion: string; changelog: string; changes?: readonly Change[] }): string[] {
  const { releasedVersion, bump, packageVersion, changelog, changes = [] } = input;
  const problems: string[] = [];
  const required = nextVersion(releasedVersion, bump);
  const breaking = [...new Set(changes.filter((c) => c.breaking).map((c) => `\`${changeName(c)}\` (${c.operation ?? "no operation"}: ${c.kind})`))];
  const list = (lines: string[]): string => lines.map((l) => `\n  - ${l}`).join("");
  if (compareVersions(packageVersion, releasedVersion) < 0) {
    problems.push(`package.json's version ${packageVersion} is older than the last release, ${releasedVersion}.`);
  } else if (compareVersions(packageVersion, required) < 0) {
    problems.push(
      `The contract changed since ${releasedVersion} in a way that needs a ${bump} release, so package.json's version must be at least ${required} (it is ${packageVersion}). ${releaseRule(releasedVersion, bump)} ` +
        `Run \`npm run contract:diff -- --base ${RELEASED_DIR}/store-admin-${releasedVersion}.yaml --changelog\` for the report and a draft changelog entry.` +
        (breaking.length > 0 ? ` The breaking changes:${list(breaking)}` : ""),
    );
  }
  const entry = changelogEntry(changelog, packageVersion);
  if (entry === undefined) {
    problems.push(`CHANGELOG.md has no entry "## [${packageVersion}]" for package.json's version.` + (breaking.length > 0 ? ` It must name each breaking change:${list(breaking)}` : ""));
  } else if (compareVersions(packageVersion, releasedVersion) > 0) {
    const uncovered = uncoveredChanges(entry, changes);
    if (uncovered.length > 0) {
      problems.push(`CHANGELOG.md's entry "## [${packageVersion}]" does not name these breaking changes (name each field in a code span, e.g. \`data.arn\`, or the operation):${list(uncovered)}`);
    }
  }
  return problems;
}
