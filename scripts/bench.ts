/**
 * `npm run bench`: measures the SDK against the baselines it promises to stay close to
 * (bare openapi-fetch, raw fetch, a hand-written pagination loop) and writes
 * docs/performance.md. See issue 6 and docs/performance.md for what is measured and how.
 *
 *   npm run bench                 full run (several minutes), writes docs/performance.md
 *   npm run bench -- --quick      smoke run: fewer, shorter samples; prints, writes nothing
 *   npm run bench -- --quick --write   …and writes the page anyway (marked as a quick run)
 *   BENCH_DIST_ENTRY=/abs/path/dist/src/index.js npm run bench -- --quick
 *                                 measures another build (a candidate fix made outside the
 *                                 project); prints, writes nothing unless --write
 *
 * The BUILT package (`dist/`) is measured, rebuilt first when older than its sources.
 * Each benchmark runs in its own `node --expose-gc` process (scripts/bench/child.ts); the
 * CPU profiles come from `node --cpu-prof` runs of scripts/bench/profile-target.ts.
 */
import { execFileSync, fork } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, tmpdir, totalmem, type } from "node:os";
import { join } from "node:path";
import { summarizeProfile, type ProfileSummary } from "./bench/cpu-profile.js";
import { DIST_ENTRY, ROOT } from "./bench/fixtures.js";
import { EXPLAINED_FUNCTIONS, goals, renderReport, type Environment, type Results } from "./bench/report.js";
import { bundleSizeOf, openapiFetchBundleSize, SIZE_BUDGET_GZIP_BYTES } from "./bench/size.js";
import { IMPORT_BUDGET_MS } from "./bench/startup.js";

const args = new Set(process.argv.slice(2));
const quick = args.has("--quick");
const otherBuild = process.env.BENCH_DIST_ENTRY !== undefined;
const write = (!quick && !otherBuild) || args.has("--write");
const REPORT = join(ROOT, "docs/performance.md");

function newestMtimeMs(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestMtimeMs(join(path, name))));
}

/** Builds `dist/` when it is missing or older than anything it is built from. */
function ensureBuilt(): void {
  const sources = ["src", "generated", "tsconfig.json", "tsconfig.build.json", "package.json"].map((p) => join(ROOT, p));
  if (existsSync(DIST_ENTRY) && statSync(DIST_ENTRY).mtimeMs >= Math.max(...sources.map(newestMtimeMs))) return;
  console.log("Building dist/ (npx tsc -p tsconfig.build.json)…");
  execFileSync(process.execPath, [join(ROOT, "node_modules/typescript/lib/tsc.js"), "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });
}

/** Runs `scripts/bench/<name>.ts` in a fresh process and returns what it sends back. */
function runChild<T>(name: string): Promise<T> {
  console.log(`▶ ${name}`);
  const started = performance.now();
  return new Promise<T>((resolve, reject) => {
    const child = fork(join(ROOT, "scripts/bench/child.ts"), [name, quick ? "quick" : "full"], {
      cwd: ROOT,
      execArgv: ["--expose-gc", "--import", "tsx"],
    });
    let result: T | undefined;
    child.on("message", (message) => (result = message as T));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0 && result !== undefined) {
        console.log(`  done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
        resolve(result);
      } else reject(new Error(`benchmark ${name} exited with code ${code}`));
    });
  });
}

/** Profiles a workload with `node --cpu-prof` and summarises the main thread's profile. */
function profile(target: "get" | "post" | "paginate"): ProfileSummary {
  console.log(`▶ cpu profile: ${target}`);
  const dir = mkdtempSync(join(tmpdir(), "store-admin-sdk-cpuprof-"));
  try {
    const seconds = quick ? "2" : target === "paginate" ? "8" : "6";
    execFileSync(
      process.execPath,
      ["--cpu-prof", `--cpu-prof-dir=${dir}`, "--import", "tsx", join(ROOT, "scripts/bench/profile-target.ts"), target, seconds],
      { cwd: ROOT, stdio: "inherit" },
    );
    // CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile: thread 0 is the main thread.
    const main = readdirSync(dir).find((file) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(file));
    if (!main) throw new Error(`no main-thread profile in ${dir}`);
    return summarizeProfile(join(dir, main), 15, [...EXPLAINED_FUNCTIONS]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function version(pkg: string): string {
  return (JSON.parse(readFileSync(join(ROOT, "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;
}

function git(...gitArgs: string[]): string {
  try {
    return execFileSync("git", gitArgs, { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return "";
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = loadavg();
  if (otherBuild) console.log(`Measuring the build at ${DIST_ENTRY} (BENCH_DIST_ENTRY).`);
  else ensureBuilt();

  const clientOverhead = await runChild<Results["clientOverhead"]>("client-overhead");
  const loopback = await runChild<Results["loopback"]>("loopback");
  const pagination = await runChild<Results["pagination"]>("pagination");
  const retryCost = await runChild<Results["retryCost"]>("retry-cost");
  const startup = await runChild<Omit<Results["startup"], "budgetMs">>("startup");
  const typecheck = await runChild<Results["typecheck"]>("typecheck");
  console.log("▶ size");
  const size = {
    ours: await bundleSizeOf(`export { createStoreAdminClient } from ${JSON.stringify(DIST_ENTRY)};`),
    openapiFetch: await openapiFetchBundleSize(),
    budgetBytes: SIZE_BUDGET_GZIP_BYTES,
  };
  const profiles = { get: profile("get"), post: profile("post"), paginate: profile("paginate") };

  const cpu = cpus();
  const env: Environment = {
    date: new Date().toISOString(),
    cpu: cpu[0]?.model ?? "unknown CPU",
    cores: cpu.length,
    memoryGb: totalmem() / 1024 ** 3,
    os: `${type()} ${release()}`,
    loadBefore,
    loadAfter: loadavg(),
    versions: {
      Node: process.versions.node,
      V8: process.versions.v8,
      "undici (Node's fetch)": process.versions.undici ?? "?",
      "openapi-fetch": version("openapi-fetch"),
      esbuild: version("esbuild"),
      TypeScript: version("typescript"),
    },
    commit: otherBuild ? `(another build: ${DIST_ENTRY})` : git("rev-parse", "--short", "HEAD") || "unknown",
    dirty: otherBuild ? [] : git("status", "--porcelain", "--", "src", "generated").split("\n").filter(Boolean).map((line) => line.trim().replace(/^\S+\s+/, "")), // git() trims the output, so the first line may have lost its leading space
    durationS: (performance.now() - started) / 1000,
    quick,
  };
  const results: Results = { env, clientOverhead, loopback, pagination, retryCost, size, startup: { ...startup, budgetMs: IMPORT_BUDGET_MS }, typecheck, profiles };

  const report = renderReport(results);
  const summary = report.slice(report.indexOf("## Summary"), report.indexOf("## Machine and method")).trim();
  console.log(`\n${summary}\n`);
  if (write) {
    writeFileSync(REPORT, report);
    console.log(`Wrote ${REPORT}`);
  } else {
    console.log("Quick run: docs/performance.md left as it is (add --write to write it).");
  }
  const met = goals(results);
  const missed = Object.entries(met).filter(([, ok]) => !ok).map(([name]) => name);
  if (missed.length) console.log(`Goals missed: ${missed.join(", ")} (see "Where a goal is missed" in the report).`);
}

await main();
