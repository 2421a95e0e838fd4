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
const MACHINE_PREFIXES = ["/home/", "/Users/", "/work/", "/root/", "/mnt/", "/private/var/", "C:\\Users\\"];
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
/** A prefix counts where a path starts: not inside a URL (`https://x/home/`) or a longer path (`./work/`). */
const pathAt = (prefixes: string[]): RegExp => new RegExp(`(?<![\\w.:/~\\\\-])(?:${prefixes.map(escape).join("|")})[^\\s"'\`)]*`, "g");

export interface TrackedFile {
  path: string;
  text: string;
}

/** Each problem as `path[:line]: what`, for the files given (as `git ls-files` lists them). */
export function houseProblems(files: readonly TrackedFile[]): string[] {
  const problems: string[] = [];
  for (const { path, text } of files) {
    if (PID_FILE.test(path)) problems.push(`${path}: a process id file; remove it from git.`);
    if (SCRATCH_FILE.test(path)) problems.push(`${path}: a scratch script (a name starting with "_"); experiments live outside the repository.`);
    if (ALLOWED_FILES.includes(path)) continue;
    const patterns = [pathAt(MACHINE_PREFIXES), ...(SCRATCH_DIRS.some((d) => path.startsWith(d)) ? [pathAt(SCRATCH_PREFIXES)] : [])];
    text.split("\n").forEach((line, i) => {
      for (const pattern of patterns) {
        for (const match of line.matchAll(pattern)) {
          problems.push(`${path}:${i + 1}: names the absolute path ${match[0]} of one machine; derive it (import.meta.url, os.tmpdir(), the repository root).`);
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
      { path: "docs/guide.md", text: "write the ledger to /tmp/run.ledger\nhttps://shop.example.com/home/x and ./work/out\n" },
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

describe("the pinned version of `npx -y`", () => {
  test("every `store-admin-sdk@<version>` in the docs is package.json's, and every `npx -y` of the package pins one", () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { version: string };
    for (const file of ["README.md", "docs/mcp.md", "docs/guide.md"]) {
      const text = readFileSync(`${root}${file}`, "utf8");
      for (const [, version] of text.matchAll(/store-admin-sdk@(\d+\.\d+\.\d+\S*?)["`\s]/g)) expect(version, file).toBe(pkg.version);
      // A JSON args list or a command line: `-p store-admin-sdk` without `@` runs whatever the registry serves.
      expect(text, file).not.toMatch(/"-p", "store-admin-sdk"|-p store-admin-sdk(?!@)/);
    }
    expect(readFileSync(`${root}docs/mcp.md`, "utf8")).toContain(`"store-admin-sdk@${pkg.version}"`);
  });
});
