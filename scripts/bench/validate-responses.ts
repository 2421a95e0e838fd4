/**
 * What the `validateResponses()` plugin costs: the loopback per-call ratio of a client with
 * `validateResponses("report")` against one without the plugin (the same GET and POST as
 * throughput.ts's loopback, whose bodies match the contract, so the figure is the check itself,
 * not a report), and the bytes each operation loads on its first checked call: its response
 * validators' module, plus, once per process, the plugin's own code, the validators' loaders and
 * the Ajv helpers the validators share (all min+gz).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { clientCalls, loadPlugins, ROOT, TOKEN } from "./fixtures.js";
import { onLoopback, sampleGetPost, type GetPostSamples } from "./loopback-ops.js";
import { cell, int, oneLine, pairedRatio, status, summarize, times, type Section, type Summary } from "./measure.js";

const gzip = (code: string | Uint8Array): number => gzipSync(code, { level: 9 }).byteLength;

/** Each operation's response validators as the package's bundler leaves them: its module (the shared helpers apart), min+gz. */
async function firstUseBytes(): Promise<{ perOperation: number[]; helpers: number; check: number; loaders: number }> {
  const dir = join(ROOT, "generated", "validators", "responses");
  const perOperation: number[] = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".ts"))) {
    const result = await build({
      entryPoints: [join(dir, file)],
      bundle: true,
      minify: true,
      format: "esm",
      write: false,
      logLevel: "silent",
      external: ["../chunks/*"],
    });
    perOperation.push(gzip(result.outputFiles[0]!.contents));
  }
  const chunks = join(ROOT, "generated", "validators", "chunks");
  const helpers = readdirSync(chunks).reduce((sum, name) => sum + gzip(readFileSync(join(chunks, name))), 0);
  const minified = async (file: string, external: string[]) =>
    gzip(
      (
        await build({
          entryPoints: [file],
          bundle: true,
          minify: true,
          format: "esm",
          write: false,
          logLevel: "silent",
          external,
        })
      ).outputFiles[0]!.contents,
    );
  return {
    perOperation,
    helpers,
    // The plugin's own module (the entry bundles it with the other plugins), its validators' loaders apart.
    check: await minified(join(ROOT, "src", "plugins", "validate-responses.ts"), ["#shared", "../../generated/*"]),
    loaders: await minified(join(ROOT, "dist", "generated", "validators", "responses.js"), [
      "#shared",
      "#response-validators",
      "./*",
    ]),
  };
}

export async function responseValidation(quick: boolean): Promise<Section> {
  const { validateResponses } = await loadPlugins();
  return onLoopback(async (sdk, apiUrl) => {
    const client = (mode: "without" | "report") =>
      clientCalls(
        sdk.createStoreAdminClient({
          apiUrl,
          accessToken: TOKEN,
          plugins: mode === "without" ? [] : [validateResponses(mode)],
        }),
      );
    const calls = { without: client("without"), report: client("report"), control: client("without") };
    const samples = await sampleGetPost(
      (method) => ({ without: calls.without[method], report: calls.report[method], control: calls.control[method] }),
      { quick, rounds: 40 },
    );
    return validationSection(samples, await firstUseBytes());
  });
}
/** The bytes loaded on first use, as `firstUseBytes` finds them. */
type FirstUseBytes = Awaited<ReturnType<typeof firstUseBytes>>;

/** The section of docs/performance.md: its note, its tables and its summary rows. */
function validationSection(samples: GetPostSamples, bytes: FirstUseBytes): Section {
  const ratio = (a: string, b: string): Record<"get" | "post", Summary> => ({
    get: pairedRatio(samples.get[a]!, samples.get[b]!),
    post: pairedRatio(samples.post[a]!, samples.post[b]!),
  });
  const report = ratio("report", "without");
  const control = ratio("control", "without");
  const perOperation = summarize(bytes.perOperation);
  const met = report.get.median >= 0.9 && report.post.median >= 0.9;
  return {
    title: "Response validation (`validateResponses`)",
    note: oneLine(`
        The GET and POST of § 2 on loopback, through a client with the \`validateResponses("report")\`
        plugin (\`store-admin-sdk/plugins\`) and one without it, and a second client without it as the
        A/A control, 40 rounds in rotating order. The bodies match the contract: the figure is the check
        (a precompiled validator over the parsed body, synchronous once the operation's module is loaded),
        not a report. On first use, an operation loads its response validators' module (its own bytes
        below); the plugin itself, the validators' loaders and the Ajv helpers every validator shares come
        with the plugin's import. The main entry reaches none of it: an application that does not import
        the plugin does not ship it (scripts/size.ts).`),
    tables: validationTables(samples, bytes, report, control, perOperation),
    summary: [
      [
        'loopback, with `validateResponses("report")` ÷ without (ops/s), GET / POST',
        `${times(report.get.median)} / ${times(report.post.median)}`,
        "≥ 0.90×",
        status(met),
      ],
      [
        "bytes an operation's response validators load on first use, median; largest",
        `${int(perOperation.median)} B; ${int(Math.max(...bytes.perOperation))} B`,
        "reported",
        "–",
      ],
    ],
  };
}

/** The section's tables: ops/s per variant, the paired ratios, the bytes loaded on first use. */
function validationTables(
  samples: GetPostSamples,
  bytes: FirstUseBytes,
  report: Record<"get" | "post", Summary>,
  control: Record<"get" | "post", Summary>,
  perOperation: Summary,
): string[][][] {
  return [
    [
      ["variant", "GET ops/s", "POST ops/s"],
      [
        "without the plugin",
        cell(summarize(samples.get["without"]!), int),
        cell(summarize(samples.post["without"]!), int),
      ],
      [
        'with `validateResponses("report")`',
        cell(summarize(samples.get["report"]!), int),
        cell(summarize(samples.post["report"]!), int),
      ],
      [
        "A/A control: without it again",
        cell(summarize(samples.get["control"]!), int),
        cell(summarize(samples.post["control"]!), int),
      ],
    ],
    [
      ["ratio (paired per round)", "GET", "POST"],
      ["with ÷ without (goal ≥ 0.90×)", cell(report.get, times), cell(report.post, times)],
      ["A/A control ÷ without (ideally 1.00×: the resolution)", cell(control.get, times), cell(control.post, times)],
    ],
    [
      ["loaded on first use (min+gz)", "bytes"],
      [
        `an operation's response validators (median of ${bytes.perOperation.length}; largest)`,
        `${int(perOperation.median)} B; ${int(Math.max(...bytes.perOperation))} B`,
      ],
      ["once per process: the plugin (`validateResponses` of `store-admin-sdk/plugins`)", `${int(bytes.check)} B`],
      ["once per process: the operations' loaders (`generated/validators/responses.ts`)", `${int(bytes.loaders)} B`],
      ["once per process: the Ajv helpers the validators share", `${int(bytes.helpers)} B`],
    ],
  ];
}
