/**
 * The testing kit's per-operation modules, `generated/testing/ops/<operationId>.ts`: each holds
 * one operation's facts (its parameters, body, responses and their examples) and its Ajv
 * validators, compiled here into standalone code (never at run time: no `new Function`, which
 * Workers and a strict Content-Security-Policy refuse). The kit loads an operation's module on
 * the first request to it (src/testing/operation-modules.ts), so what it loads at start is
 * the operations' keys and a loader each, not every validator of the contract
 * (docs/architecture.md, "Cost per operation").
 *
 * esbuild bundles the modules together, with code splitting: the Ajv and ajv-formats helpers
 * the validators call are in shared chunks (`ops/chunk-<hash>.ts`), once. A component schema
 * that several operations use is compiled into each of their modules.
 */
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type Ajv2020 from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";
import { build } from "esbuild";
import { jsonCode } from "./encode.js";

type Ajv = InstanceType<typeof Ajv2020.default>;

/** What goes into one operation's module: its facts, and the names of its validators (`<operationId>_…`). */
interface OperationModuleInput {
  operationId: string;
  facts: unknown;
}

/**
 * The sources of `ops/<operationId>.ts` and their shared chunks, by file name under the
 * kit's generated folder. `compilers` are the Ajv instances with each one's validator names;
 * an operation's validators are the names that begin with its operationId and `_`.
 */
export async function operationModules(
  header: string,
  operations: readonly OperationModuleInput[],
  compilers: ReadonlyArray<[ajv: Ajv, ids: Record<string, string>]>,
  root: URL,
): Promise<Record<string, string>> {
  const cache = new URL(".cache/", root);
  await mkdir(cache, { recursive: true });
  const dir = await mkdtemp(join(fileURLToPath(cache), "validators-"));
  try {
    const entryPoints: Record<string, string> = {};
    for (const { operationId, facts } of operations) {
      const imports: string[] = [];
      for (const [i, [ajv, ids]] of compilers.entries()) {
        const own = Object.fromEntries(Object.entries(ids).filter(([name]) => name.startsWith(`${operationId}_`)));
        if (Object.keys(own).length === 0) continue;
        await writeFile(join(dir, `${operationId}.${i}.mjs`), standaloneCode.default(ajv, own));
        imports.push(`${operationId}.${i}`);
      }
      const entry = join(dir, `${operationId}.entry.mjs`);
      await writeFile(
        entry,
        `${imports.map((name, i) => `import * as part${i} from "./${name}.mjs";`).join("\n")}
export const validators = { ${imports.map((_, i) => `...part${i}`).join(", ")} };
export const operation = ${jsonCode(facts)};
`,
      );
      entryPoints[operationId] = entry;
    }
    const result = await build({
      // Paths (and so the chunks' hashes) relative to the folder of the modules, wherever the generator runs from.
      absWorkingDir: dir,
      entryPoints,
      bundle: true,
      splitting: true,
      write: false,
      outdir: join(dir, "out"),
      chunkNames: "chunk-[hash]",
      format: "esm",
      platform: "neutral",
      target: "es2022",
      minify: true,
      legalComments: "none",
      nodePaths: [fileURLToPath(new URL("node_modules/", root))],
      logLevel: "silent",
    });
    const license = `// Ajv ${ajvVersion(root)} standalone validators (MIT, Evgeny Poberezkin), with helpers from ajv-formats and fast-deep-equal (MIT).\n// @ts-nocheck\n`;
    return Object.fromEntries(
      result.outputFiles.map((file) => {
        const name = file.path.slice(join(dir, "out").length + 1).replace(/\.js$/, ".ts");
        return [`ops/${name}`, `${header}${license}${file.text.trim()}\n`];
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function ajvVersion(root: URL): string {
  return (JSON.parse(readFileSync(new URL("node_modules/ajv/package.json", root), "utf8")) as { version: string }).version;
}
