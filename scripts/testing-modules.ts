/**
 * The generated modules of precompiled validators: the testing kit's per-operation modules,
 * `generated/testing/ops/<key>.ts` (one operation's facts and the validators of its
 * parameters, headers and request body), each operation's JSON response validators,
 * `generated/validators/responses/<key>.ts` (the kit and the client's response
 * validation load the same ones), and each named schema's, `generated/validators/schemas/<key>.ts`
 * (`store-admin-sdk/schemas`). Ajv compiles them here into standalone code (never at run time:
 * no `new Function`, which Workers and a strict Content-Security-Policy refuse); each is
 * loaded on its first use (docs/architecture.md, "Cost per operation").
 *
 * esbuild bundles the modules together, with code splitting: the Ajv and ajv-formats helpers
 * the validators call are in shared chunks (`validators/chunks/chunk-<hash>.ts`), once. A component
 * schema that several modules use is compiled into each of them.
 */
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type Ajv2020 from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";
import { build } from "esbuild";

type Ajv = InstanceType<typeof Ajv2020.default>;

/**
 * One generated module of validators: where it goes (under generated/, without `.ts`), the
 * validators it holds (per compiler, by their Ajv ids) and the exports it makes of them:
 * `code` reads the validators from `v`, by id.
 */
export interface ValidatorModule {
  path: string;
  ids: ReadonlyArray<readonly string[]>;
  code: string;
  /** A statement added after bundling (a re-export of another module, which bundling would split into a chunk). */
  append?: string;
}

/**
 * The sources of the modules and their shared chunks (`validators/chunks/chunk-<hash>.ts`), by file
 * name under generated/. `compilers` are the Ajv instances; a module's `ids[i]` are compiled
 * by `compilers[i]`.
 */
export async function validatorModules(
  header: string,
  modules: readonly ValidatorModule[],
  compilers: readonly Ajv[],
  root: URL,
): Promise<Record<string, string>> {
  const cache = new URL(".cache/", root);
  await mkdir(cache, { recursive: true });
  const dir = await mkdtemp(join(fileURLToPath(cache), "validators-"));
  try {
    const entryPoints: Record<string, string> = {};
    const appended = new Map(
      modules.filter((module) => module.append !== undefined).map((module) => [`${module.path}.ts`, module.append!]),
    );
    for (const [m, { path, ids, code }] of modules.entries()) {
      const imports: string[] = [];
      for (const [i, own] of ids.entries()) {
        if (own.length === 0) continue;
        await writeFile(
          join(dir, `${m}.${i}.mjs`),
          linearErrors(standaloneCode.default(compilers[i]!, Object.fromEntries(own.map((id) => [id, id])))),
        );
        imports.push(`${m}.${i}`);
      }
      const entry = join(dir, `${m}.entry.mjs`);
      await writeFile(
        entry,
        `${imports.map((name, i) => `import * as part${i} from "./${name}.mjs";`).join("\n")}\nconst v = { ${imports.map((_, i) => `...part${i}`).join(", ")} };\n${code}\n`,
      );
      entryPoints[path] = entry;
    }
    const result = await build({
      // Paths (and so the chunks' hashes) relative to the folder of the modules, wherever the generator runs from.
      absWorkingDir: dir,
      entryPoints,
      bundle: true,
      splitting: true,
      write: false,
      outdir: join(dir, "out"),
      // The Ajv and ajv-formats helpers, once, below both the kit and the validators' other users.
      chunkNames: "validators/chunks/chunk-[hash]",
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
        const name = file.path
          .slice(join(dir, "out").length + 1)
          .split("\\")
          .join("/")
          .replace(/\.js$/, ".ts");
        return [name, `${header}${license}${file.text.trim()}\n${appended.has(name) ? `${appended.get(name)}\n` : ""}`];
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Ajv's standalone code gathers a referenced schema's errors with `vErrors.concat(ref.errors)`,
 * a copy of every error so far for each failing item: quadratic in the failing items of a list
 * (40,000 bad items took seconds). Appending in place is linear; the array appended to is the
 * validator's own, made in this call (or a referenced validator's, which a later call replaces).
 */
function linearErrors(code: string): string {
  const CONCAT = /(\w+) = \1 === null \? (\w+)\.errors : \1\.concat\(\2\.errors\);/g;
  const linear = code.replace(CONCAT, "$1 = $1 === null ? $2.errors : appendErrors($1, $2.errors);");
  if (/\.concat\(/.test(linear))
    throw new Error(
      "Ajv's standalone code gathers errors in a way scripts/testing-modules.ts does not know (a `.concat(` is left): update linearErrors().",
    );
  if (linear === code) return code;
  return `${linear}\nfunction appendErrors(errors, more) {\n  for (let i = 0; i < more.length; i++) errors.push(more[i]);\n  return errors;\n}\n`;
}

function ajvVersion(root: URL): string {
  return (JSON.parse(readFileSync(new URL("node_modules/ajv/package.json", root), "utf8")) as { version: string })
    .version;
}
