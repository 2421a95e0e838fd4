/**
 * Release hygiene: the version a contract change needs, and the check `npm test` makes
 * that package.json and CHANGELOG.md follow the contract since the last release.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Change } from "../../scripts/contract-diff/compare.js";
import { parseContract } from "../../scripts/contract-diff/document.js";
import { changelogEntry, hasChangelogEntry, nextVersion, releasedContract, releaseProblems, releaseRule } from "../../scripts/contract-diff/release.js";
import { diffContracts } from "../../scripts/contract-diff/report.js";
import { checkRelease } from "../../scripts/release-check.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string): string => readFileSync(`${root}${path}`, "utf8");

describe("version rules", () => {
  test.each([
    ["0.1.0", "major", "0.2.0"],
    ["0.1.0", "minor", "0.1.1"],
    ["0.1.0", "patch", "0.1.1"],
    ["0.1.0", "none", "0.1.0"],
    ["1.4.2", "major", "2.0.0"],
    ["1.4.2", "minor", "1.5.0"],
    ["1.4.2", "patch", "1.4.3"],
  ] as const)("after %s a %s change needs %s", (released, bump, next) => {
    expect(nextVersion(released, bump)).toBe(next);
  });

  const changelog = "# Changelog\n\n## [0.2.0] - 2026-11-23\n\n### Breaking changes\n\n## [0.1.1] - 2026-11-20\n\n## [0.1.0] - 2026-11-01\n";

  test("a breaking contract change released as a patch is refused, naming the version it needs", () => {
    const problems = releaseProblems({ releasedVersion: "0.1.0", bump: "major", packageVersion: "0.1.1", changelog });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("needs a major release, so package.json's version must be at least 0.2.0 (it is 0.1.1)");
  });

  test("a breaking change with the version unchanged is refused", () => {
    expect(releaseProblems({ releasedVersion: "0.1.0", bump: "major", packageVersion: "0.1.0", changelog })).toHaveLength(1);
  });

  test("a version that moved far enough, with its changelog entry, passes", () => {
    expect(releaseProblems({ releasedVersion: "0.1.0", bump: "major", packageVersion: "0.2.0", changelog })).toEqual([]);
    expect(releaseProblems({ releasedVersion: "0.1.0", bump: "minor", packageVersion: "0.1.1", changelog })).toEqual([]);
  });

  test("a version without a changelog entry is refused", () => {
    const problems = releaseProblems({ releasedVersion: "0.1.0", bump: "major", packageVersion: "0.3.0", changelog });
    expect(problems).toEqual(['CHANGELOG.md has no entry "## [0.3.0]" for package.json\'s version.']);
  });

  test("a version older than the last release is refused", () => {
    expect(releaseProblems({ releasedVersion: "0.2.0", bump: "none", packageVersion: "0.1.1", changelog })[0]).toContain("older than the last release");
  });

  test("the rule the report and the changelog state: on 0.x a breaking change moves the minor number, anything else the patch number", () => {
    expect(releaseRule("0.2.0", "major")).toContain("After 0.2.0 that is 0.3.0: while the version is 0.x, npm's caret range `^0.2.0` takes every 0.2.x automatically");
    expect(releaseRule("0.2.0", "minor")).toMatch(/^After 0\.2\.0 that is 0\.2\.1: .*a minor or patch change the patch number\.$/);
    expect(releaseRule("1.4.2", "minor")).toBe("After 1.4.2 that is 1.5.0.");
  });

  test("a changelog entry is a `## [x.y.z]` heading, not a mention", () => {
    expect(hasChangelogEntry("see [0.2.0] below\n", "0.2.0")).toBe(false);
    expect(hasChangelogEntry("## [0.2.0] - 2026-11-23\n", "0.2.0")).toBe(true);
    expect(hasChangelogEntry("## [0.2.0] - 2026-11-23\n", "0.2.1")).toBe(false);
  });
});

describe("this repository's release", () => {
  test("the last released contract is 0.3.0's, kept beside 0.2.0's and 0.1.0's", () => {
    expect(releasedContract(root)).toEqual({ path: "openapi/released/store-admin-0.3.0.yaml", version: "0.3.0" });
    expect(read("openapi/released/store-admin-0.1.0.yaml")).toContain("openapi:");
  });

  test("package.json's version and CHANGELOG.md follow the contract's changes since the last released contract (what `npm run release:check` checks)", async () => {
    const check = await checkRelease(root);
    expect(check.problems, check.problems.join("\n")).toEqual([]);
    expect(check.released).toBe("0.3.0");
  }, 300_000);
});

/**
 * The gate, checked by mutating what it checks: a copy of the repository's release files
 * (package.json, CHANGELOG.md, the contract and its released snapshots) in a temporary
 * folder, as they were right after the 0.2.0 release (its snapshot as the working contract,
 * version 0.2.0, no changelog entry above 0.2.0's), then `Dispute.arn` removed.
 */
describe("release:check on a mutated repository", () => {
  const dir = mkdtempSync(join(tmpdir(), "release-check-"));
  const releasedContract = read("openapi/released/store-admin-0.2.0.yaml");
  const withoutArn = releasedContract.replace(/^ {8}arn: .*\n/gm, "");
  let changes: Change[] = [];
  const packageJson = (version: string): string => read("package.json").replace(/"version": "[^"]+"/, `"version": "${version}"`);
  /** CHANGELOG.md as it was at the 0.2.0 release: its preface, then 0.2.0's entry and older. */
  const releasedChangelog = ((text: string) => text.slice(0, text.indexOf("\n## [") + 1) + text.slice(text.indexOf("## [0.2.0]")))(read("CHANGELOG.md"));
  const entry = (version: string, text: string): string => releasedChangelog.replace("## [0.2.0]", `## [${version}] - 2026-12-01\n\n${text}\n\n## [0.2.0]`);

  beforeAll(async () => {
    mkdirSync(join(dir, "openapi"));
    cpSync(join(root, "openapi/released"), join(dir, "openapi/released"), { recursive: true });
    writeFileSync(join(dir, "openapi/store-admin.yaml"), withoutArn);
    writeFileSync(join(dir, "package.json"), packageJson("0.2.0"));
    writeFileSync(join(dir, "CHANGELOG.md"), releasedChangelog);
    const released = parseContract(read("openapi/released/store-admin-0.2.0.yaml"), "0.2.0");
    ({ changes } = await diffContracts(released, parseContract(withoutArn, "head")));
  }, 300_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("the mutation removed the field and its examples, nothing else", () => {
    expect(releasedContract.length - withoutArn.length).toBeGreaterThan(0);
    expect(changes.filter((c) => c.breaking).map((c) => [c.operation, c.kind, c.field])).toEqual([
      ["GET /disputes/{id}/", "field-removed", "data.arn"],
      ["POST /disputes/{id}/resolve/", "field-removed", "data.arn"],
    ]);
  });

  test("the field removed without a version bump or changelog entry: `npm run release:check` fails, naming the field", () => {
    const result = spawnSync(join(root, "node_modules/.bin/tsx"), [join(root, "scripts/release-check.ts")], { cwd: dir, encoding: "utf8", timeout: 240_000 });
    expect(result.status, result.stdout + result.stderr).toBe(1);
    expect(result.stderr).toContain("release:check: refused (last release 0.2.0, package.json 0.2.0, contract change since: major).");
    expect(result.stderr).toContain("package.json's version must be at least 0.3.0 (it is 0.2.0)");
    expect(result.stderr).toContain("`data.arn` (GET /disputes/{id}/: field-removed)");
  }, 300_000);

  const problems = (version: string, changelog: string): string[] =>
    releaseProblems({ releasedVersion: "0.2.0", bump: "major", packageVersion: version, changelog, changes });

  test("the version bumped without a changelog entry: refused, naming the missing entry and the field it must name", async () => {
    writeFileSync(join(dir, "package.json"), packageJson("0.3.0"));
    const check = await checkRelease(dir);
    expect(check.problems).toHaveLength(1);
    expect(check.problems[0]).toContain('CHANGELOG.md has no entry "## [0.3.0]" for package.json\'s version. It must name each breaking change:');
    expect(check.problems[0]).toContain("`data.arn` (POST /disputes/{id}/resolve/: field-removed)");
  }, 300_000);

  test("an entry that does not name the removed field is refused, naming it; one that names it passes", () => {
    const silent = problems("0.3.0", entry("0.3.0", "### Breaking changes\n\n- Disputes changed."));
    expect(silent).toHaveLength(1);
    expect(silent[0]).toContain('CHANGELOG.md\'s entry "## [0.3.0]" does not name these breaking changes');
    expect(silent[0]).toContain("`data.arn` (GET /disputes/{id}/: field-removed)");
    // Another field's name in a code span is not this one's.
    expect(problems("0.3.0", entry("0.3.0", "- `data.arns` and `barn` changed."))).toHaveLength(1);
    for (const named of ["- Removed `data.arn`.", "- Removed `Dispute.arn`.", "- `arn` is gone."]) {
      expect(problems("0.3.0", entry("0.3.0", named)), named).toEqual([]);
    }
  });

  test("a bump too small for the change is refused even with an entry", () => {
    const result = problems("0.2.1", entry("0.2.1", "- Removed `data.arn`."));
    expect(result).toHaveLength(1);
    expect(result[0]).toContain("needs a major release, so package.json's version must be at least 0.3.0 (it is 0.2.1)");
  });

  test("the entry checked is the one for package.json's version, up to the next heading", () => {
    const changelog = entry("0.3.0", "- Removed `data.arn`.");
    expect(changelogEntry(changelog, "0.3.0")).toContain("`data.arn`");
    expect(changelogEntry(changelog, "0.3.0")).not.toContain("## [0.2.0]");
    expect(changelogEntry(changelog, "0.4.0")).toBeUndefined();
  });
});
