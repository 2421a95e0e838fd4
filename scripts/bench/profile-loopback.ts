/**
 * Where a loopback call's CPU time goes: the bench's GET and POST in a loop for a few seconds,
 * through our client or raw fetch with a per-request timeout, under `node --cpu-prof`, then
 * the main thread's self time per file and per function. The finding is in
 * docs/performance.md ("End to end on loopback").
 *
 *   npx tsx scripts/bench/profile-loopback.ts            both variants, then the summaries
 *   npx tsx scripts/bench/profile-loopback.ts 8000       the same, 8 s each (default 5 s)
 *
 * Run `npm run build` first (it calls the built package).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { clientCalls, loadSdk, rawCalls, TOKEN } from "./fixtures.js";
import { startLoopbackServer } from "./server.js";

interface Profile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

async function loop(variant: string, ms: number): Promise<void> {
  const sdk = await loadSdk();
  const server = await startLoopbackServer();
  const fetch = (input: Request | string | URL, init?: RequestInit): Promise<Response> => globalThis.fetch(input, init);
  const calls =
    variant === "ours"
      ? clientCalls(sdk.createStoreAdminClient({ apiUrl: server.url, accessToken: TOKEN }))
      : rawCalls(server.url, fetch, 30_000);
  const end = performance.now() + ms;
  let pairs = 0;
  for (; performance.now() < end; pairs++) await calls.get(), await calls.post();
  console.log(`${variant}: ${pairs} GET + POST pairs in ${ms / 1000} s`);
  await server.close();
}

/** Self time of the busiest profile (the main thread) by file and by function, as shares of the samples. */
function summarize(dir: string): string[] {
  const profiles = readdirSync(dir).map((file) => JSON.parse(readFileSync(join(dir, file), "utf8")) as Profile);
  const selfOf = (profile: Profile) => {
    const self = new Map<number, number>();
    profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
    return self;
  };
  const busy = (profile: Profile) =>
    profile.nodes
      .filter((n) => n.callFrame.functionName !== "(idle)")
      .reduce((sum, n) => sum + (selfOf(profile).get(n.id) ?? 0), 0);
  const main = profiles.sort((a, b) => busy(b) - busy(a))[0]!;
  const self = selfOf(main);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFile = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const node of main.nodes) {
    const time = self.get(node.id) ?? 0;
    if (time === 0) continue;
    const { url, functionName, lineNumber } = node.callFrame;
    const file =
      url
        .replace(/^.*\/(node_modules\/[^/]+|dist)\//, "$1/")
        .replace(/^node:internal\/deps\/undici\/undici$/, "undici") || `(${functionName})`;
    byFile.set(file, (byFile.get(file) ?? 0) + time);
    const name = `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + time);
  }
  const top = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, time]) => `${((100 * time) / total).toFixed(1).padStart(6)} %  ${key}`);
  return ["by file:", ...top(byFile, 12), "by function:", ...top(byFunction, 15)];
}

const [variant] = process.argv.slice(2);
if (variant === "ours" || variant === "raw") {
  await loop(variant, Number(process.argv[3] ?? 5000));
} else {
  const ms = String(Number(variant ?? 5000));
  for (const name of ["ours", "raw"]) {
    const dir = mkdtempSync(join(tmpdir(), `store-admin-sdk-profile-${name}-`));
    try {
      const script = fileURLToPath(import.meta.url);
      execFileSync(process.execPath, ["--import", "tsx", "--cpu-prof", `--cpu-prof-dir=${dir}`, script, name, ms], {
        stdio: "inherit",
      });
      console.log(summarize(dir).join("\n"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
