/**
 * `npm run contract:diff` end to end: a mutation committed in a temporary git repository,
 * diffed against the commit before it through a git ref; clear errors for bad input; and
 * the probe's types generated exactly as scripts/generate.ts generates `generated/`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { parseContract, type Node } from "../../scripts/contract-diff/document.js";
import { generateTypes } from "../../scripts/contract-diff/probe.js";
import { CONTRACT_PATH } from "../../scripts/facts.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const tsx = join(root, "node_modules/.bin/tsx");
const script = join(root, "scripts/contract-diff.ts");
const contractText = readFileSync(CONTRACT_PATH, "utf8");

const repo = mkdtempSync(join(tmpdir(), "contract-diff-git-"));
afterAll(() => rmSync(repo, { recursive: true, force: true }));

const run = (args: string[]) => spawnSync(tsx, [script, ...args], { cwd: repo, encoding: "utf8", timeout: 240_000 });

describe("contract:diff command", () => {
  test("a request enum value removed in a commit: --base HEAD~1 reads the contract from git, --json prints one object", () => {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "pipe" });
    git("init", "-q");
    git("config", "user.email", "test@example.org");
    git("config", "user.name", "test");
    mkdirSync(join(repo, "openapi"));
    writeFileSync(join(repo, "openapi/store-admin.yaml"), contractText);
    git("add", ".");
    git("commit", "-qm", "released contract");
    const doc = parseContract(contractText, "contract") as Node & { components: { schemas: Record<string, Node> } };
    const resolution = doc.components.schemas.DisputeResolution as Node;
    resolution.enum = (resolution.enum as unknown[]).filter((v) => v !== "won");
    writeFileSync(join(repo, "openapi/store-admin.yaml"), stringify(doc));
    git("commit", "-qam", "drop the resolution 'won'");

    const result = run(["--base", "HEAD~1", "--json"]);
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { bump: string; changes: Array<Record<string, unknown>> };
    expect(Object.keys(report).sort()).toEqual(["bump", "changes"]);
    expect(report.bump).toBe("major");
    expect(report.changes).toContainEqual({
      operation: "POST /disputes/{id}/resolve/",
      location: "#/components/schemas/DisputeResolution/enum",
      kind: "enum-value-removed",
      breaking: true,
      typeBreak: true,
      message: '`body.resolution` no longer admits "won".',
    });
    // In the answer too: code comparing `data.resolution` with "won" no longer compiles.
    expect(report.changes).toContainEqual(
      expect.objectContaining({
        operation: "GET /disputes/{id}/",
        kind: "enum-value-removed",
        breaking: true,
        typeBreak: true,
        message: '`data.resolution` no longer admits "won".',
      }),
    );
    // Logs go to stderr, so stdout is the JSON object alone.
    expect(result.stderr).toContain("Diffed HEAD~1:openapi/store-admin.yaml → openapi/store-admin.yaml");
  }, 300_000);

  test("--changelog: the version it names follows the rule it states (0.x: a breaking change moves the minor number); a lower --version is refused", () => {
    writeFileSync(join(repo, "package.json"), JSON.stringify({ name: "x", version: "0.2.0" }));
    const draft = run(["--base", "HEAD~1", "--changelog"]);
    expect(draft.status, draft.stderr).toBe(0);
    // No dated heading: the draft goes under [Unreleased], and only `npm run release` dates a version.
    expect(draft.stdout).toMatch(
      /^Contract changes since HEAD~1:openapi\/store-admin.yaml, for the release 0\.3\.0\. /,
    );
    expect(draft.stdout).not.toMatch(/^## /m);
    expect(draft.stdout).toContain(
      "Release needed: major. After 0.2.0 that is 0.3.0: while the version is 0.x, npm's caret range `^0.2.0` takes every 0.2.x automatically",
    );
    expect(draft.stdout).toContain(
      "*What to change:* Stop sending the removed values of `body.resolution` to POST /disputes/{id}/resolve/.",
    );
    const low = run(["--base", "HEAD~1", "--changelog", "--version", "0.2.1"]);
    expect(low.status).toBe(2);
    expect(low.stderr).toContain("--version 0.2.1 is too low: after 0.2.0 a major change needs at least 0.3.0.");
  }, 300_000);

  test("bad input is refused with a message that names it", () => {
    const missing = run([]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("--base is required");
    const unknown = run(["--base", "HEAD", "--jsn"]);
    expect(unknown.stderr).toContain('Unknown argument "--jsn"');
    const badRef = run(["--base", "no-such-ref"]);
    expect(badRef.status).toBe(2);
    expect(badRef.stderr).toContain('"no-such-ref" is neither a file nor a git ref');
  }, 120_000);

  test("the probe's types are generated with the options of scripts/generate.ts", async () => {
    const generated = readFileSync(join(root, "generated/schema.ts"), "utf8");
    const ours = await generateTypes(parseContract(contractText, "contract"));
    expect(
      generated.includes(ours.trim()),
      "scripts/generate.ts and scripts/contract-diff/probe.ts generate types differently",
    ).toBe(true);
  }, 60_000);
});
