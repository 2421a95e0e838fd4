/**
 * One timed walk of benchmark 3, in a process of its own (see `timedWalk` in pagination.ts).
 * Arguments: the walk (`ours`, `hand` or `bare`) and the number of items. Prints the ms taken.
 */
import { createWalks, type WalkName } from "./pagination.js";
import { collectGarbage } from "./stats.js";

const [name, items] = process.argv.slice(2) as [WalkName, string];
const { walks, close } = await createWalks();
try {
  const noop = (): void => {};
  await walks[name](10_000, noop); // warm-up
  collectGarbage();
  const start = performance.now();
  const seen = await walks[name](Number(items), noop);
  const ms = performance.now() - start;
  if (seen !== Number(items)) throw new Error(`${name} visited ${seen} of ${items} items`);
  console.log(ms);
} finally {
  await close();
}
