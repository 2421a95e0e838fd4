/**
 * The house: what is tracked in git is the project, not a development machine's leftovers.
 * Fails on a tracked pid file, a scratch script (`_name.mjs` and the like), or a file that
 * names an absolute path of a development machine (a home folder, a checkout folder, a
 * temporary path inside scripts/). And the guide's list of dependencies is package.json's.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../", import.meta.url));

/** Prefixes of paths that exist on a development machine, not in the project. */
const MACHINE_PREFIXES = [
  ...["home", "Users", "work", "root", "mnt", "private/var"].map((folder) => `/${folder}/`),
  "C:\\Users\\",
];
/** A temporary path is a scratch script's output when a maintainer's script names it. */
const SCRATCH_PREFIXES = ["/tmp/", "/var/tmp/"];
const SCRATCH_DIRS = ["scripts/"];

/**
 * Allowed: this file, which lists the prefixes. Paths the code really uses are not on the
 * lists at all: a system browser (`/usr/bin/chromium`), and temporary paths outside
 * scripts/ (an example in the docs, a test's `os.tmpdir()` folder).
 */
const ALLOWED_FILES = ["test/house.test.ts"];

const SCRATCH_FILE = /(^|\/)_[^/]*\.(?:c|m)?[jt]sx?$/;
const PID_FILE = /\.pid$/;

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A prefix counts where a path starts: not inside a URL (`https://x/home/`) or a longer path (`./home/`). */
const pathAt = (prefixes: string[]): RegExp =>
  new RegExp(`(?<![\\w.:/~\\\\-])(?:${prefixes.map(escape).join("|")})[^\\s"'\`)]*`, "g");

export interface TrackedFile {
  path: string;
  text: string;
}

/** Each problem as `path[:line]: what`, for the files given (as `git ls-files` lists them). */
export function houseProblems(files: readonly TrackedFile[]): string[] {
  const problems: string[] = [];
  for (const { path, text } of files) {
    if (PID_FILE.test(path)) problems.push(`${path}: a process id file; remove it from git.`);
    if (SCRATCH_FILE.test(path))
      problems.push(`${path}: a scratch script (a name starting with "_"); experiments live outside the repository.`);
    if (ALLOWED_FILES.includes(path)) continue;
    const patterns = [
      pathAt(MACHINE_PREFIXES),
      ...(SCRATCH_DIRS.some((d) => path.startsWith(d)) ? [pathAt(SCRATCH_PREFIXES)] : []),
    ];
    text.split("\n").forEach((line, i) => {
      for (const pattern of patterns) {
        for (const match of line.matchAll(pattern)) {
          problems.push(
            `${path}:${i + 1}: names the absolute path ${match[0]} of one machine; derive it (import.meta.url, os.tmpdir(), the repository root).`,
          );
        }
      }
    });
  }
  return problems;
}

function trackedFiles(): TrackedFile[] {
  const listing = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" });
  return listing
    .split("\0")
    .filter((path) => path !== "")
    .map((path) => {
      const bytes = readFileSync(`${root}${path}`);
      // Binary files (images) hold no paths worth reading.
      return { path, text: bytes.includes(0) ? "" : bytes.toString("utf8") };
    });
}

describe("the house", () => {
  test("no tracked file is a pid file, a scratch script, or names a path of a development machine", () => {
    const files = trackedFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(houseProblems(files)).toEqual([]);
  });

  test("the check finds planted leftovers, each with its file and line", () => {
    const planted: TrackedFile[] = [
      { path: "scripts/_abl.cjs", text: "require('x');\nconst out = '/tmp/bundle.min.js';\n" },
      { path: "scripts/_sz.ts", text: "" },
      { path: "w3.pid", text: "12345\n" },
      { path: "src/build.ts", text: 'const dir = "/mnt/ci/checkout";\nconst home = `/home/dev/checkout`;\n' },
      { path: "docs/notes.md", text: "see /Users/ann/store-admin-sdk/README.md\n" },
    ];
    expect(houseProblems(planted)).toEqual([
      'scripts/_abl.cjs: a scratch script (a name starting with "_"); experiments live outside the repository.',
      "scripts/_abl.cjs:2: names the absolute path /tmp/bundle.min.js of one machine; derive it (import.meta.url, os.tmpdir(), the repository root).",
      'scripts/_sz.ts: a scratch script (a name starting with "_"); experiments live outside the repository.',
      "w3.pid: a process id file; remove it from git.",
      "src/build.ts:1: names the absolute path /mnt/ci/checkout of one machine; derive it (import.meta.url, os.tmpdir(), the repository root).",
      "src/build.ts:2: names the absolute path /home/dev/checkout of one machine; derive it (import.meta.url, os.tmpdir(), the repository root).",
      "docs/notes.md:1: names the absolute path /Users/ann/store-admin-sdk/README.md of one machine; derive it (import.meta.url, os.tmpdir(), the repository root).",
    ]);
  });

  test("what the code really uses passes: a system browser, a temporary path outside scripts/, a URL's path", () => {
    const fine: TrackedFile[] = [
      { path: "test/docs/reference.test.ts", text: 'executablePath: "/usr/bin/chromium"\n' },
      {
        path: "docs/guide.md",
        text: "write the ledger to /tmp/run.ledger\nhttps://shop.example.com/home/x and ./home/out\n",
      },
      { path: "src/cli/__main.md", text: "" },
    ];
    expect(houseProblems(fine)).toEqual([]);
  });
});

describe("the guide's dependencies", () => {
  test("docs/guide.md names exactly package.json's dependencies", () => {
    const guide = readFileSync(`${root}docs/guide.md`, "utf8");
    // The list item, up to the next item or the end of the list.
    const item = /^- \*\*Dependencies:\*\*.*(?:\n {2}.*)*/m.exec(guide)?.[0];
    if (item === undefined) throw new Error("docs/guide.md has no '- **Dependencies:**' item");
    const named = [...item.matchAll(/`([^`]+)`/g)].map((m) => m[1]).filter((name) => name !== "store-admin-sdk");
    const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { dependencies: Record<string, string> };
    expect(named.sort()).toEqual(Object.keys(pkg.dependencies).sort());
  });
});

/**
 * What a released version of the package offers: whether CHANGELOG.md dates it (git's
 * history holds the commit that did), and whether that release commit has the `mcp` command
 * (its page, docs/mcp.md). Undefined when the version was never released.
 */
function release(version: string): { hasMcp: boolean } | undefined {
  const git = (...args: string[]): string => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();
  const dated = git("log", "--format=%H", "-S", `## [${version}] - `, "--", "CHANGELOG.md").split("\n").at(-1) ?? "";
  return dated === "" ? undefined : { hasMcp: git("ls-tree", "--name-only", dated, "docs/mcp.md") === "docs/mcp.md" };
}

/**
 * Pins of `npx -y -p store-admin-sdk@…` in the docs: each names `<version>` (a placeholder
 * the reader fills) or a release that has the command; an unpinned `-p store-admin-sdk` runs
 * whatever the registry serves. Between releases the package's own version is on no
 * registry, so it is no pin.
 */
function pinProblems(texts: Record<string, string>, releaseOf: typeof release): string[] {
  const problems: string[] = [];
  for (const [file, text] of Object.entries(texts)) {
    for (const [, version] of text.matchAll(/store-admin-sdk@([^"`\s]+)/g)) {
      if (version === "<version>") continue;
      const released = /^\d+\.\d+\.\d+$/.test(version as string) ? releaseOf(version as string) : undefined;
      if (released === undefined) problems.push(`${file}: store-admin-sdk@${version} is not a released version`);
      else if (!released.hasMcp)
        problems.push(`${file}: store-admin-sdk@${version} was released without the mcp command`);
    }
    if (/"-p", "store-admin-sdk"|-p store-admin-sdk(?!@)/.test(text))
      problems.push(`${file}: \`-p store-admin-sdk\` without a version`);
  }
  return problems;
}

describe("the pinned version of `npx -y`", () => {
  const texts = Object.fromEntries(
    ["README.md", "docs/mcp.md", "docs/guide.md"].map((file) => [file, readFileSync(`${root}${file}`, "utf8")]),
  );

  test("every `store-admin-sdk@<version>` in the docs is a placeholder or a release that has the mcp command; every `npx -y` of the package pins one", () => {
    expect(pinProblems(texts, release)).toEqual([]);
    expect(texts["docs/mcp.md"]).toContain('"store-admin-sdk@<version>"');
  });

  test("the check refuses a version never released, a release without the command, and no pin", () => {
    const mcp = texts["docs/mcp.md"] as string;
    const pinned = (version: string): Record<string, string> => ({
      "docs/mcp.md": mcp.replace('"store-admin-sdk@<version>"', `"store-admin-sdk@${version}"`),
    });
    // 0.3.0 is dated in CHANGELOG.md, and its release commit predates the command.
    expect(release("0.3.0")).toEqual({ hasMcp: false });
    expect(pinProblems(pinned("0.3.0"), release)).toEqual([
      "docs/mcp.md: store-admin-sdk@0.3.0 was released without the mcp command",
    ]);
    expect(pinProblems(pinned("9.9.9"), release)).toEqual([
      "docs/mcp.md: store-admin-sdk@9.9.9 is not a released version",
    ]);
    expect(pinProblems(pinned("0.4.0"), () => ({ hasMcp: true }))).toEqual([]);
    expect(pinProblems({ "README.md": "npx -y -p store-admin-sdk -p x mcp" }, release)).toEqual([
      "README.md: `-p store-admin-sdk` without a version",
    ]);
  });
});
