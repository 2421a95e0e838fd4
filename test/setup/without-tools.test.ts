/**
 * scripts/without-tools.sh, which `.ci/run` uses to prove the fast lane needs neither Chromium
 * nor redis-server: the named programs are off the PATH it gives the command, everything else
 * in their folders is still there, and it refuses to run when one is left.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../package/tarball.js";

const SCRIPT = join(ROOT, "scripts", "without-tools.sh");
const dir = mkdtempSync(join(tmpdir(), "without-tools-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A folder of programs that print their name: `browser` and `cache-server` to hide, `keep` to keep. */
const bin = join(dir, "bin");
mkdirSync(bin);
for (const name of ["browser", "cache-server", "keep"]) {
  writeFileSync(join(bin, name), `#!/bin/sh\necho ${name}\n`);
  chmodSync(join(bin, name), 0o755);
}
const run = (hidden: string, command: string, path = `${bin}:${process.env.PATH}`) =>
  spawnSync("bash", [SCRIPT, hidden, "--", "bash", "-c", command], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, PATH: path },
  });

describe("scripts/without-tools.sh", () => {
  it("takes the named programs off the PATH and leaves the rest of their folder", () => {
    const result = run(
      "browser,cache-server",
      "command -v browser || echo no-browser; command -v cache-server || echo no-cache; keep",
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe("no-browser\nno-cache\nkeep\n");
  });

  it("hides a program in every PATH folder that holds one", () => {
    const other = join(dir, "other");
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, "browser"), "#!/bin/sh\necho other\n");
    chmodSync(join(other, "browser"), 0o755);
    const result = run("browser", "command -v browser || echo gone; keep", `${bin}:${other}:${process.env.PATH}`);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe("gone\nkeep\n");
  });

  it("refuses to run the command when a name is still reachable, naming it", () => {
    // `cd` is the shell's own: no PATH can hide it.
    const result = run("browser,cd", "touch ran");
    expect(result.status).toBe(2);
    expect(result.stderr).toBe("without-tools: cd is still on the PATH\n");
    expect(spawnSync("test", ["-e", join(dir, "ran")]).status).not.toBe(0);
  });
});
