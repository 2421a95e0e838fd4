/**
 * Writes a generator's output files, or with `check` only compares them: `npm test` fails
 * (exit 1) when what is committed under generated/ is not what the contract produces. Also
 * where each generator reads the contract from and writes to.
 */
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, resolve as resolvePath } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export async function writeGenerated(outDir: URL, outputs: Record<string, string>, check: boolean): Promise<void> {
  const label = fileURLToPath(outDir).replace(/^.*?(generated\/.*)$/, "$1");
  const stale: string[] = [];
  await mkdir(outDir, { recursive: true });
  for (const [name, content] of Object.entries(outputs)) {
    const file = new URL(name, outDir);
    const current = await readFile(file, "utf8").catch(() => undefined);
    if (current === content) continue;
    if (check) stale.push(fileURLToPath(file));
    else await mkdir(dirname(fileURLToPath(file)), { recursive: true }).then(() => writeFile(file, content));
  }
  // In a folder of outputs (`ops/`), a file no output names is left from an earlier contract.
  for (const folder of new Set(
    Object.keys(outputs)
      .filter((name) => name.includes("/"))
      .map((name) => name.slice(0, name.lastIndexOf("/") + 1)),
  )) {
    for (const name of await readdir(new URL(folder, outDir)).catch(() => [] as string[])) {
      if (Object.hasOwn(outputs, `${folder}${name}`)) continue;
      if (check) stale.push(fileURLToPath(new URL(`${folder}${name}`, outDir)));
      else await rm(new URL(`${folder}${name}`, outDir));
    }
  }
  if (stale.length > 0) {
    console.error(
      `${label} is stale: ${stale.join(", ")} differ from what openapi/store-admin.yaml produces.\nRun \`npm run generate\` and commit the result.`,
    );
    process.exit(1);
  }
  console.log(check ? `${label} is up to date.` : `${label} written.`);
}

/** `--spec FILE` or `--out DIR` from the command line (tests use them on a changed copy of the contract); `fallback` when absent. */
export function pathArgument(name: "--spec" | "--out", fallback: URL): URL {
  const at = process.argv.indexOf(name);
  const value = at === -1 ? undefined : process.argv[at + 1];
  return value === undefined ? fallback : pathToFileURL(resolvePath(value) + (name === "--out" ? "/" : ""));
}
