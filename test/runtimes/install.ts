/**
 * The other runtimes of the runtime tests (Node 24, Bun, Deno), from the npm registry as
 * packages (`node`, `bun`, `deno`, each with a real binary under `node_modules/.bin`),
 * installed once into the git-ignored `.runtimes/` directory at the project root and reused
 * while their versions match {@link RUNTIME_VERSIONS}. Shared by test/runtimes/ and
 * test/testing/runtimes.test.ts.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { npmEnv, ROOT, runOrThrow, withLock } from "../package/tarball.js";

/** Exact versions installed from npm; bump them here (the cache in .runtimes/ follows). */
export const RUNTIME_VERSIONS = { node: "24.21.0", bun: "1.4.5", deno: "2.9.6" } as const;
export type RuntimeName = keyof typeof RUNTIME_VERSIONS;

export const RUNTIMES_DIR = join(ROOT, ".runtimes");
export const BIN_DIR = join(RUNTIMES_DIR, "node_modules", ".bin");

/** Three ~40 MB downloads on a cold npm cache; about 20 s on a warm one. */
export const INSTALL_TIMEOUT_MS = 600_000;

/** The version of a runtime package installed in .runtimes/, if it is there with its binary. */
async function installedVersion(name: RuntimeName): Promise<string | undefined> {
  if (!existsSync(join(BIN_DIR, name))) return undefined;
  try {
    const pkg = JSON.parse(await readFile(join(RUNTIMES_DIR, "node_modules", name, "package.json"), "utf8")) as {
      version?: string;
    };
    return pkg.version;
  } catch {
    return undefined;
  }
}

async function missingRuntimes(): Promise<RuntimeName[]> {
  const names = Object.keys(RUNTIME_VERSIONS) as RuntimeName[];
  const versions = await Promise.all(names.map(installedVersion));
  return names.filter((name, i) => versions[i] !== RUNTIME_VERSIONS[name]);
}

/**
 * Installs the pinned runtimes into .runtimes/ unless they are there already. All three
 * go in one `npm install`: without a package.json there, npm would prune any package a
 * later install does not name.
 */
export async function ensureRuntimes(): Promise<void> {
  // Checked only under the lock: while another test file's install runs, a runtime's bin link
  // and package.json are there before its postinstall has put the binary in place (a Deno
  // started then ran its placeholder, which exec'd node on the binary half-written).
  await withLock("runtimes", async () => {
    const missing = await missingRuntimes();
    if (missing.length === 0) return;
    const started = Date.now();
    await mkdir(RUNTIMES_DIR, { recursive: true });
    const specs = Object.entries(RUNTIME_VERSIONS).map(([name, version]) => `${name}@${version}`);
    await runOrThrow(
      `npm install --prefix .runtimes ${specs.join(" ")}`,
      "npm",
      ["install", "--prefix", RUNTIMES_DIR, "--no-save", "--no-package-lock", "--no-audit", "--no-fund", ...specs],
      { env: npmEnv(), timeoutMs: INSTALL_TIMEOUT_MS },
    );
    console.info(
      `[runtimes] installed ${specs.join(", ")} into .runtimes/ in ${((Date.now() - started) / 1000).toFixed(1)} s (missing: ${missing.join(", ")})`,
    );
  });
}

/** The environment for a runtime: caches kept inside .runtimes/, no update checks or colour. */
export function runtimeEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NO_COLOR: "1",
    FORCE_COLOR: "0",
    DO_NOT_TRACK: "1",
    DENO_DIR: join(RUNTIMES_DIR, "deno-dir"),
    DENO_NO_UPDATE_CHECK: "1",
    DENO_NO_PROMPT: "1",
  };
}
