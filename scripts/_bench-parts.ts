import { inChild, type Section } from "/work/wt/i20/scripts/bench/measure.js";
for (const name of process.argv.slice(2)) {
  const s = await inChild<Section>(name, "full");
  console.log(JSON.stringify(s, null, 1));
}
