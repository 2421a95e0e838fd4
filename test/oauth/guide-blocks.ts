/**
 * The ```ts blocks of docs/guide.md's "Partner apps" section, written as they are into a
 * scratch directory inside the project, where `store-admin-sdk/oauth` resolves to the built
 * package (its own `exports`): the tests run the guide's code as a user would.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ROOT } from "../package/tarball.js";
import { scratchDir } from "../docs/typecheck.js";

/** The section's block that contains `marker`, written to a file of the scratch directory `dir` (made when not given). */
export async function guideBlock(
  marker: string,
  name: string,
  dir?: string,
): Promise<{ file: string; dir: string; code: string }> {
  const guide = await readFile(join(ROOT, "docs", "guide.md"), "utf8");
  const start = guide.indexOf("\n## Partner apps\n");
  const section = guide.slice(start, guide.indexOf("\n## ", start + 1));
  const code = [...section.matchAll(/^```ts\n([\s\S]*?)^```$/gm)]
    .map((match) => match[1]!)
    .find((block) => block.includes(marker));
  if (start < 0 || code === undefined)
    throw new Error(`docs/guide.md, "Partner apps": no \`\`\`ts block contains ${marker}`);
  const where = dir ?? (await scratchDir("oauth-guide"));
  const file = join(where, name);
  await writeFile(file, code);
  return { file, dir: where, code };
}
