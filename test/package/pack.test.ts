/**
 * The npm package as published: `npm pack` holds the compiled ESM with its declarations,
 * README, LICENSE, package.json, the contract (so users can run the mock of it) and the docs
 * the README links to, and nothing else; every relative link of the shipped Markdown leads to
 * a file of the tarball; publint and Are The Types Wrong find no problem in the tarball.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeRun, packTarball, ROOT, run, type PackResult } from "./tarball.js";

/** What a user of the package needs; everything else in the tarball is a mistake. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  // The contract, for `prism mock node_modules/store-admin-sdk/openapi/store-admin.yaml`.
  /^openapi\/store-admin\.yaml$/,
  // One bundle per entry (scripts/build.ts) with its source map, and the declarations of every module.
  /^dist\/src\/(?:[\w-]+\/)*(index|main)\.js(\.map)?$/,
  // Code mode's worker thread (the type check and the sandbox run off the MCP server's thread): a bundle of its own.
  /^dist\/src\/mcp\/code\/worker\.js(\.map)?$/,
  /^dist\/(src|generated)\/(?:[\w-]+\/)*[\w.-]+\.d\.ts$/,
  // The code two entries share, so that their classes are one (`instanceof` across subpaths),
  // and what the other entries import from the main entry's modules (package.json `imports`).
  /^dist\/chunks\/[\w-]+\.js(\.map)?$/,
  /^dist\/src\/shared\.js(\.map)?$/,
  // The response validators' loaders, built with the testing kit, which `validateResponses` imports (package.json `imports`).
  /^dist\/generated\/validators\/responses\.js(\.map)?$/,
  // The docs the README links to, so that its links work in node_modules/store-admin-sdk/.
  /^docs\/(guide|reliability|performance|architecture|contract-diff|bulk|mcp)\.md$/,
  /^CHANGELOG\.md$/,
  /^docs\/samples\/\w+\.ts$/,
];
const REQUIRED = [
  "package.json",
  "README.md",
  "LICENSE",
  "openapi/store-admin.yaml",
  "dist/src/index.js",
  "dist/src/index.d.ts",
  "docs/guide.md",
  "docs/reliability.md",
  "dist/src/bulk/index.js",
  "dist/src/bulk/index.d.ts",
  "dist/src/cli/main.js",
  "docs/bulk.md",
  "dist/src/shared.js",
  "dist/src/mcp/index.js",
  "dist/src/mcp/index.d.ts",
  "docs/mcp.md",
];
/**
 * Above today's size (~374 kB: the testing kit's compiled validators and examples are ~55 kB
 * gzipped, the contract, docs and samples ~80 kB, the bulk runner, its command and the BullMQ
 * queue ~25 kB, the source maps of the bundles ~22 kB; the command's input checks added ~6.5 kB
 * with their docs, the ledger's lock (proper-lockfile's chunk), call binding and their docs
 * ~14 kB, to ~318 kB; the production features (the telemetry module and its declarations, the
 * mock command, their guide sections) ~16 kB, the MCP server (its generated tools, their source
 * map and docs/mcp.md) ~22 kB, serving any contract (form bodies in a chunk of their own, the
 * rules in docs/architecture.md) ~6 kB, the budget's and the queue's guarantees in the docs and
 * the bench's new figures ~12 kB more, to ~374 kB). The kit's validators split into one module
 * per operation, loaded on its first request (docs/architecture.md, "Cost per operation"):
 * Ajv's standalone code compiles a component schema into the module of each root that uses
 * it, and esbuild splits by module, so a shared component (`Order`) is in each of its
 * operations' modules: ~80 kB gzipped instead of ~45 kB, less the source maps those chunks no
 * longer carry (~36 kB); with the queue's trace docs, ~408 kB. The command's hardening against
 * hostile files and servers (output files written through a rename, the mock's log, grace and
 * body limits: dist/src/cli/main.js +9 kB, its map +6 kB) with its docs and changelog lines, and
 * the MCP and testing kit's refusals of undeclared parameters, added ~12 kB: ~420 kB. The MCP
 * result cap over the whole result (src/mcp/result-size.ts), the remembered tokens, the mock's
 * depth limit, and the docs and changelog lines of those, of the release gate, of the generators'
 * encoders and of the URL rule for method names added ~10 kB: 430,182 B measured. The long
 * functions split into named steps (13 small modules of one concern each in src/bulk,
 * src/bulk/bullmq and src/cli, each with its declarations) added ~7 kB: 433,453 B before, 440,333 B
 * after. The MCP server's dynamic mode (the operations' search with its synonym table, the
 * describe and call tools, example calls, one call path for both modes: ~23 kB of code, its
 * source map and declarations) with its docs added ~16 kB: 456,760 B. The precompiled validators
 * moved below the kit (generated/validators/: each operation's response validators a module of
 * their own, so a component both directions use is compiled into two modules of the operation,
 * not one) and store-admin-sdk/schemas (one module per named schema in its view, 68 for our
 * contract, each holding the components its schema reaches, so that one schema loads alone:
 * `Order`'s holds most of the contract) added ~103 kB: 565,829 B with the changes merged beside
 * them (the mock that stops with its launcher, the progress line, their docs). The MCP server's
 * code mode (its chunk, ~21 kB gzipped, most of it the declarations an agent's code is checked
 * against, generated from the SDK's own types; the sandbox, host and type check; their maps and
 * declarations) with its docs added ~37 kB: 602,211 B. Naming the per-operation and per-schema
 * modules by a stable key (`getuser_e28ebfde`, scripts/file-keys.ts) instead of the operationId
 * or a number cost ~15 kB compressed (604,196 → 619,239 B, both measured on this machine; only
 * 7.6 kB unpacked): a hash does not compress, and the schemas' modules no longer sort apart from
 * the operations'. The plugins entry (its chunks, maps and declarations, the hook chain's, the
 * guide's Plugins section) added ~19 kB. * store-admin-sdk/oauth (its bundle, map and declarations, ~15 kB gzipped) with the guide's
 * "Partner apps" (~3 kB) added ~19 kB; code mode's worker bundle (the type check and the sandbox
 * off the server's thread), `select` and the sandbox's error classes brought it to 689,050 B
 * (measured after the merge). A jump past it means something unintended got packed.
 */
const MAX_TARBALL_BYTES = 700_000;

const PACK_TIMEOUT_MS = 300_000;

let workDir: string;
let pack: PackResult;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "store-admin-sdk-pack-"));
  pack = await packTarball(workDir);
}, PACK_TIMEOUT_MS);

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("npm pack", () => {
  it("holds dist/ (ESM + .d.ts), README.md, LICENSE, package.json and the contract, and nothing else", () => {
    const paths = pack.files.map((file) => file.path).sort();
    const unexpected = paths.filter((path) => !ALLOWED.some((pattern) => pattern.test(path)));
    expect(unexpected, "files users do not need (check `files` in package.json and tsconfig.build.json)").toEqual([]);
    expect(
      REQUIRED.filter((path) => !paths.includes(path)),
      "files the package must contain",
    ).toEqual([]);

    const entries = paths.filter((path) => path.startsWith("dist/src/") && path.endsWith(".js"));
    expect(
      entries.filter((path) => !paths.includes(path.replace(/\.js$/, ".d.ts"))),
      "entries without declarations",
    ).toEqual([]);
    // But the chunks of the generated validator modules, generated minified (scripts/build.ts): the
    // kit's per-operation modules, each operation's response validators, each named schema's.
    const modules = ["testing/ops", "validators/responses", "validators/schemas"].flatMap((dir) =>
      readdirSync(join(ROOT, "generated", dir)).map((name) => name.replace(/\.ts$/, "")),
    );
    const names = new Set(modules);
    // A module the kit and the response validators' loaders both import is a chunk named by esbuild, whose comment names its one module.
    const perModule = (path: string) =>
      names.has(/^dist\/chunks\/([\w$]+)-\w+\.js$/.exec(path)?.[1] ?? "") ||
      /\n\/\/ generated\/validators\/responses\/\w+\.ts\n/.test(readFileSync(join(ROOT, path), "utf8").slice(0, 400));
    expect(
      paths.filter((path) => path.endsWith(".js") && !paths.includes(`${path}.map`) && !perModule(path)),
      "bundles without source maps",
    ).toEqual([]);
    // A chunk named after each (an operation's responses are in its kit module's chunk, until another entry loads them alone:
    // `validateResponses`' loaders do, and then their code is a chunk the two share, named by esbuild).
    const named = paths.filter(perModule).filter((path) => !/^dist\/chunks\/chunk-/.test(path));
    expect(
      new Set(named.map((path) => /^dist\/chunks\/([\w$]+)-/.exec(path)![1])),
      "a chunk per generated validator module",
    ).toEqual(names);
    expect(
      paths.some((path) => path.startsWith("dist/generated/")),
      "dist/generated/ (imported by the declarations)",
    ).toBe(true);
  });

  it("packs every entry of `exports` and `bin` with its declarations (scripts/build.ts ENTRIES builds them)", async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as {
      exports: Record<string, string | { types: string; default: string }>;
      bin: Record<string, string>;
    };
    const paths = new Set(pack.files.map((file) => file.path));
    const wanted = [
      ...Object.values(manifest.exports).flatMap((target) =>
        typeof target === "string" ? [] : [target.default, target.types],
      ),
      ...Object.values(manifest.bin),
    ].map((path) => path.replace(/^\.\//, ""));
    expect(wanted.length).toBeGreaterThanOrEqual(7);
    expect(wanted.filter((path) => !paths.has(path))).toEqual([]);
  });

  it("packs no leftover of an earlier build: every compiled file has its source", () => {
    const orphans = pack.files
      .map((file) => file.path)
      .filter((path) => path.startsWith("dist/") && !path.startsWith("dist/chunks/"))
      .filter((path) => !existsSync(join(ROOT, path.replace(/^dist\//, "").replace(/\.js(\.map)?$|\.d\.ts$/, ".ts"))));
    expect(orphans, "dist/ files whose source is gone: delete dist/ and build again").toEqual([]);
  });

  it(`stays small (under ${MAX_TARBALL_BYTES / 1000} kB compressed)`, () => {
    console.info(
      `[pack] ${pack.tarball.split("/").pop()}: ${(pack.size / 1024).toFixed(1)} KiB compressed, ` +
        `${(pack.unpackedSize / 1024).toFixed(1)} KiB unpacked, ${pack.files.length} files`,
    );
    expect(pack.size).toBeLessThan(MAX_TARBALL_BYTES);
  });
});

describe("the docs in the tarball", () => {
  it("link only to files and headings the tarball holds (README → guide → reliability → performance, samples)", async () => {
    const extracted = join(workDir, "extracted");
    await mkdir(extracted);
    const untar = await run("tar", ["-xzf", pack.tarball, "-C", extracted], { timeoutMs: 60_000 });
    expect(untar.code, describeRun("tar -xzf", untar)).toBe(0);
    const root = join(extracted, "package");
    const markdown = pack.files.map((file) => file.path).filter((path) => path.endsWith(".md"));
    expect(markdown).toEqual(expect.arrayContaining(["README.md", "docs/guide.md", "docs/reliability.md"]));
    const anchorsOf = (text: string) =>
      new Set(
        [...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
          m[1]!
            .trim()
            .toLowerCase()
            .replace(/[^\p{L}\p{N}\s-]/gu, "")
            .replace(/\s/g, "-"),
        ),
      );
    const broken: string[] = [];
    let checked = 0;
    for (const file of markdown) {
      const text = await readFile(join(root, file), "utf8");
      // Links outside code blocks: [text](target)
      const prose = text.replace(/^```[\s\S]*?^```/gm, "");
      for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue; // https:, mailto:
        const [path, anchor] = target!.split("#") as [string, string | undefined];
        const resolved = path === "" ? file : posix.join(posix.dirname(file), path);
        checked += 1;
        if (!existsSync(join(root, resolved))) {
          broken.push(`${file}: ${target} (${resolved} is not in the tarball)`);
        } else if (anchor && !anchorsOf(await readFile(join(root, resolved), "utf8")).has(anchor)) {
          broken.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(8);
  });
});

describe("package linters on the tarball", () => {
  it("publint reports nothing, not even a suggestion", async () => {
    const tarball = await readFile(pack.tarball);
    const { messages, pkg } = await publint({
      pack: {
        tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) as ArrayBuffer,
      },
      level: "suggestion",
      strict: true,
    });
    const report = messages.map((message) => `${message.type}: ${formatMessage(message, pkg, { color: false })}`);
    expect(report).toEqual([]);
  });

  it("Are The Types Wrong (esm-only profile) finds no problem", async () => {
    // The package is ESM only (`"type": "module"`, no `require` condition): the esm-only
    // profile ignores the node10 and node16-from-CJS resolutions, where an ESM-only package
    // cannot be loaded by `require()` with types, by design.
    const attw = join(ROOT, "node_modules", ".bin", "attw");
    const result = await run(attw, [pack.tarball, "--profile", "esm-only", "--format", "json", "--no-color"], {
      timeoutMs: 120_000,
    });
    expect(result.code, describeRun("attw --profile esm-only", result)).toBe(0);
    const report = JSON.parse(result.stdout) as {
      analysis: { types: { kind: string } | false; problems: Array<{ kind: string; resolutionKind?: string }> };
    };
    expect(report.analysis.types, "the package ships its own types").toMatchObject({ kind: "included" });
    const ignored = new Set(["node10", "node16-cjs"]);
    const problems = report.analysis.problems.filter(
      (problem) => !problem.resolutionKind || !ignored.has(problem.resolutionKind),
    );
    expect(problems).toEqual([]);
  }, 120_000);
});
