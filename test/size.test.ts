/**
 * The main entry's code in all, for `import { createStoreAdminClient }` (scripts/size.ts, after
 * the build), stays within its ceiling, so it cannot grow unnoticed; the errors, the retry
 * policy and the redaction load with the client, and the operation tables behind the first
 * call, in `dist/` as in an application's bundle.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { rolldown } from "rolldown";
import figures from "../figures.json" with { type: "json" };
import { bundleSize, CEILING_GZIP_BYTES, MAIN_ENTRY, staticClosure } from "../scripts/size.js";
import { ROOT } from "./package/tarball.js";

const { goalGzipBytes: GOAL_GZIP_BYTES } = figures.mainEntry;

/** An application that makes a client and calls it. */
const APP = `import { createStoreAdminClient } from "store-admin-sdk";
export const store = createStoreAdminClient({ baseUrl: "https://shop.example.com", accessToken: "token" });
export const user = () => store.users.retrieve(42);`;

/** What every call may need: it loads with the client. */
const WITH_THE_CLIENT = [
  "src/core/errors.ts",
  "src/core/error-messages.ts",
  "src/core/redact.ts",
  "src/core/logger.ts",
  "src/core/retry-policy.ts",
];

describe("bundle size (scripts/size.ts)", () => {
  it(`keeps the code of \`import { createStoreAdminClient }\` within ${CEILING_GZIP_BYTES} B min+gz in all (goal ${GOAL_GZIP_BYTES} B)`, async () => {
    const { minBytes, gzipBytes, totalGzipBytes, lazyGzipBytes, inputs } = await bundleSize();
    // What is measured is the whole client: our built files and openapi-fetch, not an empty bundle.
    const paths = inputs.map((input) => input.path);
    expect(paths).toContain("src/client/client.ts");
    expect(paths).toContain("node_modules/openapi-fetch/dist/index.mjs");
    // The operation methods are part of the client: their names and the function that builds them;
    // what each sends, and every operation's facts, load on the first call (src/client/tables.ts).
    expect(paths).toContain("src/client/methods.ts");
    expect(paths).toContain("generated/method-index.ts");
    for (const table of ["generated/method-table.ts", "generated/operation-facts.ts"])
      expect(paths).not.toContain(table);
    // What a failure needs loads with the client; the tables load later, and are measured in the whole.
    for (const module of WITH_THE_CLIENT) expect(paths).toContain(module);
    expect(lazyGzipBytes).toBeGreaterThan(500);
    expect(totalGzipBytes).toBe(gzipBytes + lazyGzipBytes);
    console.info(
      `bundle: ${totalGzipBytes} B min+gz in all, ${totalGzipBytes - GOAL_GZIP_BYTES} B over the goal: ${gzipBytes} B at start (${minBytes} B minified), ${lazyGzipBytes} B on a first call`,
    );
    expect(
      totalGzipBytes,
      `the code in all is ${totalGzipBytes} B min+gz, over the ceiling; run \`npx tsx scripts/size.ts\` to see its inputs`,
    ).toBeLessThanOrEqual(CEILING_GZIP_BYTES);
  });

  it("an application bundled by Vite's bundler (rolldown, code splitting) loads the operation tables only on the first call", async () => {
    const bundle = await rolldown({
      input: "app",
      logLevel: "silent",
      plugins: [
        { name: "app", resolveId: (id) => (id === "app" ? id : null), load: (id) => (id === "app" ? APP : null) },
      ],
      resolve: { alias: { "store-admin-sdk": join(ROOT, MAIN_ENTRY) } },
    });
    const { output } = await bundle.generate({ format: "esm", minify: true });
    const chunks = output.flatMap((item) => (item.type === "chunk" ? [item] : []));
    const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
    const loadedAtStart = new Set<string>();
    const visit = (name: string): void => {
      if (loadedAtStart.has(name)) return;
      loadedAtStart.add(name);
      for (const next of byName.get(name)!.imports) if (byName.has(next)) visit(next);
    };
    visit(chunks.find((chunk) => chunk.isEntry)!.fileName);
    const code = (names: Iterable<string>) => [...names].map((name) => byName.get(name)!.code).join("\n");
    const later = chunks.filter((chunk) => !loadedAtStart.has(chunk.fileName)).map((chunk) => chunk.fileName);
    const gzip = (names: Iterable<string>) =>
      [...names].reduce((sum, name) => sum + gzipSync(byName.get(name)!.code, { level: 9 }).byteLength, 0);
    console.info(`rolldown: ${gzip(loadedAtStart)} B min+gz at start, ${gzip(later)} B later`);
    // The errors' wording, the retry policy and the redaction load with the client.
    for (const marker of ["was not followed; the token was not sent there", "retry-after-too-long", "[REDACTED]"])
      expect(code(loadedAtStart), marker).toContain(marker);
    // What loads at start is the client: its methods' names, and a call's refusal of an unknown option;
    // the operations' table loads with the first call.
    expect(code(loadedAtStart)).toContain("fulfillmentOrders");
    expect(code(loadedAtStart)).toContain("unknown per-call option");
    expect(code(loadedAtStart)).not.toContain("/users/{id}/addresses/{addressId}/");
    expect(code(later)).toContain("/users/{id}/addresses/{addressId}/");
    // And the main entry itself reads two files on a cold import (docs/performance.md, "Start-up"):
    // itself and the chunk of the modules the other entries share with it through the door.
    expect(staticClosure(join(ROOT, MAIN_ENTRY)).size).toBe(2);
  });

  it("an application bundled by esbuild's own splitting (as tsup builds) loads the error path at start and the tables on the first call", async () => {
    // esbuild assigns whole files of dist/ to chunks (docs/guide.md, "Errors"; docs/performance.md, "Bundle size").
    const result = await build({
      stdin: { contents: APP, resolveDir: ROOT, loader: "js" },
      alias: { "store-admin-sdk": join(ROOT, MAIN_ENTRY) },
      bundle: true,
      splitting: true,
      format: "esm",
      minify: true,
      outdir: join(ROOT, "esbuild-split-out"),
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    const byPath = new Map(
      result.outputFiles.filter((file) => file.path.endsWith(".js")).map((file) => [file.path, file]),
    );
    const outputs = result.metafile.outputs;
    const entry = Object.keys(outputs).find((path) => outputs[path]!.entryPoint === "<stdin>")!;
    const loadedAtStart = new Set<string>();
    const visit = (path: string): void => {
      if (loadedAtStart.has(path)) return;
      loadedAtStart.add(path);
      for (const next of outputs[path]!.imports)
        if (next.kind === "import-statement" && outputs[next.path]) visit(next.path);
    };
    visit(entry);
    const file = (path: string) => byPath.get(join(ROOT, path))!;
    const code = (paths: string[]) => paths.map((path) => file(path).text).join("\n");
    const gzip = (paths: string[]) =>
      paths.reduce((sum, path) => sum + gzipSync(file(path).contents, { level: 9 }).byteLength, 0);
    const start = [...loadedAtStart];
    // Not counted here: the telemetry option's module (it loads with that option only, never on a
    // failure) and the form bodies' module (src/client/multipart.ts, loaded by the first call that may send a form, with every bundler).
    // Nor the `validateResponses` option's check and what it loads (its per-operation validators): they load with that option only.
    const withDrift = new Set<string>();
    const follow = (path: string): void => {
      if (withDrift.has(path) || loadedAtStart.has(path)) return;
      withDrift.add(path);
      for (const next of outputs[path]!.imports) if (outputs[next.path]) follow(next.path);
    };
    for (const path of Object.keys(outputs)) if (/\/drift-[^/]*\.js$/.test(path)) follow(path);
    const later = Object.keys(outputs).filter(
      (path) =>
        path.endsWith(".js") &&
        !loadedAtStart.has(path) &&
        !withDrift.has(path) &&
        !/\/telemetry-[^/]*\.js$/.test(path) &&
        !file(path).text.includes("a URL-encoded form cannot carry"),
    );
    for (const marker of ["was not followed; the token was not sent there", "retry-after-too-long", "[REDACTED]"])
      expect(code(start), marker).toContain(marker);
    // Later: the operation tables (loaded by the first call), and nothing else.
    const tables = later.filter((path) => file(path).text.includes("/users/{id}/addresses/{addressId}/"));
    expect(tables).toHaveLength(1);
    expect(code(start)).not.toContain("/users/{id}/addresses/{addressId}/");
    expect(
      later.filter((path) => !tables.includes(path)),
      "what esbuild leaves for later: the tables only",
    ).toEqual([]);
    console.info(`esbuild --splitting: ${gzip(start)} B min+gz at start, ${gzip(later)} B later`);
    // The guide names each bundler with what it loads when.
    const guide = readFileSync(join(ROOT, "docs", "guide.md"), "utf8");
    expect(guide).toMatch(/The error classes and their wording load with the client/);
  });

  it("the main entry, every dynamic import followed, reaches no plugin's module: telemetry and the response validators ship with store-admin-sdk/plugins only", async () => {
    // esbuild without splitting inlines every dynamic import: its inputs are everything reachable.
    const { metafile } = await build({
      entryPoints: [join(ROOT, "src", "index.ts")],
      bundle: true,
      write: false,
      metafile: true,
      format: "esm",
      platform: "neutral",
      mainFields: ["module", "main"],
      logLevel: "silent",
    });
    const paths = Object.keys(metafile.inputs);
    expect(paths).toContain("src/client/operation-tables.ts");
    expect(
      paths.filter(
        (path) =>
          path.startsWith("src/plugins/") ||
          path.startsWith("generated/validators/") ||
          path.includes("p-queue") ||
          path.includes("opentelemetry"),
      ),
    ).toEqual([]);
  });

  it("measures any entry and names: bare openapi-fetch's createClient is a fraction of ours", async () => {
    const ours = await bundleSize();
    const bare = await bundleSize("openapi-fetch", ["default as createClient"]);
    expect(bare.inputs.map((input) => input.path)).toEqual(["node_modules/openapi-fetch/dist/index.mjs"]);
    expect(bare.gzipBytes).toBeLessThan(ours.gzipBytes);
  });
});
