/**
 * Release hygiene: the version a contract change needs, and the check `npm test` makes
 * that package.json and CHANGELOG.md follow the contract since the last release.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { parseContract } from "../../scripts/contract-diff/document.js";
import { hasChangelogEntry, nextVersion, releasedContract, releaseProblems } from "../../scripts/contract-diff/release.js";
import { diffContracts } from "../../scripts/contract-diff/report.js";

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

  test("a changelog entry is a `## [x.y.z]` heading, not a mention", () => {
    expect(hasChangelogEntry("see [0.2.0] below\n", "0.2.0")).toBe(false);
    expect(hasChangelogEntry("## [0.2.0] - 2026-11-23\n", "0.2.0")).toBe(true);
    expect(hasChangelogEntry("## [0.2.0] - 2026-11-23\n", "0.2.1")).toBe(false);
  });
});

describe("this repository's release", () => {
  test("package.json's version and CHANGELOG.md follow the contract's changes since the last released contract", async () => {
    const released = releasedContract(root);
    const base = parseContract(read(released.path), released.path);
    const head = parseContract(read("openapi/store-admin.yaml"), "openapi/store-admin.yaml");
    const { bump } = await diffContracts(base, head);
    const packageVersion = (JSON.parse(read("package.json")) as { version: string }).version;
    const problems = releaseProblems({ releasedVersion: released.version, bump, packageVersion, changelog: read("CHANGELOG.md") });
    expect(problems, problems.join("\n")).toEqual([]);
  }, 300_000);
});
