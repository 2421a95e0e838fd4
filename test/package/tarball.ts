/**
 * Shared by the package tests (pack, consumer, runtimes, docs): run a command, make sure
 * `dist/` exists, pack the package with `npm pack`, and install the tarball into a fresh
 * project outside this checkout, the way a user gets it.
 *
 * In a run with test/setup/shared-installs.ts, the package is packed once per run and a
 * consumer project is installed once per set of packages; each file gets its own copy.
 *
 * Only Node built-ins and vitest: these helpers run before anything of the SDK is imported.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { inject } from "vitest";

/** The project root (the directory holding package.json). */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The project's own TypeScript compiler, run with this Node. */
export const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

/** TypeScript 7 (the native compiler, installed as the alias `typescript7`), run with this Node. */
export const TSC7 = join(ROOT, "node_modules", "typescript7", "bin", "tsc");

/** Which TypeScript compiles a consumer project: 5.x (`typescript`) or 7.x (`typescript7`). */
export type Compiler = "typescript" | "typescript7";

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Kill the child (SIGKILL) after this many milliseconds. @default 120_000 */
  timeoutMs?: number;
}

/** Runs `command args…` without a shell and collects its output; never rejects on a non-zero exit. */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${options.timeoutMs ?? 120_000} ms]`;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? 120_000);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`Could not run ${command}: ${error.message}`, { cause: error }));
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A one-paragraph description of a finished command, for assertion messages. */
export function describeRun(label: string, result: RunResult): string {
  return `${label} exited with ${result.signal ?? result.code}\n--- stdout ---\n${result.stdout.trimEnd()}\n--- stderr ---\n${result.stderr.trimEnd()}`;
}

/** Runs a command and throws (with its output) unless it exits 0. */
export async function runOrThrow(
  label: string,
  command: string,
  args: readonly string[],
  options?: RunOptions,
): Promise<RunResult> {
  const result = await run(command, args, options);
  if (result.code !== 0) throw new Error(describeRun(label, result));
  return result;
}

/**
 * The environment for a nested `npm`: without what `npm test` exports about this project
 * (`npm_package_*`, `npm_lifecycle_*`, `npm_config_local_prefix`), so that an `npm install`
 * in a temporary project does not think it is inside this one. Registry and cache settings stay.
 */
export function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const lower = key.toLowerCase();
    if (lower.startsWith("npm_package_") || lower.startsWith("npm_lifecycle_") || lower === "npm_config_local_prefix")
      continue;
    env[key] = value;
  }
  return { ...env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" };
}

/**
 * Holds a cross-process lock (an exclusive `mkdir`) while `work` runs, so that test files,
 * or two test runs in the same checkout, never build or install into the same place at once.
 * A lock older than `staleMs` is a leftover of a killed run and is taken over.
 */
export async function withLock<T>(name: string, work: () => Promise<T>, staleMs = 10 * 60_000): Promise<T> {
  const key = createHash("sha256").update(ROOT).digest("hex").slice(0, 12);
  const lockDir = join(tmpdir(), `store-admin-sdk-${key}-${name}.lock`);
  const deadline = Date.now() + staleMs + 60_000;
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const age = await stat(lockDir).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > staleMs) await rm(lockDir, { recursive: true, force: true });
      else if (Date.now() > deadline)
        throw new Error(`Timed out waiting for the lock ${lockDir}; remove it if no test run is active.`);
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await work();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

/**
 * `npm test` builds first; a test run on its own (`npx vitest run test/package`) may find
 * no `dist/`. Then compile it, as `npm run build` does after its lint and staleness checks.
 */
export async function ensureBuilt(): Promise<void> {
  const built = () =>
    existsSync(join(ROOT, "dist", "src", "index.js")) && existsSync(join(ROOT, "dist", "src", "index.d.ts"));
  if (built()) return;
  await withLock("build", async () => {
    if (built()) return;
    await runOrThrow("tsc -p tsconfig.build.json", process.execPath, [TSC, "-p", "tsconfig.build.json"], {
      timeoutMs: 300_000,
    });
  });
}

/** One file in the tarball, as `npm pack --json` lists it. */
export interface PackedFile {
  path: string;
  size: number;
  mode: number;
}

export interface PackResult {
  /** Absolute path of the `.tgz`. */
  tarball: string;
  /** Compressed size in bytes. */
  size: number;
  unpackedSize: number;
  files: PackedFile[];
}

/** The run's folder of shared installs (test/setup/shared-installs.ts), if the run has one. */
function sharedInstallsDir(): string | undefined {
  return inject("sharedInstallsDir");
}

/**
 * `npm pack --json` into `destination` (after building, if `dist/` is missing): in a run with
 * shared installs, a copy of the run's one tarball, packed by the first file that asks.
 */
export async function packTarball(destination: string): Promise<PackResult> {
  const shared = sharedInstallsDir();
  if (!shared) return npmPack(destination);
  const packed = await withLock(`${basename(shared)}-pack`, async () => {
    const record = join(shared, "pack.json");
    if (existsSync(record)) return JSON.parse(await readFile(record, "utf8")) as PackResult;
    const into = join(shared, "pack");
    await mkdir(into, { recursive: true });
    const result = await npmPack(into);
    await writeFile(record, JSON.stringify(result));
    return result;
  });
  const tarball = join(destination, basename(packed.tarball));
  await copyFile(packed.tarball, tarball);
  return { ...packed, tarball };
}

async function npmPack(destination: string): Promise<PackResult> {
  await ensureBuilt();
  const result = await runOrThrow("npm pack", "npm", ["pack", "--json", "--pack-destination", destination], {
    env: npmEnv(),
  });
  // npm prints warnings to stderr; stdout is the JSON array, one entry per packed package.
  const [info] = JSON.parse(result.stdout) as Array<{
    filename: string;
    size: number;
    unpackedSize: number;
    files: PackedFile[];
  }>;
  if (!info) throw new Error(`npm pack printed no package:\n${result.stdout}`);
  return {
    tarball: join(destination, info.filename),
    size: info.size,
    unpackedSize: info.unpackedSize,
    files: info.files,
  };
}

/** The version of a devDependency as this project pins it, e.g. `devDependency("@types/node")`. */
export async function pinnedVersion(name: string): Promise<string> {
  const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const version = pkg.devDependencies?.[name] ?? pkg.dependencies?.[name];
  if (!version) throw new Error(`package.json does not list ${name}`);
  return version;
}

export interface ConsumerProject {
  /** The project directory, in the system's temp dir (outside this checkout). */
  dir: string;
  pack: PackResult;
  /** Deletes the directory. */
  remove(): Promise<void>;
}

/**
 * `tsc -p tsconfig` in a consumer project (plain diagnostics, for the failure message), with
 * TypeScript 5.x unless `compiler` says `"typescript7"`.
 */
export function typecheckProject(
  project: ConsumerProject | undefined,
  tsconfig: string,
  timeoutMs: number,
  compiler: Compiler = "typescript",
): Promise<RunResult> {
  if (!project) throw new Error("the consumer project was not created (see beforeAll)");
  const tsc = compiler === "typescript7" ? TSC7 : TSC;
  return run(process.execPath, [tsc, "-p", tsconfig, "--pretty", "false"], { cwd: project.dir, timeoutMs });
}

/**
 * Where the run's one consumer project with `extraPackages` is installed (its record of the
 * install beside it, `<folder>.json`, once done); undefined in a run without shared installs.
 */
export function sharedConsumerDir(extraPackages: readonly string[]): string | undefined {
  const shared = sharedInstallsDir();
  if (!shared) return undefined;
  const key = createHash("sha256").update(JSON.stringify(extraPackages)).digest("hex").slice(0, 12);
  return join(shared, `consumer-${basename(shared)}-${key}`);
}

/**
 * A fresh project in the system temp dir with the packed tarball installed from the file,
 * as a user would (`npm install ./store-admin-sdk-0.1.0.tgz`); its dependency openapi-fetch
 * comes from the registry. `extraPackages` are installed alongside (e.g. `@types/node@20`).
 * In a run with shared installs, a copy of the run's one install with the same packages:
 * the same files, in a folder of the caller's own that it may change.
 */
export async function createConsumerProject(extraPackages: readonly string[] = []): Promise<ConsumerProject> {
  const dir = await mkdtemp(join(tmpdir(), "store-admin-sdk-consumer-"));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    const template = sharedConsumerDir(extraPackages);
    if (!template) return { dir, pack: await installConsumer(dir, extraPackages), remove };
    const pack = await withLock(basename(template), async () => {
      const record = `${template}.json`;
      if (existsSync(record)) return JSON.parse(await readFile(record, "utf8")) as PackResult;
      await rm(template, { recursive: true, force: true });
      await mkdir(template);
      const result = await installConsumer(template, extraPackages);
      await writeFile(record, JSON.stringify(result));
      return result;
    });
    // npm's links under node_modules/.bin are relative: kept as they are, they lead into the copy.
    await cp(template, dir, { recursive: true, verbatimSymlinks: true });
    return { dir, pack: { ...pack, tarball: join(dir, basename(pack.tarball)) }, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** `npm install <tarball> …extraPackages` into the empty folder `dir`, a project of its own. */
async function installConsumer(dir: string, extraPackages: readonly string[]): Promise<PackResult> {
  const pack = await packTarball(dir);
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: "store-admin-sdk-consumer", private: true, type: "module" }, null, 2) + "\n",
  );
  await runOrThrow(
    "npm install <tarball>",
    "npm",
    ["install", "--no-audit", "--no-fund", "--no-package-lock", pack.tarball, ...extraPackages],
    { cwd: dir, env: npmEnv(), timeoutMs: 300_000 },
  );
  return pack;
}
