/**
 * Release hygiene: the version a contract change needs; the check `npm test` makes that the
 * release record (dated entries, snapshots, package.json) agrees with itself and that
 * `## [Unreleased]` names the contract's breaking changes since the last release; and
 * `npm run release`, which makes a release in one step.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Change } from "../../scripts/contract-diff/compare.js";
import { parseContract } from "../../scripts/contract-diff/document.js";
import {
  changelogEntry,
  changelogHeadings,
  hasChangelogEntry,
  nextVersion,
  recordProblems,
  releasedContract,
  releaseRule,
  unreleasedProblems,
} from "../../scripts/contract-diff/release.js";
import { diffContracts } from "../../scripts/contract-diff/report.js";
import { checkRelease } from "../../scripts/release-check.js";
import { releaseChecks } from "../../scripts/release.js";

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

  test("the rule the report and the changelog state: on 0.x a breaking change moves the minor number, anything else the patch number", () => {
    expect(releaseRule("0.2.0", "major")).toContain(
      "After 0.2.0 that is 0.3.0: while the version is 0.x, npm's caret range `^0.2.0` takes every 0.2.x automatically",
    );
    expect(releaseRule("0.2.0", "minor")).toMatch(
      /^After 0\.2\.0 that is 0\.2\.1: .*a minor or patch change the patch number\.$/,
    );
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

const heading = (version: string, date = "2026-11-01"): string => `## [${version}] - ${date}`;
const record = (body: string): string => `# Changelog\n\nPreface.\n\n${body}`;

describe("the release record agrees with itself (recordProblems)", () => {
  const changelog = record(
    `## [Unreleased]\n\n- A change.\n\n${heading("0.2.0")}\n\n- b\n\n${heading("0.1.0")}\n\n- a\n`,
  );

  test("dated versions, their snapshots and package.json's version agree: no problem", () => {
    expect(recordProblems({ changelog, snapshots: ["0.1.0", "0.2.0"], packageVersion: "0.2.0" })).toEqual([]);
  });

  test("a dated version without its snapshot is refused, naming the line and the missing file", () => {
    expect(recordProblems({ changelog, snapshots: ["0.1.0"], packageVersion: "0.2.0" })).toEqual([
      "CHANGELOG.md line 9 (`## [0.2.0] - 2026-11-01`): 0.2.0 is dated, so it was released, but openapi/released/store-admin-0.2.0.yaml is missing: a release keeps the contract it shipped.",
    ]);
  });

  test("a snapshot without a dated entry is refused", () => {
    expect(
      recordProblems({ changelog, snapshots: ["0.1.0", "0.2.0", "0.3.0"], packageVersion: "0.2.0" }),
    ).toContainEqual(
      "openapi/released/store-admin-0.3.0.yaml is a released contract, but CHANGELOG.md has no dated entry `## [0.3.0] - YYYY-MM-DD` for it.",
    );
  });

  test("package.json's version other than the last release is refused, either way", () => {
    for (const version of ["0.3.0", "0.1.0"]) {
      const problems = recordProblems({ changelog, snapshots: ["0.1.0", "0.2.0"], packageVersion: version });
      expect(problems).toEqual([
        expect.stringContaining(
          `package.json's version is ${version}, but the last release (dated in CHANGELOG.md, kept in openapi/released/) is 0.2.0`,
        ),
      ]);
    }
  });

  test("a version heading without a date is neither released nor unreleased: refused", () => {
    const undated = record(`## [0.3.0]\n\n- c\n\n${heading("0.2.0")}\n\n${heading("0.1.0")}\n`);
    expect(recordProblems({ changelog: undated, snapshots: ["0.1.0", "0.2.0"], packageVersion: "0.2.0" })).toEqual([
      expect.stringMatching(
        /^CHANGELOG\.md line 5 \(`## \[0\.3\.0\]`\): a version heading is a release and needs its date .*entries not released yet go under `## \[Unreleased\]`\.$/,
      ),
    ]);
  });

  test("[Unreleased] below a release, or dated, is refused", () => {
    const below = record(`${heading("0.2.0")}\n\n## [Unreleased]\n\n${heading("0.1.0")}\n`);
    expect(recordProblems({ changelog: below, snapshots: ["0.1.0", "0.2.0"], packageVersion: "0.2.0" })).toEqual([
      expect.stringContaining("`## [Unreleased]` must be the first entry"),
    ]);
    const dated = record(`## [Unreleased] - 2026-11-02\n\n${heading("0.2.0")}\n\n${heading("0.1.0")}\n`);
    expect(recordProblems({ changelog: dated, snapshots: ["0.1.0", "0.2.0"], packageVersion: "0.2.0" })).toEqual([
      expect.stringContaining("unreleased entries carry no date"),
    ]);
  });

  test("releases out of order are refused", () => {
    const order = record(`${heading("0.1.0")}\n\n${heading("0.2.0")}\n`);
    expect(recordProblems({ changelog: order, snapshots: ["0.1.0", "0.2.0"], packageVersion: "0.2.0" })).toEqual([
      expect.stringContaining("0.2.0 is listed below 0.1.0; releases go newest first."),
    ]);
  });

  test("this repository's CHANGELOG.md: 0.3.0 was dated by 2a5c4fc, and its snapshot is the contract of that commit", () => {
    const dated = execFileSync("git", ["log", "--format=%H", "-S", "## [0.3.0] - 2026-11-23", "--", "CHANGELOG.md"], {
      cwd: root,
      encoding: "utf8",
    })
      .trim()
      .split("\n")
      .at(-1);
    if (dated === undefined || dated === "")
      throw new Error("the history does not reach the commit that dated 0.3.0 (a shallow clone?)");
    expect(execFileSync("git", ["show", `${dated}:openapi/store-admin.yaml`], { cwd: root, encoding: "utf8" })).toBe(
      read("openapi/released/store-admin-0.3.0.yaml"),
    );
    expect(changelogHeadings(read("CHANGELOG.md")).map((h) => `${h.version} ${h.date ?? ""}`.trim())).toEqual([
      "Unreleased",
      "0.3.0 2026-11-23",
      "0.2.0 2026-11-23",
      "0.1.0 2026-11-23",
    ]);
  });
});

/**
 * The gate, checked by mutating what it checks: a copy of the repository's release files
 * (package.json, CHANGELOG.md, the contract and its released snapshots up to 0.2.0) in a
 * temporary folder, as they were right after the 0.2.0 release (its snapshot as the working
 * contract, version 0.2.0, an empty `## [Unreleased]` above 0.2.0's entry), then
 * `Dispute.arn` removed.
 */
describe("release:check on a mutated repository", () => {
  const dir = mkdtempSync(join(tmpdir(), "release-check-"));
  const releasedContract = read("openapi/released/store-admin-0.2.0.yaml");
  const withoutArn = releasedContract.replace(/^ {8}arn: .*\n/gm, "");
  let changes: Change[] = [];
  const packageJson = (version: string): string =>
    read("package.json").replace(/"version": "[^"]+"/, `"version": "${version}"`);
  /** CHANGELOG.md as it was at the 0.2.0 release: its preface, an empty [Unreleased], then 0.2.0's entry and older. */
  const releasedChangelog = ((text: string) =>
    text.slice(0, text.indexOf("\n## [") + 1) + "## [Unreleased]\n\n" + text.slice(text.indexOf("## [0.2.0]")))(
    read("CHANGELOG.md"),
  );
  const unreleased = (text: string): string =>
    releasedChangelog.replace("## [Unreleased]\n", `## [Unreleased]\n\n${text}\n`);

  beforeAll(async () => {
    mkdirSync(join(dir, "openapi/released"), { recursive: true });
    for (const v of ["0.1.0", "0.2.0"])
      cpSync(join(root, `openapi/released/store-admin-${v}.yaml`), join(dir, `openapi/released/store-admin-${v}.yaml`));
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

  test("the field removed and [Unreleased] silent: `npm run release:check` fails, naming the field and the release it will need", () => {
    const result = spawnSync(join(root, "node_modules/.bin/tsx"), [join(root, "scripts/release-check.ts")], {
      cwd: dir,
      encoding: "utf8",
      timeout: 240_000,
    });
    expect(result.status, result.stdout + result.stderr).toBe(1);
    expect(result.stderr).toContain(
      "release:check: refused (last release 0.2.0, package.json 0.2.0, contract change since: major).",
    );
    expect(result.stderr).toContain(
      "The contract changed since 0.2.0 (a major change; the release will be at least 0.3.0).",
    );
    expect(result.stderr).toContain("`- **GET /disputes/{id}/**: …` naming `data.arn` (field-removed)");
  }, 300_000);

  const problems = (changelog: string): string[] =>
    unreleasedProblems({ releasedVersion: "0.2.0", bump: "major", changelog, changes });

  test("no [Unreleased] section at all: refused, naming the fields it must name", () => {
    const none = problems(releasedChangelog.replace("## [Unreleased]\n\n", ""));
    expect(none).toHaveLength(1);
    expect(none[0]).toContain("CHANGELOG.md has no `## [Unreleased]` section to say so.");
    expect(none[0]).toContain("Under `### Breaking changes` it needs:");
    expect(none[0]).toContain("`- **POST /disputes/{id}/resolve/**: …` naming `data.arn` (field-removed)");
  });

  /** The line the `--changelog` draft writes for this removal, wrapped as CHANGELOG.md wraps. */
  const covering =
    "### Breaking changes\n\n- **GET /disputes/{id}/, POST /disputes/{id}/resolve/**: `data.arn` was removed.\n  *What to change:* Stop reading `data.arn`.";

  test("a break is covered only by a line in the draft's form under `### Breaking changes`: its operation in bold, its field in a code span", () => {
    expect(problems(unreleased(covering))).toEqual([]);
    // Each operation on a line of its own, and `Dispute.arn` or `arn` for the field, cover it too.
    expect(
      problems(
        unreleased(
          "### Breaking changes\n\n- **GET /disputes/{id}/**: `Dispute.arn` is gone.\n- **POST /disputes/{id}/resolve/**: `arn` is gone.",
        ),
      ),
    ).toEqual([]);
  });

  test("a mention anywhere else, or a line that names no operation, covers nothing; the refusal names each line missing", () => {
    const refused = (text: string): string => {
      const found = problems(unreleased(text));
      expect(found, text).toHaveLength(1);
      return found[0] as string;
    };
    // An unrelated maintainers' note that happens to quote the field, under another heading.
    const elsewhere = refused("### Changed\n\n- The guide's example reads `data.arn` from a dispute.");
    expect(elsewhere).toContain("has no line under `### Breaking changes` for these breaking changes");
    expect(elsewhere).toContain("`- **GET /disputes/{id}/**: …` naming `data.arn` (field-removed)");
    expect(elsewhere).toContain("`- **POST /disputes/{id}/resolve/**: …` naming `data.arn` (field-removed)");
    // Under the heading, but naming no operation.
    refused("### Breaking changes\n\n- Removed `data.arn`.");
    // The draft's form for one operation only: the other is still missing, and only it is named.
    const one = refused("### Breaking changes\n\n- **GET /disputes/{id}/**: `data.arn` was removed.");
    expect(one).toContain("`- **POST /disputes/{id}/resolve/**: …` naming `data.arn` (field-removed)");
    expect(one).not.toContain("`- **GET /disputes/{id}/**");
    // The operations in bold, but another field; and the right line under another heading.
    refused(
      "### Breaking changes\n\n- **GET /disputes/{id}/, POST /disputes/{id}/resolve/**: `data.arns` and `barn` changed.",
    );
    refused(covering.replace("### Breaking changes", "### Contract changes since 0.2.0"));
    // A line after the section ends (the next heading) is not in it.
    refused(`### Breaking changes\n\n- Something else.\n\n### Changed\n\n${covering.slice(covering.indexOf("- **"))}`);
  });

  test("the version bumped by hand, without a release: refused", async () => {
    writeFileSync(join(dir, "package.json"), packageJson("0.3.0"));
    writeFileSync(join(dir, "CHANGELOG.md"), unreleased(covering));
    const check = await checkRelease(dir);
    expect(check.problems).toEqual([
      expect.stringContaining(
        "package.json's version is 0.3.0, but the last release (dated in CHANGELOG.md, kept in openapi/released/) is 0.2.0",
      ),
    ]);
  }, 300_000);

  test("the entry checked is [Unreleased], up to the next heading", () => {
    const changelog = unreleased(covering);
    expect(changelogEntry(changelog, "Unreleased")).toContain("`data.arn`");
    expect(changelogEntry(changelog, "Unreleased")).not.toContain("## [0.2.0]");
    expect(changelogEntry(changelog, "0.4.0")).toBeUndefined();
  });
});

/**
 * `npm run release` in a temporary git repository holding a copy of the release files, the
 * scripts and src/core/version.ts, at 0.2.0 with `Dispute.arn` removed and named under
 * [Unreleased]: one command dates the entry, keeps the snapshot, moves every stated version
 * and tags the commit, and release:check then passes.
 */
describe("npm run release", () => {
  const dir = mkdtempSync(join(tmpdir(), "release-"));
  const git = (...args: string[]): string => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
  /** The checks a release runs first, injected: a command that records its run outside the repository, then exits with `exit`. */
  const checksLog = join(mkdtempSync(join(tmpdir(), "release-checks-")), "ran");
  const checks = (exit = 0, extra = ""): string => `echo ran >> '${checksLog}'${extra} && exit ${exit}`;
  const checksRan = (): number =>
    existsSync(checksLog) ? readFileSync(checksLog, "utf8").split("\n").filter(Boolean).length : 0;
  const npmRelease = (args: string[], checkCommand = checks()) =>
    spawnSync("npm", ["run", "-s", "release", "--", ...args], {
      cwd: dir,
      encoding: "utf8",
      timeout: 240_000,
      env: { ...process.env, STORE_ADMIN_RELEASE_CHECKS: checkCommand },
    });
  const unchanged = (): void => {
    expect(git("status", "--porcelain")).toBe("");
    expect(git("tag", "--list")).toBe("");
    expect(git("log", "--format=%s")).toBe("0.2.0, then Dispute.arn removed\n");
  };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeAll(() => {
    mkdirSync(join(dir, "openapi/released"), { recursive: true });
    // The scripts read the contract through the generators' model, which takes its words from src/.
    cpSync(join(root, "src"), join(dir, "src"), { recursive: true });
    for (const v of ["0.1.0", "0.2.0"])
      cpSync(join(root, `openapi/released/store-admin-${v}.yaml`), join(dir, `openapi/released/store-admin-${v}.yaml`));
    writeFileSync(
      join(dir, "openapi/store-admin.yaml"),
      read("openapi/released/store-admin-0.2.0.yaml").replace(/^ {8}arn: .*\n/gm, ""),
    );
    cpSync(join(root, "scripts"), join(dir, "scripts"), { recursive: true });
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
    writeFileSync(join(dir, ".gitignore"), "node_modules\n");
    const at020 = (text: string): string => text.replaceAll('"0.3.0"', '"0.2.0"');
    writeFileSync(join(dir, "package.json"), at020(read("package.json")));
    writeFileSync(join(dir, "package-lock.json"), at020(read("package-lock.json")));
    writeFileSync(join(dir, "src/core/version.ts"), at020(read("src/core/version.ts")));
    mkdirSync(join(dir, "docs"));
    writeFileSync(join(dir, "docs/mcp.md"), read("docs/mcp.md"));
    const changelog = read("CHANGELOG.md");
    writeFileSync(
      join(dir, "CHANGELOG.md"),
      changelog.slice(0, changelog.indexOf("\n## [") + 1) +
        "## [Unreleased]\n\n### Breaking changes\n\n- **GET /disputes/{id}/, POST /disputes/{id}/resolve/**: `data.arn` was removed.\n\n" +
        changelog.slice(changelog.indexOf("## [0.2.0]")),
    );
    git("init", "-q");
    git("config", "user.email", "test@example.org");
    git("config", "user.name", "test");
    git("add", ".");
    git("commit", "-qm", "0.2.0, then Dispute.arn removed");
  });

  test("a version below what the contract's change needs is refused, and nothing changes", () => {
    const result = npmRelease(["0.2.1"]);
    expect(result.status, result.stdout + result.stderr).toBe(1);
    expect(result.stderr).toContain(
      "release: refused: 0.2.1 is too low: after 0.2.0 a major contract change needs at least 0.3.0.",
    );
    unchanged();
  }, 300_000);

  test("the checks a release runs: the whole of `npm test`, or only the build and the types with --skip-tests", () => {
    expect(releaseChecks(false, {})).toBe("npm test");
    expect(releaseChecks(true, {})).toBe("npm run build && npm run typecheck");
    // `npm test` is the README's whole suite: the build, the types and the tests.
    expect((JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts.test).toMatch(
      /^npm run build && npm run typecheck && .*vitest run/,
    );
    expect(releaseChecks(false, { STORE_ADMIN_RELEASE_CHECKS: "true" })).toBe("true");
  });

  test("a failing check stops the release before it changes any file", () => {
    const before = checksRan();
    const result = npmRelease(["--date", "2026-12-01"], checks(1));
    expect(result.status, result.stdout + result.stderr).toBe(1);
    expect(checksRan()).toBe(before + 1);
    expect(result.stderr).toContain(
      `release: refused: the checks failed (\`${checks(1)}\`: exit 1); nothing was changed.`,
    );
    unchanged();
    // --skip-tests says what it risks, and still stops on a failed check.
    const skipped = npmRelease(["--skip-tests"], checks(1));
    expect(skipped.status).toBe(1);
    expect(skipped.stderr).toContain(
      "release: --skip-tests: the test suite does not run, so a defect only the tests catch ships in this release.",
    );
    unchanged();
  }, 300_000);

  test("checks that change the work tree stop the release: what they checked is not what would be released", () => {
    const result = npmRelease([], checks(0, ` && echo edited >> CHANGELOG.md`));
    expect(result.status, result.stdout + result.stderr).toBe(1);
    expect(result.stderr).toContain(
      "changed the work tree, so what they checked is not what would be released; nothing was released:\n M CHANGELOG.md",
    );
    expect(git("tag", "--list")).toBe("");
    git("checkout", "--", "CHANGELOG.md");
    unchanged();
  }, 300_000);

  test("one command: the date, the snapshot, every stated version, a commit and its tag, consistent; release:check passes after it", async () => {
    const before = checksRan();
    const result = npmRelease(["--date", "2026-12-01"]);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(checksRan()).toBe(before + 1);
    expect(result.stderr).toContain("release: running the project's checks first: ");
    const inDir = (path: string): string => readFileSync(join(dir, path), "utf8");
    expect(inDir("CHANGELOG.md")).toContain(
      "## [Unreleased]\n\n## [0.3.0] - 2026-12-01\n\n### Breaking changes\n\n- **GET /disputes/{id}/, POST /disputes/{id}/resolve/**: `data.arn` was removed.\n\n## [0.2.0]",
    );
    expect(inDir("openapi/released/store-admin-0.3.0.yaml")).toBe(inDir("openapi/store-admin.yaml"));
    expect((JSON.parse(inDir("package.json")) as { version: string }).version).toBe("0.3.0");
    const lock = JSON.parse(inDir("package-lock.json")) as {
      version: string;
      packages: Record<string, { version: string }>;
    };
    expect([lock.version, lock.packages[""]?.version]).toEqual(["0.3.0", "0.3.0"]);
    expect(inDir("src/core/version.ts")).toContain('export const VERSION = "0.3.0";');
    expect(inDir("docs/mcp.md")).toContain('"-p", "store-admin-sdk@0.3.0"');
    expect(inDir("docs/mcp.md")).not.toContain("store-admin-sdk@<version>");
    expect(git("status", "--porcelain")).toBe("");
    expect(git("rev-parse", "v0.3.0^{commit}")).toBe(git("rev-parse", "HEAD"));
    expect(git("log", "-1", "--format=%s")).toBe("Release 0.3.0\n");
    expect((await checkRelease(dir)).problems).toEqual([]);
  }, 300_000);

  test("with nothing under [Unreleased], a second release is refused", () => {
    const result = npmRelease([]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("CHANGELOG.md's `## [Unreleased]` section is empty: there is nothing to release.");
  }, 300_000);
});
