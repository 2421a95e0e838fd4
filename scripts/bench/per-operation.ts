/**
 * What each operation of the contract costs: synthetic contracts of 20, 200 and 1,000
 * operations (synthetic-contract.ts), each generated and built in a copy of the project
 * (synthetic-build.ts), measured as scripts/size.ts measures ours; and the times a
 * maintainer and a user wait for (generate, the docs build, a consumer's type check), which
 * must grow at most linearly. The byte goals are also tests (test/size-per-operation.test.ts).
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./fixtures.js";
import { int, oneLine, status, type Section } from "./measure.js";
import { perOperation, syntheticBuild, type SyntheticFigures } from "./synthetic-build.js";

const SIZES = [20, 200, 1000] as const;
/** Goals, min+gz bytes per added operation of what each entry loads at start. */
const GOALS = { main: 6, testing: 40 };

const TSX = join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const TSC = join(ROOT, "node_modules", "typescript", "lib", "tsc.js");

const timed = (work: () => void): number => {
  const started = performance.now();
  work();
  return performance.now() - started;
};

/** The docs build and a consumer's type check in the project copy of `figures`, in ms. */
function userTimes(figures: SyntheticFigures): { docs: number; typecheck: number } {
  const { dir } = figures;
  for (const file of ["docs/reference-intro.md", "openapi/redocly.yaml"]) cpSync(join(ROOT, file), join(dir, file));
  const docs = timed(() =>
    execFileSync(process.execPath, [TSX, join(dir, "scripts", "docs.ts")], { cwd: dir, stdio: "pipe" }),
  );
  mkdirSync(join(dir, "consumer"), { recursive: true });
  writeFileSync(
    join(dir, "consumer", "app.ts"),
    `import { createStoreAdminClient } from "../src/index.js";\nexport const store = createStoreAdminClient({ baseUrl: "https://shop.example.com", accessToken: "token" });\n`,
  );
  const flags = [
    "--noEmit",
    "--strict",
    "--skipLibCheck",
    "--target",
    "es2022",
    "--module",
    "nodenext",
    "--moduleResolution",
    "nodenext",
    "--types",
    "node",
  ];
  const typecheck = timed(() =>
    execFileSync(process.execPath, [TSC, ...flags, join(dir, "consumer", "app.ts")], { cwd: dir, stdio: "pipe" }),
  );
  return { docs, typecheck };
}

export async function costPerOperation(quick: boolean): Promise<Section> {
  const sizes = quick ? SIZES.slice(0, 2) : SIZES;
  const builds: SyntheticFigures[] = [];
  for (const count of sizes) builds.push(await syntheticBuild(count));
  const times = builds.map(userTimes);
  const figures = costFigures(builds, times);
  return {
    title: "Cost per operation",
    note: costNote(sizes, builds),
    tables: costTables(figures),
    summary: costSummary(figures),
  };
}

/** The figures the tables and the summary share: growth per operation, and each wall time's rows. */
function costFigures(builds: SyntheticFigures[], times: Array<ReturnType<typeof userTimes>>) {
  const rest = builds.slice(1);
  const last = builds.at(-1)!;
  const growth = (pick: (f: SyntheticFigures) => number) => rest.map((to, i) => perOperation(builds[i]!, to, pick));
  const mainGrowth = growth((f) => f.main.gzipBytes);
  const testingGrowth = growth((f) => f.testing.gzipBytes);
  const worst = (list: number[]) => Math.max(...list);
  // Linear at most: the time per operation at the largest size is no more than at the one before (with 25 % for noise).
  const perOp = (ms: number, f: SyntheticFigures) => ms / f.operations;
  const linear = (ms: number[]) => perOp(ms.at(-1)!, last) <= 1.25 * perOp(ms.at(-2)!, builds.at(-2)!);
  const timeRows: Array<[string, number[]]> = [
    ["`scripts/generate.ts`", builds.map((f) => f.ms.generate)],
    ["`scripts/generate-testing.ts`", builds.map((f) => f.ms.generateTesting)],
    ["`scripts/generate-mcp.ts`", builds.map((f) => f.ms.generateMcp)],
    ["`scripts/generate-code-mode.ts`", builds.map((f) => f.ms.generateCodeMode)],
    ["the docs build (`scripts/docs.ts`)", times.map((t) => t.docs)],
    ["a consumer's type check (`tsc --noEmit`)", times.map((t) => t.typecheck)],
  ];
  const opsHeader = builds.map((f) => `${int(f.operations)} ops`);
  const stepHeader = rest.map((to, i) => `per op, ${int(builds[i]!.operations)} → ${int(to.operations)}`);
  return { builds, last, growth, mainGrowth, testingGrowth, worst, perOp, linear, timeRows, opsHeader, stepHeader };
}

/** The section's note: the synthetic contracts, what is measured of them, and how. */
function costNote(sizes: readonly number[], builds: SyntheticFigures[]): string {
  const last = builds.at(-1)!;
  return oneLine(`
      Synthetic contracts of ${sizes.map(int).join(", ")} operations (scripts/bench/synthetic-contract.ts, seed 1:
      resources named from a word list, nested resources and actions shaped like this API's paths,
      each operation with its \`x-sdk-method\`, one scope and an example), each generated and built in a
      copy of the project (scripts/bench/synthetic-build.ts), and measured as § "Bundle size" measures
      ours: min+gz of what \`import { createStoreAdminClient }\` and \`import { createMockStore } from
      "store-admin-sdk/testing"\` load at start, and apart what they load later. At start the client
      holds its methods' names (\`generated/method-index.ts\`); the operations' table and the methods'
      rows load on the first call (\`src/client/tables.ts\`). The kit holds the operations' keys and
      a loader each; an operation's facts, examples and precompiled validators
      (\`generated/testing/ops/\`) load on its first request. Times are one run each, wall clock, on
      this shared machine: growth at most linear means the time per operation at ${int(last.operations)}
      operations is no more than at ${int(builds.at(-2)!.operations)} (with 25 % for noise).
      test/size-per-operation.test.ts holds the byte goals at 20 and 1,000 operations.`);
}

/** The section's tables: bytes at start and later per size, then wall times per size. */
function costTables({
  builds,
  last,
  growth,
  mainGrowth,
  testingGrowth,
  perOp,
  linear,
  timeRows,
  opsHeader,
  stepHeader,
}: ReturnType<typeof costFigures>): string[][][] {
  return [
    [
      ["min+gz", ...opsHeader, ...stepHeader, "goal per op"],
      [
        "main entry at start",
        ...builds.map((f) => `${int(f.main.gzipBytes)} B`),
        ...mainGrowth.map((g) => `**${g.toFixed(1)} B**`),
        `≤ ${GOALS.main} B`,
      ],
      [
        "main entry, later (first call, first failure)",
        ...builds.map((f) => `${int(f.main.lazyGzipBytes)} B`),
        ...growth((f) => f.main.lazyGzipBytes).map((g) => `${g.toFixed(1)} B`),
        "",
      ],
      [
        "testing entry at start",
        ...builds.map((f) => `${int(f.testing.gzipBytes)} B`),
        ...testingGrowth.map((g) => `**${g.toFixed(1)} B**`),
        `≤ ${GOALS.testing} B`,
      ],
      [
        "testing entry, later (each operation's module)",
        ...builds.map((f) => `${int(f.testing.lazyGzipBytes)} B`),
        ...growth((f) => f.testing.lazyGzipBytes).map((g) => `${g.toFixed(1)} B`),
        "",
      ],
    ],
    [
      [
        "wall time",
        ...opsHeader,
        `ms per op at ${int(last.operations)} ÷ at ${int(builds.at(-2)!.operations)}`,
        "at most linear",
      ],
      ...timeRows.map(([label, ms]) => [
        label,
        ...ms.map((m) => `${int(m)} ms`),
        (perOp(ms.at(-1)!, last) / perOp(ms.at(-2)!, builds.at(-2)!)).toFixed(2),
        status(linear(ms)),
      ]),
    ],
  ];
}

/** The section's rows in the summary table: bytes per added operation against the goals, and time growth. */
function costSummary({
  mainGrowth,
  testingGrowth,
  worst,
  linear,
  timeRows,
}: ReturnType<typeof costFigures>): string[][] {
  return [
    [
      "main entry at start, min+gz per added operation (synthetic 20/200/1,000)",
      mainGrowth.map((g) => `${g.toFixed(1)} B`).join(" / "),
      `≤ ${GOALS.main} B`,
      status(worst(mainGrowth) <= GOALS.main),
    ],
    [
      "testing entry at start, min+gz per added operation (synthetic 20/200/1,000)",
      testingGrowth.map((g) => `${g.toFixed(1)} B`).join(" / "),
      `≤ ${GOALS.testing} B`,
      status(worst(testingGrowth) <= GOALS.testing),
    ],
    [
      "generate, docs, a consumer's type check: growth with operations",
      timeRows.map(([, ms]) => (linear(ms) ? "linear" : "worse")).join(", "),
      "at most linear",
      status(timeRows.every(([, ms]) => linear(ms))),
    ],
  ];
}
