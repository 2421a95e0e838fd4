/**
 * Copied code: jscpd (.jscpd.json, run by `npm run lint` in `npm test`) reports a block of
 * code written twice in src/, scripts/ or test/, at the threshold the tree meets. Here it is
 * shown to refuse a planted copy of a 20-line function, naming both files, and to pass the
 * same function written once, on a scratch folder with the project's own settings.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const JSCPD = join(root, "node_modules", "jscpd", "bin", "jscpd");
const settings = JSON.parse(readFileSync(join(root, ".jscpd.json"), "utf8")) as Record<string, unknown>;

/** A function whose body, braces included, spans 20 lines: a retry loop as the client might write one. */
const FUNCTION = `export async function fetchWithRetries(url: string, attempts: number, delayMs: number): Promise<Response> {
  let lastError: unknown = undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const response = await fetch(url, { headers: { accept: "application/json" } });
      if (response.status === 429 || response.status >= 500) {
        lastError = new Error(\`attempt \${attempt} answered \${response.status}\`);
        await new Promise((resolve) => setTimeout(resolve, delayMs * 2 ** (attempt - 1)));
        continue;
      }
      return response;
    } catch (error) {
      lastError = error;
      if (attempt === attempts) break;
      await new Promise((resolve) => setTimeout(resolve, delayMs * 2 ** (attempt - 1)));
    }
  }
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  throw new Error(\`gave up on \${url} after \${attempts} attempts: \${reason}\`);
}
`;

/** jscpd on `dir` with the project's settings: its exit code and what it printed. */
function jscpd(dir: string): Promise<{ code: number; output: string }> {
  writeFileSync(join(dir, ".jscpd.json"), JSON.stringify({ ...settings, path: ["src"], gitignore: false }));
  return new Promise((resolve) => {
    execFile(process.execPath, [JSCPD, "--config", join(dir, ".jscpd.json")], { cwd: dir }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe("the duplicate-code check", () => {
  const scratch = mkdtempSync(join(tmpdir(), "duplicate-code-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const tree = (name: string, files: Record<string, string>): string => {
    const dir = join(scratch, name);
    mkdirSync(join(dir, "src"), { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, "src", file), text);
    return dir;
  };

  test("the planted function spans 20 lines", () => {
    expect(FUNCTION.trimEnd().split("\n")).toHaveLength(20);
  });

  test("a planted copy of a 20-line function fails, naming both files", async () => {
    const dir = tree("copied", {
      "retry.ts": `// the first\n\n${FUNCTION}`,
      "again.ts": `import "./retry.js";\n\n${FUNCTION.replace("fetchWithRetries", "fetchAgain")}`,
    });
    const { code, output } = await jscpd(dir);
    expect(code).not.toBe(0);
    expect(output).toContain("src/retry.ts");
    expect(output).toContain("src/again.ts");
  }, 60_000);

  test("the same function written once passes", async () => {
    const dir = tree("once", { "retry.ts": FUNCTION, "other.ts": "export const other = 1;\n" });
    expect(await jscpd(dir)).toMatchObject({ code: 0 });
  }, 60_000);
});
