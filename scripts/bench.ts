/**
 * `npm run bench`: measures the built package against the baselines it promises to stay
 * close to (bare openapi-fetch, raw fetch, a hand-written pagination loop) and writes
 * docs/performance.md, a table per benchmark. The benchmarks are in scripts/bench/:
 * throughput.ts (stub fetch, loopback, retries), pagination.ts, footprint.ts (size, start-up,
 * type-checking, the contract diff), bulk.ts (the runner), bulk-queue.ts (the queue across
 * processes, with redis-server), per-operation.ts (what each operation of a contract costs, on
 * synthetic contracts of 20, 200 and 1,000 operations), code-mode.ts (the MCP server's code mode:
 * type-check, sandbox start, a sandboxed call), validate-responses.ts (what `validateResponses` costs);
 * measure.ts says how they sample.
 *
 *   npm run bench               full run (about 8 minutes), writes docs/performance.md
 *   npm run bench -- --quick    smoke run: fewer, shorter samples; prints, writes nothing
 *   npm run bench -- --only bulk[,size…]   those benchmarks only: their sections and summary
 *                               rows of docs/performance.md are replaced, the rest kept
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { ROOT } from "./bench/fixtures.js";
import { buildDist } from "./build.js";
import { inChild, type Section } from "./bench/measure.js";

const quick = process.argv.includes("--quick");
const started = performance.now();
const loadBefore = loadavg();

console.log("Building dist/ (tsc -p tsconfig.build.json, then scripts/build.ts)…");
const tsc = join(ROOT, "node_modules/typescript/lib/tsc.js");
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });
await buildDist(ROOT);

const ALL = [
  "stub",
  "loopback",
  "pagination",
  "retryCost",
  "size",
  "startup",
  "typecheck",
  "contractDiff",
  "bulk",
  "bulkQueue",
  "perOperation",
  "codeMode",
  "drift",
  "stubPlugins",
];
const onlyAt = process.argv.indexOf("--only");
const only = onlyAt < 0 ? undefined : (process.argv[onlyAt + 1] ?? "").split(",").filter(Boolean);
const unknown = only?.filter((name) => !ALL.includes(name)) ?? [];
if (only?.length === 0 || unknown.length > 0)
  throw new Error(`--only takes benchmark names separated by commas: ${ALL.join(", ")}`);

const sections: Section[] = [];
for (const name of only ?? ALL) {
  console.log(`▶ ${name}`);
  sections.push(await inChild<Section>(name, quick ? "quick" : "full"));
}

const table = (rows: string[][]): string =>
  [rows[0]!, rows[0]!.map(() => "---"), ...rows.slice(1)].map((row) => `| ${row.join(" | ")} |`).join("\n");
const version = (pkg: string): string =>
  (JSON.parse(readFileSync(join(ROOT, "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;
const git = (...args: string[]): string => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
const dirty = git("status", "--porcelain", "--", "src", "generated") !== "";
const load = (l: number[]): string => l.map((n) => n.toFixed(2)).join(", ");

const environment = [
  `Run: ${new Date().toISOString()}, ${Math.round((performance.now() - started) / 1000)} s;`,
  `${cpus()[0]?.model ?? "unknown CPU"}, ${cpus().length} cores; load average before ${load(loadBefore)}, after ${load(loadavg())}.`,
  `Node ${process.versions.node}, openapi-fetch ${version("openapi-fetch")}, TypeScript ${version("typescript")}, esbuild ${version("esbuild")}.`,
  `The built package (\`dist/\`) at commit \`${git("rev-parse", "--short", "HEAD")}\`${dirty ? ", with uncommitted changes to `src/` or `generated/`" : ""}.`,
].join(" ");
const summary = table([["measure (median)", "result", "goal", "status"], ...sections.flatMap((s) => s.summary)]);
const report = `<!-- Written by \`npm run bench\` (scripts/bench.ts). Do not edit by hand. -->

# Performance

Each figure is a ratio against a baseline measured in the same run, on the same machine. Each
benchmark runs in a fresh \`node --expose-gc\` process. Variants of a comparison are
interleaved: one sample of each per round, in an order that rotates every round, after a
warm-up; ratios are taken per round (paired) and summarised by their median, so a slow spell
of the shared machine hits both sides alike. Cells read **median** (IQR q1–q3). One request is
in flight at a time. The baselines are why people choose openapi-fetch: about as fast and
small as raw \`fetch\`.

${summary}

${environment}

${sections.map((s, i) => `## ${i + 1}. ${s.title}\n\n${s.note}\n\n${s.tables.map(table).join("\n\n")}\n`).join("\n")}`;

console.log(`\n${summary}\n`);
if (quick) console.log("Quick run: docs/performance.md left as it is.");
else if (only) {
  writeFileSync(
    join(ROOT, "docs/performance.md"),
    replaceSections(readFileSync(join(ROOT, "docs/performance.md"), "utf8")),
  );
  console.log(`Updated ${only.join(", ")} in docs/performance.md`);
} else {
  writeFileSync(join(ROOT, "docs/performance.md"), report);
  console.log("Wrote docs/performance.md");
}

/**
 * The page with these sections put in place of their earlier figures (or added at the end),
 * each saying when and under what load it was measured, and their summary rows replaced.
 */
function replaceSections(page: string): string {
  let out = page;
  for (const section of sections) {
    const rows = section.summary.map((row) => `| ${row.join(" | ")} |`);
    // The rows go where the section's earlier rows were, else after the summary table's last row.
    const lines = out.split("\n");
    const isOld = (line: string) => section.summary.some((row) => line.startsWith(`| ${row[0]} |`));
    let at = lines.findIndex(isOld);
    if (at < 0) {
      at = lines.findIndex((line) => line.startsWith("| measure (median) |"));
      while (at + 1 < lines.length && lines[at + 1]!.startsWith("|")) at++;
      at++;
    }
    const kept = lines.filter((line, i) => i < at || !isOld(line));
    kept.splice(at, 0, ...rows);
    out = kept.join("\n");

    const body = `${section.note}\n\nMeasured on its own (\`npm run bench -- --only\`): ${environment}\n\n${section.tables.map(table).join("\n\n")}\n`;
    const heading = new RegExp(`^## (\\d+)\\. ${section.title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n`, "m");
    const found = heading.exec(out);
    if (found) {
      const next = out.indexOf("\n## ", found.index + found[0].length);
      out = `${out.slice(0, found.index)}${found[0]}\n${body}${next < 0 ? "" : out.slice(next)}`;
    } else {
      const count = (out.match(/^## \d+\. /gm) ?? []).length;
      out = `${out.trimEnd()}\n\n## ${count + 1}. ${section.title}\n\n${body}`;
    }
  }
  return out;
}
