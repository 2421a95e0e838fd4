/**
 * `npm run bench`: measures the built package against the baselines it promises to stay
 * close to (bare openapi-fetch, raw fetch, a hand-written pagination loop) and writes
 * docs/performance.md, a table per benchmark. The benchmarks are in scripts/bench/:
 * throughput.ts (stub fetch, loopback, retries), pagination.ts, footprint.ts (size, start-up,
 * type-checking, the contract diff); measure.ts says how they sample.
 *
 *   npm run bench               full run (about 8 minutes), writes docs/performance.md
 *   npm run bench -- --quick    smoke run: fewer, shorter samples; prints, writes nothing
 *   npm run bench -- --only bulkQueue[,…]   runs those sections only, and replaces just their
 *                               section and summary rows in docs/performance.md
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { ROOT } from "./bench/fixtures.js";
import { inChild, type Section } from "./bench/measure.js";

const quick = process.argv.includes("--quick");
const onlyArg = process.argv.indexOf("--only");
const only = onlyArg >= 0 ? (process.argv[onlyArg + 1] ?? "").split(",").filter(Boolean) : undefined;
const ALL = ["stub", "loopback", "pagination", "retryCost", "size", "startup", "typecheck", "contractDiff", "bulkQueue"];
if (only && (only.length === 0 || only.some((name) => !ALL.includes(name)))) {
  throw new Error(`--only takes section names separated by commas: ${ALL.join(", ")}`);
}
const started = performance.now();
const loadBefore = loadavg();

console.log("Building dist/ (tsc -p tsconfig.build.json)…");
const tsc = join(ROOT, "node_modules/typescript/lib/tsc.js");
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });

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
  writeFileSync(join(ROOT, "docs/performance.md"), spliceSections(readFileSync(join(ROOT, "docs/performance.md"), "utf8"), sections));
  console.log(`Replaced ${only.join(", ")} in docs/performance.md`);
} else {
  writeFileSync(join(ROOT, "docs/performance.md"), report);
  console.log("Wrote docs/performance.md");
}

/**
 * docs/performance.md with `sections` measured again: each one's rows of the summary table and
 * its own part (found by title, or added at the end), with a line saying when it was measured.
 */
function spliceSections(doc: string, measured: Section[]): string {
  let out = doc;
  for (const section of measured) {
    const rows = section.summary.map((row) => `| ${row.join(" | ")} |`);
    const firstCells = new Set(section.summary.map((row) => row[0]));
    const lines = out.split("\n");
    const header = lines.findIndex((line) => line.startsWith("| measure (median) |"));
    let end = header + 2;
    while (end < lines.length && lines[end]!.startsWith("|")) end++;
    const kept = lines.slice(header + 2, end).filter((line) => !firstCells.has(line.split(" | ")[0]!.slice(2)));
    lines.splice(header + 2, end - header - 2, ...kept, ...rows);
    out = lines.join("\n");
    const when = `Measured alone (\`npm run bench -- --only\`): ${new Date().toISOString()}, commit \`${git("rev-parse", "--short", "HEAD")}\`${dirty ? " with uncommitted changes" : ""}; load average before ${load(loadBefore)}, after ${load(loadavg())}.`;
    const body = `${section.note}\n\n${section.tables.map(table).join("\n\n")}\n\n${when}\n`;
    const heading = new RegExp(`^## (\\d+)\\. ${section.title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\n`, "m");
    const found = heading.exec(out);
    if (found) {
      const start = found.index;
      const next = out.indexOf("\n## ", start + 1);
      out = `${out.slice(0, start)}## ${found[1]}. ${section.title}\n\n${body}${next < 0 ? "" : out.slice(next)}`;
    } else {
      const numbers = [...out.matchAll(/^## (\d+)\. /gm)].map((m) => Number(m[1]));
      out = `${out.trimEnd()}\n\n## ${Math.max(0, ...numbers) + 1}. ${section.title}\n\n${body}`;
    }
  }
  return out;
}
