/**
 * Release hygiene: which version a contract change needs, and whether the release record
 * (CHANGELOG.md, openapi/released/, package.json) agrees with itself and with the contract.
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

const RELEASED_DIR = "openapi/released";

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

/** The released versions kept in openapi/released/, oldest first. */
export function releasedSnapshots(root: string): string[] {
  return readdirSync(join(root, RELEASED_DIR))
    .map((f) => /^store-admin-(\d+\.\d+\.\d+)\.yaml$/.exec(f)?.[1])
    .filter((v): v is string => v !== undefined)
    .sort(compareVersions);
}

/** The last released snapshot (the highest version in openapi/released/): its path (relative to the repository root) and version. */
export function releasedContract(root: string): { path: string; version: string } {
  const version = releasedSnapshots(root).at(-1);
  if (version === undefined)
    throw new Error(`${RELEASED_DIR}/ holds no store-admin-<version>.yaml: keep the contract of each release there.`);
  return { path: snapshotPath(version), version };
}

export const snapshotPath = (version: string): string => `${RELEASED_DIR}/store-admin-${version}.yaml`;

/** The heading of the entries not yet released; `npm run release` turns it into a dated one. */
export const UNRELEASED = "## [Unreleased]";

/** A `## [...]` heading of CHANGELOG.md: its version (`Unreleased` for that section), its date if any, its line (1-based). */
interface ChangelogHeading {
  version: string;
  date: string | undefined;
  line: number;
  text: string;
}

export function changelogHeadings(changelog: string): ChangelogHeading[] {
  return changelog.split("\n").flatMap((text, i) => {
    const match = /^## \[([^\]]*)\](?:\s+-\s+(\S+))?/.exec(text);
    return match === null ? [] : [{ version: match[1] as string, date: match[2], line: i + 1, text }];
  });
}

/** Whether CHANGELOG.md has a `## [x.y.z]` entry for this version. */
export function hasChangelogEntry(changelog: string, version: string): boolean {
  return changelogEntry(changelog, version) !== undefined;
}

/** The text of the `## [x.y.z]` (or `## [Unreleased]`) entry, up to the next `## ` heading; undefined when there is none. */
export function changelogEntry(changelog: string, version: string): string | undefined {
  const start = new RegExp(`^## \\[${escapeRegExp(version)}\\]`, "m").exec(changelog);
  if (start === null) return undefined;
  const rest = changelog.slice(start.index + start[0].length);
  const next = /^## /m.exec(rest);
  return rest.slice(0, next === null ? undefined : next.index);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The one heading, under `## [Unreleased]` and in each release, for what breaks callers:
 * the SDK's own breaks and the contract's (the `--changelog` draft writes it).
 */
export const BREAKING_HEADING = "### Breaking changes";

/**
 * How a breaking change is named: its field (`data.arn`), or, for a change to a whole call
 * (an operation removed, a body made required), nothing but its operation.
 */
function changeName(change: Pick<Change, "field" | "operation">): string {
  const leaf = leafName(change.field);
  return leaf === "" ? (change.operation ?? "the document") : change.field;
}

/**
 * The list items under an entry's {@link BREAKING_HEADING} that have the draft's form,
 * `- **OPERATION[, OPERATION…]**: text` (continued on indented lines), each with its
 * operations and its whole text. Items elsewhere, and items naming no operation, are not here.
 */
function breakingItems(entry: string): Array<{ operations: string[]; text: string }> {
  const start = entry.split("\n").findIndex((line) => line.trim() === BREAKING_HEADING);
  if (start === -1) return [];
  const lines = entry.split("\n").slice(start + 1);
  const end = lines.findIndex((line) => /^#{1,3} /.test(line));
  const items: string[] = [];
  for (const line of end === -1 ? lines : lines.slice(0, end)) {
    if (line.startsWith("- ")) items.push(line);
    else if (/^\s+\S/.test(line) && items.length > 0) items[items.length - 1] += ` ${line.trim()}`;
  }
  return items.flatMap((text) => {
    const bold = /^- \*\*([^*]+)\*\*:/.exec(text);
    return bold === null ? [] : [{ operations: (bold[1] as string).split(", ").map((op) => op.trim()), text }];
  });
}

/**
 * Does the entry cover this change: an item under {@link BREAKING_HEADING} in the draft's
 * form whose operations include the change's, naming the field by its last name in a code
 * span (`` `arn` ``, `` `data.arn` ``, `` `Dispute.arn` `` all name `data.arn`) unless the
 * change is to the whole call. A mention anywhere else covers nothing.
 */
function namesChange(entry: string, change: Pick<Change, "field" | "operation">): boolean {
  const operation = change.operation ?? "the document";
  const leaf = leafName(change.field);
  const field = new RegExp(`\`[^\`\\n]*(?<![\\w-])${escapeRegExp(leaf)}(?![\\w-])[^\`\\n]*\``);
  return breakingItems(entry).some(
    (item) => item.operations.includes(operation) && (leaf === "" || field.test(item.text)),
  );
}

/** The breaking changes an entry does not cover, one line each, in the form that would cover it. */
export function uncoveredChanges(entry: string, changes: readonly Change[]): string[] {
  const lines = changes
    .filter((c) => c.breaking && !namesChange(entry, c))
    .map(
      (c) =>
        `\`- **${c.operation ?? "the document"}**: …\`${leafName(c.field) === "" ? "" : ` naming \`${changeName(c)}\``} (${c.kind})`,
    );
  return [...new Set(lines)];
}

/**
 * Where the release record disagrees with itself: one released version is a dated
 * `## [x.y.z] - YYYY-MM-DD` heading in CHANGELOG.md, its snapshot in openapi/released/ and
 * (for the newest) package.json's version, all made together by `npm run release`; what is
 * not released yet sits under `## [Unreleased]`, the first heading. Tags are not consulted:
 * a fresh clone in CI may have none. An empty list when all agree; each problem names the
 * version, the file and the line.
 */
export function recordProblems(input: {
  changelog: string;
  snapshots: readonly string[];
  packageVersion: string;
}): string[] {
  const { changelog, snapshots, packageVersion } = input;
  const problems: string[] = [];
  const headings = changelogHeadings(changelog);
  const dated: string[] = [];
  headings.forEach((h, i) => {
    const at = `CHANGELOG.md line ${h.line} (\`${h.text}\`)`;
    if (h.version === "Unreleased") {
      if (i !== 0) problems.push(`${at}: \`${UNRELEASED}\` must be the first entry, above every released version.`);
      if (h.date !== undefined)
        problems.push(`${at}: unreleased entries carry no date; \`npm run release\` dates them.`);
      return;
    }
    if (!/^\d+\.\d+\.\d+$/.test(h.version))
      return void problems.push(`${at}: "${h.version}" is not a plain x.y.z version.`);
    if (h.date === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(h.date)) {
      return void problems.push(
        `${at}: a version heading is a release and needs its date (\`## [${h.version}] - YYYY-MM-DD\`, written by \`npm run release\`); entries not released yet go under \`${UNRELEASED}\`.`,
      );
    }
    if (dated.length > 0 && compareVersions(h.version, dated.at(-1) as string) >= 0)
      problems.push(`${at}: ${h.version} is listed below ${dated.at(-1)}; releases go newest first.`);
    if (dated.includes(h.version)) problems.push(`${at}: ${h.version} has a second entry.`);
    dated.push(h.version);
    if (!snapshots.includes(h.version))
      problems.push(
        `${at}: ${h.version} is dated, so it was released, but ${snapshotPath(h.version)} is missing: a release keeps the contract it shipped.`,
      );
  });
  for (const version of snapshots) {
    if (!dated.includes(version))
      problems.push(
        `${snapshotPath(version)} is a released contract, but CHANGELOG.md has no dated entry \`## [${version}] - YYYY-MM-DD\` for it.`,
      );
  }
  const last = [...dated].sort(compareVersions).at(-1);
  if (last === undefined)
    problems.push(`CHANGELOG.md dates no release: each release is a \`## [x.y.z] - YYYY-MM-DD\` heading.`);
  else if (packageVersion !== last) {
    problems.push(
      `package.json's version is ${packageVersion}, but the last release (dated in CHANGELOG.md, kept in ${RELEASED_DIR}/) is ${last}: the version changes only with \`npm run release\`, which dates the entry and keeps the snapshot.`,
    );
  }
  return problems;
}

/**
 * What the changes since the last release need from `## [Unreleased]`: a section that covers
 * every breaking change (see {@link namesChange}). The version is not checked here: it moves
 * when `npm run release` makes the release, to at least {@link nextVersion}.
 */
export function unreleasedProblems(input: {
  releasedVersion: string;
  bump: Bump;
  changelog: string;
  changes?: readonly Change[];
}): string[] {
  const { releasedVersion, bump, changelog, changes = [] } = input;
  if (bump === "none") return [];
  const entry = changelogEntry(changelog, "Unreleased");
  const list = (lines: string[]): string => lines.map((l) => `\n  - ${l}`).join("");
  const needs = `The contract changed since ${releasedVersion} (a ${bump} change; the release will be at least ${nextVersion(releasedVersion, bump)}).`;
  const draft = `Run \`npm run contract:diff -- --base ${snapshotPath(releasedVersion)} --changelog\` for the report and a draft.`;
  const breaking = uncoveredChanges("", changes);
  if (entry === undefined) {
    return [
      `${needs} CHANGELOG.md has no \`${UNRELEASED}\` section to say so. ${draft}` +
        (breaking.length > 0 ? ` Under \`${BREAKING_HEADING}\` it needs:${list(breaking)}` : ""),
    ];
  }
  const uncovered = uncoveredChanges(entry, changes);
  if (uncovered.length > 0) {
    return [
      `${needs} CHANGELOG.md's \`${UNRELEASED}\` section has no line under \`${BREAKING_HEADING}\` for these breaking changes: each needs a line in the draft's form, ` +
        `its operation in bold and its field in a code span (a mention elsewhere covers nothing). ${draft}${list(uncovered)}`,
    ];
  }
  if (entry.trim() === "") return [`${needs} CHANGELOG.md's \`${UNRELEASED}\` section is empty. ${draft}`];
  return [];
}
