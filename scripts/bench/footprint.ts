/**
 * What the package costs before any request: its bundle size, its cold start, and the time
 * and type instantiations it adds to an application's type check; and what a maintainer
 * waits for `npm run contract:diff`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { bundleSize, GOAL_GZIP_BYTES, MAIN_ENTRY, staticClosure } from "../size.js";
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
      The figure held is the main entry's code in all: the bundle with every dynamic \`import()\`
      followed (the operation tables, loaded by the first call, and the form bodies' module), but not
      the \`telemetry\` option's module, which loads with that option only; what loads at start is
      the bundle with them left out. Until the layering of \`src/\`, what a call needs only when it
      fails (the error classes and their wording, the redaction of what a server sent, the retry
      policy and the logger's events) loaded behind a dynamic \`import()\` of its own, on the first
      failure: 11,080 B at start and 6,085 B later, 17,165 B in all (measured in one run with the layered code). It now loads with the entry, and
      the machinery that kept it apart (its loader, an \`instanceof\` override, a second retry
      decision for a lost chunk) is gone: ${int(ours.totalGzipBytes)} B in all. Every bundler now loads
      the error path at start and the tables on the first call (test/size.test.ts checks Vite's
      rolldown and esbuild's own \`--splitting\`). The bytes per input are those of the
      same entry bundled from its TypeScript source.`),
    tables: [
      [
        ["bundle", "minified", "min+gz"],
        ["ours, at start", `${int(ours.minBytes)} B`, `${int(ours.gzipBytes)} B`],
        ["bare openapi-fetch", `${int(bare.minBytes)} B`, `${int(bare.gzipBytes)} B`],
        ["ours ÷ bare openapi-fetch", times(ours.minBytes / bare.minBytes), gzipRatio],
        [
          "ours, loaded later: on the first call (`src/client/operation-tables.ts`) or form (`src/client/multipart.ts`)",
          "",
          `${int(ours.lazyGzipBytes)} B`,
        ],
        ["ours in all", "", `**${int(ours.totalGzipBytes)} B**`],
      ],
      [
        ["input of our bundle", "minified bytes"],
        ...ours.inputs.map((input) => [`\`${input.path}\``, int(input.bytes)]),
      ],
    ],
    summary: [
      [
        "code of `import { createStoreAdminClient }` in all, min+gz",
        `${int(ours.totalGzipBytes)} B (at start ${gzipRatio} openapi-fetch's)`,
        `≤ ${int(GOAL_GZIP_BYTES)} B`,
        status(ours.totalGzipBytes <= GOAL_GZIP_BYTES),
      ],
    ],
  };
}

/** ms taken by `await import(specifier)` as the first thing a new `node` process does. */
function coldImportMs(specifier: string): number {
  const code = `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - t);`;
  return Number(execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: ROOT, encoding: "utf8" }));
}

/** A fetch that answers every request with one customer, as the source of a function. */
const STUB_FETCH = `async () => new Response('{"id":42}', { status: 200, headers: { "content-type": "application/json" } })`;

/**
 * ms from the start of a new `node` process's module to the end of its first call, answered by
 * a stub fetch: ours (`store.users.retrieve(42)`: the import, the client, and the first call's
 * load of the operation tables) or bare openapi-fetch's `GET`.
 */
function coldFirstCallMs(which: "ours" | "bare"): number {
  const call =
    which === "ours"
      ? `const { createStoreAdminClient } = await import(${JSON.stringify(pathToFileURL(DIST_ENTRY).href)});
         const store = createStoreAdminClient({ apiUrl: "https://shop.example.com/api/admin", accessToken: "token", fetch: ${STUB_FETCH} });
         await store.users.retrieve(42);`
      : `const { default: createClient } = await import("openapi-fetch");
         const client = createClient({ baseUrl: "https://shop.example.com/api/admin", fetch: ${STUB_FETCH} });
         await client.GET("/users/{id}/", { params: { path: { id: 42 } } });`;
  const code = `const t = performance.now(); ${call} console.log(performance.now() - t);`;
  return Number(execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: ROOT, encoding: "utf8" }));
}

export async function startup(quick: boolean): Promise<Section> {
  const ours = pathToFileURL(DIST_ENTRY).href;
  const runs = quick ? 5 : 25;
  for (let i = 0; i < 3; i++) coldImportMs(ours), coldImportMs("openapi-fetch"); // the file cache
  // The A/A control: openapi-fetch imported a second time in each round, the resolution of the ratio.
  const ms = { ours: [] as number[], bare: [] as number[], control: [] as number[] };
  const first = { ours: [] as number[], bare: [] as number[] };
  for (let i = 0; i < runs; i++) {
    ms.ours.push(coldImportMs(ours)),
      ms.bare.push(coldImportMs("openapi-fetch")),
      ms.control.push(coldImportMs("openapi-fetch"));
    first.ours.push(coldFirstCallMs("ours")), first.bare.push(coldFirstCallMs("bare"));
  }
  const firstRatio = pairedRatio(first.ours, first.bare);
  const fixed = (n: number): string => n.toFixed(1);
  const loadedBytes = [...staticClosure(DIST_ENTRY)].reduce((sum, file) => sum + statSync(file).size, 0);
  const [oursMs, ratio, control] = [
    summarize(ms.ours),
    pairedRatio(ms.ours, ms.bare),
    pairedRatio(ms.control, ms.bare),
  ];
  return {
    title: "Start-up",
    note: oneLine(`
      \`await import()\` as the first thing a new \`node\` process does, ${runs} rounds of three processes:
      the package, openapi-fetch alone, and openapi-fetch again (the A/A control). \`dist/\` is one bundle
      per entry (scripts/build.ts): the main entry reads ${staticClosure(DIST_ENTRY).size} files of ours
      (${int(loadedBytes)} B), where the per-module build read 24. It read 4 files (1.65×) while the
      entries shared the main entry's modules through chunks, 3 (1.57×–1.63× by hand) once the
      failure path had a chunk of its own, and 2 while the other entries imported the main
      entry's modules from the package itself: each file costs about half a millisecond to resolve,
      read and link. That route made the main entry export, untyped, what only the other entries may
      have (the client registry, which reaches the token), so they import it through a subpath
      import private to the package (\`#shared\`). With the failure path loading with the entry
      again, the main entry is a file of re-exports and the chunk of the modules it shares with the door.
      Minifying \`dist/\` saves a little: our two files cost about 5 ms after openapi-fetch's import
      (a two-line pair of files costs 4 ms of module loading), and in 31 interleaved processes
      whitespace alone took 0.6 ms off that, names too 0.7 ms; this ratio read 1.48×–1.65× with
      whitespace minified and 1.58×–1.74× without, in runs minutes apart, so \`dist/\` keeps its
      names and line breaks for reading. Top-level evaluation is about 0.5 ms. A first call
      (the second table, in new processes too): the import, a client, and one call answered by a stub
      fetch, ours through \`store.users.retrieve(42)\`, which also loads the operation tables
      (\`src/client/operation-tables.ts\`, one more file, on the first call), against openapi-fetch's \`GET\`.`),
    tables: [
      [
        ["import", "ms"],
        ["the package (`dist/src/index.js`)", cell(oursMs, fixed)],
        ["openapi-fetch alone", cell(summarize(ms.bare), fixed)],
        ["A/A control: openapi-fetch alone again", cell(summarize(ms.control), fixed)],
        ["ours ÷ openapi-fetch (paired)", cell(ratio, times)],
        ["A/A control ÷ openapi-fetch (ideally 1.00×: the resolution)", cell(control, times)],
      ],
      [
        ["import, client, first call", "ms"],
        ["ours (`store.users.retrieve(42)`)", cell(summarize(first.ours), fixed)],
        ["openapi-fetch alone (`GET`)", cell(summarize(first.bare), fixed)],
        ["ours ÷ openapi-fetch (paired)", cell(firstRatio, times)],
      ],
    ],
    summary: [
      [
        "cold `import()` of the package, ours ÷ openapi-fetch alone",
        `${times(ratio.median)} (${fixed(oursMs.median)} ms; A/A ${times(control.median)})`,
        "≤ 1.5×",
        status(ratio.median <= 1.5),
      ],
    ],
  };
}

/** `tsc --extendedDiagnostics` of `source` against the built `.d.ts`, in `dir`: its figures by name. */
function typecheckOnce(dir: string, name: string, source: string): Record<string, number> {
  const rewritten = source
    .replaceAll('"../../src/index.js"', JSON.stringify(DIST_ENTRY))
    .replaceAll(
      '"../../generated/schema.js"',
      JSON.stringify(DIST_ENTRY.replace(/src\/index\.js$/, "generated/schema.js")),
    )
    .replaceAll('"openapi-fetch"', JSON.stringify(`${ROOT}node_modules/openapi-fetch/dist/index.mjs`));
  writeFileSync(join(dir, `${name}.mts`), rewritten); // .mts: an ES module, like the package
  const compilerOptions = {
    strict: true,
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    skipLibCheck: true,
    noEmit: true,
  };
  const lib = ["ES2022", "DOM", "DOM.Iterable"];
  writeFileSync(
    join(dir, `${name}.json`),
    JSON.stringify({ compilerOptions: { ...compilerOptions, lib, types: [] }, files: [`${name}.mts`] }),
  );
  const tsc = `${ROOT}node_modules/typescript/lib/tsc.js`;
  const output = execFileSync(process.execPath, [tsc, "-p", join(dir, `${name}.json`), "--extendedDiagnostics"], {
    encoding: "utf8",
  });
  return Object.fromEntries(
    [...output.matchAll(/^([A-Za-z ]+):\s+([\d.]+)[sK]?$/gm)].map(([, key, value]) => [key!.trim(), Number(value)]),
  );
}

/** Each file's `--extendedDiagnostics` figures, run after run (after one warm-up run). */
function typecheckRuns(
  files: Record<string, [label: string, source: string]>,
  quick: boolean,
): Record<string, Array<Record<string, number>>> {
  const runs: Record<string, Array<Record<string, number>>> = Object.fromEntries(
    Object.keys(files).map((name) => [name, []]),
  );
  const dir = mkdtempSync(join(tmpdir(), "store-admin-sdk-typecheck-"));
  try {
    typecheckOnce(dir, "ours", files.ours![1]); // the file cache and Node's compile cache
    for (let i = 0; i < (quick ? 1 : 5); i++) {
      for (const [name, [, source]] of Object.entries(files)) runs[name]!.push(typecheckOnce(dir, name, source));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return runs;
}

/** What the type-checking section measures, and how its figures came down. */
function typecheckNote(quick: boolean): string {
  return oneLine(`
    \`tsc --noEmit --extendedDiagnostics\` (\`strict\`, NodeNext, \`skipLibCheck\`) against the built
    \`.d.ts\`, as an application sees them: \`scripts/bench/typecheck-consumer.ts\` calls each of the 20
    operations once, uses a field of each answer and runs one \`paginate()\`; \`typecheck-methods.ts\` does
    the same through the operation methods (\`store.users.retrieve(42)\`); \`typecheck-bare.ts\` makes
    the same 20 calls through bare openapi-fetch over the generated types. ${quick ? 1 : 5} runs each.
    The path-string style cost 1.57× bare openapi-fetch's check time, with 2.40× its instantiations
    (74,139), until the way \`src/core/types.ts\` builds its stricter types changed; the checks themselves
    did not. Found by ablation of the built \`.d.ts\` (instantiations are deterministic; the check time
    follows them), in this order: \`paths\` is an interface over its mapped type, so that a call's
    \`paths[Path]\`, with \`Path\` still generic during inference, is a lookup and not the mapping
    instantiated anew (74,139 → 56,331); a method's \`Init\` drops openapi-fetch's
    \`MaybeOptionalInit<paths[Path], Method>\` constraint, which a call never needs (→ 44,952);
    \`paginate()\` shares the \`GET\` call's types and takes its paths from the generator's
    \`PaginatedPath\` (→ 42,403); \`CallerOperation\` is one homomorphic mapping (→ 37,612); a call's
    \`Init\` is openapi-fetch's \`RequestOptions\` and fetch's \`signal\`, not all of \`FetchOptions\`
    (→ 32,668). Tried and not kept: \`CallOptions\` as a plain \`Pick\` (it loses the \`| undefined\`
    that \`exactOptionalPropertyTypes\` callers need) or by key remapping (more instantiations). What
    the types refuse and allow is unchanged: \`test/types/client.ts\`, the packed consumer under
    TypeScript 5.9 and 7 (its \`@ts-expect-error\` lines and excess-property messages, openapi-react-query
    and swr-openapi taking the client as openapi-fetch's \`Client<paths>\`) and the language-service
    tests.`);
}

/** The files type-checked, by name: a label and the source. */
function typecheckFiles(): Record<string, [label: string, source: string]> {
  const read = (file: string): string => readFileSync(new URL(file, import.meta.url), "utf8");
  return {
    ours: ["ours, 20 operations + paginate", read("./typecheck-consumer.ts")],
    methods: ["ours through the methods, 20 operations + a list", read("./typecheck-methods.ts")],
    bare: ["bare openapi-fetch, 20 operations", read("./typecheck-bare.ts")],
    control: ["A/A control: bare openapi-fetch again", read("./typecheck-bare.ts")],
  };
}

export async function typecheck(quick: boolean): Promise<Section> {
  const files = typecheckFiles();
  const runs = typecheckRuns(files, quick);
  const check = (name: string): Summary => summarize(runs[name]!.map((figures) => figures["Check time"]!));
  const first = (name: string, figure: string): number => runs[name]![0]![figure]!;
  const instantiations = times(first("ours", "Instantiations") / first("bare", "Instantiations"));
  const checkTime = times(check("ours").median / check("bare").median);
  const oursCheck = pairedRatio(
    runs.ours!.map((f) => f["Check time"]!),
    runs.bare!.map((f) => f["Check time"]!),
  );
  const methodsBare = pairedRatio(
    runs.methods!.map((f) => f["Check time"]!),
    runs.bare!.map((f) => f["Check time"]!),
  );
  const controlCheck = pairedRatio(
    runs.control!.map((f) => f["Check time"]!),
    runs.bare!.map((f) => f["Check time"]!),
  );
  // The two styles of our client: methods ÷ path strings (the goal: at most 1.00×).
  const methodsInstantiations = first("methods", "Instantiations") / first("ours", "Instantiations");
  const methodsCheck = pairedRatio(
    runs.methods!.map((f) => f["Check time"]!),
    runs.ours!.map((f) => f["Check time"]!),
  );
  const fixed = (n: number): string => n.toFixed(2);
  return {
    title: "Type-checking cost",
    note: typecheckNote(quick),
    tables: [
      [
        ["file", "check time (s)", "instantiations", "types"],
        ...Object.entries(files).map(([k, [label]]) => [
          label,
          cell(check(k), fixed),
          int(first(k, "Instantiations")),
          int(first(k, "Types")),
        ]),
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
      [
        "type-check of 20 operations, ours ÷ bare openapi-fetch: check time, instantiations",
        `${checkTime}, ${instantiations}`,
        "reported",
        "–",
      ],
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
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(".yaml"))
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
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
    summary: [
      [
        "`npm run contract:diff` of the released and the working contract",
        `${seconds(diffMs.median)} s (${times(ratio.median)} one generate)`,
        "< 30 s",
        status(diffMs.median < 30_000),
      ],
    ],
  };
}
