/**
 * What a contract change does to code that calls the SDK.
 *
 *   npm run contract:diff -- --base <git-ref | file> [--head <file>] [--json] [--changelog [--version x.y.z]] [--keep-probe]
 *
 * Compares the base contract (a file, or `openapi/store-admin.yaml` at a git ref) with the
 * head (default: the working `openapi/store-admin.yaml`), classifies every change by what
 * it does to requests and to responses (scripts/contract-diff/kinds.ts), proves its effect
 * on the types by compiling code written for the base against the head's generated types
 * (scripts/contract-diff/probe.ts), and prints a report grouped by operation, or with
 * `--json` one JSON object `{ bump, changes }` on stdout (logs on stderr), or with
 * `--changelog` a draft of the CHANGELOG.md sections to put under `## [Unreleased]` (no dated
 * heading: only `npm run release` dates a version), for the version the change needs.
 *
 * See docs/contract-diff.md.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CONTRACT_PATH, parseContract, readContract } from "./contract-diff/document.js";
import { compareVersions, nextVersion, parseVersion } from "./contract-diff/release.js";

// Paths and git refs are read relative to where the command runs (npm runs it in the repository root).
const root = process.cwd();

const USAGE =
  "usage: npm run contract:diff -- --base <git-ref | file> [--head <file>] [--json] [--changelog [--version x.y.z]] [--keep-probe]";

interface Options {
  base: string;
  head: string;
  json: boolean;
  changelog: boolean;
  version?: string;
  keepProbe: boolean;
}

function parseArgs(argv: string[]): Options {
  const options: Partial<Options> = { json: false, changelog: false, keepProbe: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined || next.startsWith("--")) throw new Error(`${arg} needs a value.\n${USAGE}`);
      return next;
    };
    if (arg === "--base") options.base = value();
    else if (arg === "--head") options.head = value();
    else if (arg === "--version") options.version = value();
    else if (arg === "--json") options.json = true;
    else if (arg === "--changelog") options.changelog = true;
    else if (arg === "--keep-probe") options.keepProbe = true;
    else throw new Error(`Unknown argument "${arg}".\n${USAGE}`);
  }
  if (options.base === undefined)
    throw new Error(
      `--base is required: the released contract, as a git ref (e.g. main) or a file (e.g. openapi/released/store-admin-0.1.0.yaml).\n${USAGE}`,
    );
  if (options.json && options.changelog)
    throw new Error(`--json and --changelog each print one thing on stdout; choose one.\n${USAGE}`);
  if (options.version !== undefined) parseVersion(options.version);
  return { head: CONTRACT_PATH, ...options } as Options;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const started = Date.now();
  // Loaded after the arguments are checked: TypeScript and openapi-typescript take seconds to load.
  const { diffContracts, toChangelog, toJson, toText } = await import("./contract-diff/report.js");
  const base = readContract(options.base, root);
  const head = readContract(options.head, root);
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const result = await diffContracts(parseContract(base.text, base.source), parseContract(head.text, head.source), {
    keepProbe: options.keepProbe,
    log,
  });
  log(`Diffed ${base.source} → ${head.source} in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  // The version the base was released as: from the snapshot's name, else package.json's.
  const releasedVersion = (): string =>
    /store-admin-(\d+\.\d+\.\d+)\.yaml$/.exec(base.source)?.[1] ??
    (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
  if (options.json) {
    process.stdout.write(`${JSON.stringify(toJson(result), null, 2)}\n`);
  } else if (options.changelog) {
    const released = releasedVersion();
    const required = nextVersion(released, result.bump);
    if (options.version !== undefined && compareVersions(options.version, required) < 0) {
      throw new Error(
        `--version ${options.version} is too low: after ${released} a ${result.bump} change needs at least ${required}.`,
      );
    }
    process.stdout.write(toChangelog(result, options.version ?? required, base.source, released));
  } else {
    // The report states the version rule when it knows the released version (a snapshot's name, or package.json).
    let released: string | undefined;
    try {
      released = releasedVersion();
    } catch {
      released = undefined;
    }
    process.stdout.write(
      toText(result, { base: base.source, head: head.source, ...(released === undefined ? {} : { released }) }),
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`contract:diff: ${(error as Error).message}\n`);
  process.exit(2);
});
