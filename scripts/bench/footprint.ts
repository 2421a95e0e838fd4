/**
 * What the package costs before any request: its bundle size, its cold start, and the time
 * and type instantiations it adds to an application's type check; and what a maintainer
 * waits for `npm run contract:diff`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { bundleSize, GOAL_GZIP_BYTES, MAIN_ENTRY } from "../size.js";
import { DIST_ENTRY, ROOT } from "./fixtures.js";
import { cell, int, oneLine, pairedRatio, status, summarize, times, type Section, type Summary } from "./measure.js";

export async function size(): Promise<Section> {
  const ours = await bundleSize();
  const bare = await bundleSize("openapi-fetch", ["default as createClient"]);
  const gzipRatio = times(ours.gzipBytes / bare.gzipBytes);
  return {
    title: "Bundle size",
    note: oneLine(`
      \`scripts/size.ts\` (\`npm test\` runs it too, and holds a ceiling): an esbuild bundle (minified,
      ESM, platform neutral) of \`import { createStoreAdminClient }\` from the built \`${MAIN_ENTRY}\`,
      openapi-fetch included, gzipped at level 9; the same for bare openapi-fetch's \`createClient\`.
      The client's hardening took it from 10,399 B to about 12.6 kB (ceiling raised from 10,500 to
      12,700 B): the decoded-size cap on response bodies, the checks of the \`headers\` option and of
      per-call options (each refusal names what is wrong), the refusal of operations outside the
      contract and of a body on a GET, query-key encoding, redaction of every header, key and value a
      server sends, the bounded wait on a token function and the wording of the new errors. Each
      enforces a guarantee of docs/reliability.md with a test under \`test/faults/\`; most of the
      bytes are messages. The operation methods (\`store.users.retrieve(42)\`: the generated table
      and \`src/methods.ts\`) added 933 B (ceiling raised from 12,700 to 13,633 B). The success path's
      speed-ups of §§ 2–3 added 54 B (a body's chunks joined instead of read through a \`Blob\`, 40 B; a
      2xx not asking the retry policy, 11 B; one query serializer per client, 2 B; ceiling raised from
      13,680 to 13,735 B). Since \`dist/\` is
      bundled per entry (scripts/build.ts), the bytes per input are those of the same entry bundled from
      its TypeScript source. Where the goal of 8 kB stands, measured by ablation on the minified bundle:
      emptying every message in it (every string or template part of 12 characters or more that is
      not a name: about 6.1 kB of 36.9 kB minified) leaves about 11.45 kB min+gz, so shorter wording
      alone cannot reach 8 kB; and rewording does not move the gzip figure much (a phrase repeated in
      several messages is stored once: building the two base-URL messages from shared parts made the
      bundle 19 B larger). The rest is the code that keeps the guarantees of docs/reliability.md.`),
    tables: [
      [
        ["bundle", "minified", "min+gz"],
        ["ours", `${int(ours.minBytes)} B`, `**${int(ours.gzipBytes)} B**`],
        ["bare openapi-fetch", `${int(bare.minBytes)} B`, `${int(bare.gzipBytes)} B`],
        ["ours ÷ bare openapi-fetch", times(ours.minBytes / bare.minBytes), gzipRatio],
      ],
      [["input of our bundle", "minified bytes"], ...ours.inputs.map((input) => [`\`${input.path}\``, int(input.bytes)])],
    ],
    summary: [
      [
        "bundle of `import { createStoreAdminClient }`, min+gz",
        `${int(ours.gzipBytes)} B (${gzipRatio} openapi-fetch's)`,
        `≤ ${int(GOAL_GZIP_BYTES)} B`,
        status(ours.gzipBytes <= GOAL_GZIP_BYTES),
      ],
    ],
  };
}

/** ms taken by `await import(specifier)` as the first thing a new `node` process does. */
function coldImportMs(specifier: string): number {
  const code = `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - t);`;
  return Number(execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: ROOT, encoding: "utf8" }));
}

export async function startup(quick: boolean): Promise<Section> {
  const ours = pathToFileURL(DIST_ENTRY).href;
  const runs = quick ? 5 : 25;
  for (let i = 0; i < 3; i++) coldImportMs(ours), coldImportMs("openapi-fetch"); // the file cache
  // The A/A control: openapi-fetch imported a second time in each round, the resolution of the ratio.
  const ms = { ours: [] as number[], bare: [] as number[], control: [] as number[] };
  for (let i = 0; i < runs; i++) {
    ms.ours.push(coldImportMs(ours)), ms.bare.push(coldImportMs("openapi-fetch")), ms.control.push(coldImportMs("openapi-fetch"));
  }
  const fixed = (n: number): string => n.toFixed(1);
  const [oursMs, ratio, control] = [summarize(ms.ours), pairedRatio(ms.ours, ms.bare), pairedRatio(ms.control, ms.bare)];
  return {
    title: "Start-up",
    note: oneLine(`
      \`await import()\` as the first thing a new \`node\` process does, ${runs} rounds of three processes:
      the package, openapi-fetch alone, and openapi-fetch again (the A/A control). \`dist/\` is one bundle
      per entry with the code entries share in chunks (scripts/build.ts): the main entry reads 4 files
      of ours, where the per-module build read 24.`),
    tables: [
      [
        ["import", "ms"],
        ["the package (`dist/src/index.js`)", cell(oursMs, fixed)],
        ["openapi-fetch alone", cell(summarize(ms.bare), fixed)],
        ["A/A control: openapi-fetch alone again", cell(summarize(ms.control), fixed)],
        ["ours ÷ openapi-fetch (paired)", cell(ratio, times)],
        ["A/A control ÷ openapi-fetch (ideally 1.00×: the resolution)", cell(control, times)],
      ],
    ],
    summary: [
      ["cold `import()` of the package, ours ÷ openapi-fetch alone", `${times(ratio.median)} (${fixed(oursMs.median)} ms; A/A ${times(control.median)})`, "≤ 1.5×", status(ratio.median <= 1.5)],
    ],
  };
}

/** `tsc --extendedDiagnostics` of `source` against the built `.d.ts`, in `dir`: its figures by name. */
function typecheckOnce(dir: string, name: string, source: string): Record<string, number> {
  const rewritten = source
    .replaceAll('"../../src/index.js"', JSON.stringify(DIST_ENTRY))
    .replaceAll('"../../generated/schema.js"', JSON.stringify(DIST_ENTRY.replace(/src\/index\.js$/, "generated/schema.js")))
    .replaceAll('"openapi-fetch"', JSON.stringify(`${ROOT}node_modules/openapi-fetch/dist/index.mjs`));
  writeFileSync(join(dir, `${name}.mts`), rewritten); // .mts: an ES module, like the package
  const compilerOptions = { strict: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", skipLibCheck: true, noEmit: true };
  const lib = ["ES2022", "DOM", "DOM.Iterable"];
  writeFileSync(join(dir, `${name}.json`), JSON.stringify({ compilerOptions: { ...compilerOptions, lib, types: [] }, files: [`${name}.mts`] }));
  const tsc = `${ROOT}node_modules/typescript/lib/tsc.js`;
  const output = execFileSync(process.execPath, [tsc, "-p", join(dir, `${name}.json`), "--extendedDiagnostics"], { encoding: "utf8" });
  return Object.fromEntries([...output.matchAll(/^([A-Za-z ]+):\s+([\d.]+)[sK]?$/gm)].map(([, key, value]) => [key!.trim(), Number(value)]));
}

export async function typecheck(quick: boolean): Promise<Section> {
  const read = (file: string): string => readFileSync(new URL(file, import.meta.url), "utf8");
  const files: Record<string, [label: string, source: string]> = {
    ours: ["ours, 20 operations + paginate", read("./typecheck-consumer.ts")],
    methods: ["ours through the methods, 20 operations + a list", read("./typecheck-methods.ts")],
    bare: ["bare openapi-fetch, 20 operations", read("./typecheck-bare.ts")],
    control: ["A/A control: bare openapi-fetch again", read("./typecheck-bare.ts")],
  };
  const runs: Record<string, Array<Record<string, number>>> = { ours: [], methods: [], bare: [], control: [] };
  const dir = mkdtempSync(join(tmpdir(), "store-admin-sdk-typecheck-"));
  try {
    typecheckOnce(dir, "ours", files.ours![1]); // the file cache and Node's compile cache
    for (let i = 0; i < (quick ? 1 : 5); i++) {
      for (const [name, [, source]] of Object.entries(files)) runs[name]!.push(typecheckOnce(dir, name, source));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const check = (name: string): Summary => summarize(runs[name]!.map((figures) => figures["Check time"]!));
  const first = (name: string, figure: string): number => runs[name]![0]![figure]!;
  const instantiations = times(first("ours", "Instantiations") / first("bare", "Instantiations"));
  const checkTime = times(check("ours").median / check("bare").median);
  const oursCheck = pairedRatio(runs.ours!.map((f) => f["Check time"]!), runs.bare!.map((f) => f["Check time"]!));
  const methodsBare = pairedRatio(runs.methods!.map((f) => f["Check time"]!), runs.bare!.map((f) => f["Check time"]!));
  const controlCheck = pairedRatio(runs.control!.map((f) => f["Check time"]!), runs.bare!.map((f) => f["Check time"]!));
  // The two styles of our client: methods ÷ path strings (the goal: at most 1.00×).
  const methodsInstantiations = first("methods", "Instantiations") / first("ours", "Instantiations");
  const methodsCheck = pairedRatio(runs.methods!.map((f) => f["Check time"]!), runs.ours!.map((f) => f["Check time"]!));
  const fixed = (n: number): string => n.toFixed(2);
  return {
    title: "Type-checking cost",
    note: oneLine(`
      \`tsc --noEmit --extendedDiagnostics\` (\`strict\`, NodeNext, \`skipLibCheck\`) against the built
      \`.d.ts\`, as an application sees them: \`scripts/bench/typecheck-consumer.ts\` calls each of the 20
      operations once, uses a field of each answer and runs one \`paginate()\`; \`typecheck-methods.ts\` does
      the same through the operation methods (\`store.users.retrieve(42)\`); \`typecheck-bare.ts\` makes
      the same 20 calls through bare openapi-fetch over the generated types. ${quick ? 1 : 5} runs each.`),
    tables: [
      [
        ["file", "check time (s)", "instantiations", "types"],
        ...Object.entries(files).map(([k, [label]]) => [label, cell(check(k), fixed), int(first(k, "Instantiations")), int(first(k, "Types"))]),
      ],
      [
        ["ours ÷ bare openapi-fetch", "ratio"],
        ["instantiations", instantiations],
        ["check time (medians)", checkTime],
        ["check time, path strings ÷ bare (paired per run; goal ≤ 1.25×)", cell(oursCheck, times)],
        ["check time, methods ÷ bare (paired per run; goal ≤ 1.25×)", cell(methodsBare, times)],
        ["check time, A/A control ÷ bare (ideally 1.00×: the resolution)", cell(controlCheck, times)],
      ],
      [
        ["methods ÷ path strings (ours)", "ratio"],
        ["instantiations", times(methodsInstantiations)],
        ["check time (paired per run)", cell(methodsCheck, times)],
      ],
    ],
    summary: [
      ["type-check of 20 operations, ours ÷ bare openapi-fetch: check time, instantiations", `${checkTime}, ${instantiations}`, "reported", "–"],
      [
        "type-check of 20 operations, check time ÷ bare openapi-fetch (paired): path strings, methods; A/A control",
        `${times(oursCheck.median)}, ${times(methodsBare.median)}; A/A ${times(controlCheck.median)}`,
        "≤ 1.25×",
        status(oursCheck.median <= 1.25 && methodsBare.median <= 1.25),
      ],
      [
        "type-check of 20 operations, methods ÷ path strings: check time, instantiations",
        `${times(methodsCheck.median)}, ${times(methodsInstantiations)}`,
        "≤ 1.00×",
        status(methodsCheck.median <= 1 && methodsInstantiations <= 1),
      ],
    ],
  };
}

/** Wall-clock ms of one run of `node --import tsx <args>` in the project root. */
function scriptMs(args: string[]): number {
  const started = performance.now();
  execFileSync(process.execPath, ["--import", "tsx", ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "ignore"] });
  return performance.now() - started;
}

/**
 * The contract to diff against: the oldest released snapshot. The newest is what the
 * release check diffs against, but right after a release it equals the working contract and
 * the diff has nothing to do; the oldest gives the largest diff (every operation probed).
 */
function releasedContract(): string {
  const dir = join(ROOT, "openapi", "released");
  const files = readdirSync(dir).filter((name) => name.endsWith(".yaml")).sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  return join("openapi", "released", files[0]!);
}

export async function contractDiff(quick: boolean): Promise<Section> {
  const base = releasedContract();
  const diff = ["scripts/contract-diff.ts", "--base", base, "--json"];
  // Baseline: regenerating and checking the types once (`npm run generate:check`'s first step).
  const generate = ["scripts/generate.ts", "--check"];
  const runs = quick ? 1 : 3;
  const ms = { diff: [] as number[], generate: [] as number[] };
  for (let i = 0; i < runs; i++) ms.diff.push(scriptMs(diff)), ms.generate.push(scriptMs(generate));
  const seconds = (n: number): string => (n / 1000).toFixed(1);
  const [diffMs, ratio] = [summarize(ms.diff), pairedRatio(ms.diff, ms.generate)];
  return {
    title: "Contract diff",
    note: oneLine(`
      \`npm run contract:diff -- --base ${base} --json\` against the working contract, probe
      generation and compile included, ${runs} runs, alternating with the baseline
      \`tsx scripts/generate.ts --check\` (generating the types from the contract once).`),
    tables: [
      [
        ["command", "wall-clock s"],
        ["contract diff, released ÷ working contract", cell(diffMs, seconds)],
        ["generate --check (baseline)", cell(summarize(ms.generate), seconds)],
        ["diff ÷ generate (paired)", cell(ratio, times)],
      ],
    ],
    summary: [["`npm run contract:diff` of the released and the working contract", `${seconds(diffMs.median)} s (${times(ratio.median)} one generate)`, "< 30 s", status(diffMs.median < 30_000)]],
  };
}
