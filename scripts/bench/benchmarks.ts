/**
 * The benchmarks. Each runs in a fresh `node --expose-gc` process (child.ts) and returns its
 * section of docs/performance.md: a method note, its tables, and its rows of the summary.
 * Every figure is a ratio against a baseline measured in the same run.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { getHeapSpaceStatistics } from "node:v8";
import type { paths } from "../../src/types.js";
import { bundleSize, GOAL_GZIP_BYTES, MAIN_ENTRY } from "../size.js";
import { bareCalls, clientCalls, DIST_ENTRY, HEADERS, loadBareOpenapiFetch, loadSdk, PRODUCT_JSON, rawCalls, ROOT, stubFetch, TOKEN, USER_JSON } from "./fixtures.js";
import type { Calls } from "./fixtures.js";
import { cell, collectGarbage, compareOps, inChild, int, pairedRatio, summarize, times, type Summary } from "./measure.js";
import { PAGE_SIZE, startLoopbackServer } from "./server.js";

export interface Section {
  title: string;
  note: string;
  /** Each table's first row is its header. */
  tables: string[][][];
  /** Rows of the summary: measure, result, goal, status. */
  summary: string[][];
}

const status = (met: boolean): string => (met ? "met" : "**missed**");
const STUB_API_URL = "https://shop.example.com/api/admin";

/** ops/s of each variant for GET and POST, and the paired ratios asked for, as two tables. */
async function opsTables(
  quick: boolean,
  rounds: number,
  variants: (method: "get" | "post") => Record<string, Calls["get"]>,
  labels: Record<string, string>,
  ratios: Array<[a: string, b: string, label: string]>,
): Promise<{ tables: string[][][]; ratio: Record<string, Record<"get" | "post", Summary>> }> {
  const samples = { get: await compareOps(variants("get"), { quick, rounds }), post: await compareOps(variants("post"), { quick, rounds }) };
  const ratio: Record<string, Record<"get" | "post", Summary>> = {};
  for (const [a, b] of ratios) {
    ratio[`${a}/${b}`] = { get: pairedRatio(samples.get[a]!, samples.get[b]!), post: pairedRatio(samples.post[a]!, samples.post[b]!) };
  }
  return {
    ratio,
    tables: [
      [["variant", "GET ops/s", "POST ops/s"], ...Object.entries(labels).map(([k, label]) => [label, cell(summarize(samples.get[k]!), int), cell(summarize(samples.post[k]!), int)])],
      [["ratio (paired per round)", "GET", "POST"], ...ratios.map(([a, b, label]) => [label, cell(ratio[`${a}/${b}`]!.get, times), cell(ratio[`${a}/${b}`]!.post, times)])],
    ],
  };
}

async function stub(quick: boolean): Promise<Section> {
  const sdk = await loadSdk();
  const [bare, control] = [await loadBareOpenapiFetch(), await loadBareOpenapiFetch("control")];
  const { tables, ratio } = await opsTables(
    quick,
    15,
    (method) => {
      const fetch = stubFetch(method === "get" ? USER_JSON : PRODUCT_JSON);
      return {
        ours: clientCalls(sdk.createStoreAdminClient({ apiUrl: STUB_API_URL, accessToken: TOKEN, fetch }))[method],
        bare: bareCalls(bare, STUB_API_URL, fetch)[method],
        raw: rawCalls(STUB_API_URL, fetch)[method],
        control: bareCalls(control, STUB_API_URL, fetch)[method],
      };
    },
    { ours: "ours", bare: "bare openapi-fetch", raw: "raw fetch", control: "A/A control: a second bare openapi-fetch" },
    [["ours", "bare", "ours ÷ bare openapi-fetch (goal ≥ 0.90×)"], ["ours", "raw", "ours ÷ raw fetch"], ["bare", "raw", "bare openapi-fetch ÷ raw fetch"], ["control", "bare", "A/A control ÷ bare (ideally 1.00×: the resolution)"]],
  );
  const r = ratio["ours/bare"]!;
  return {
    title: "Client overhead on a stub fetch",
    note:
      "`GET /users/{id}/` (answering the contract's `User`) and `POST /products/` (13-field body, answering a `Product`) through our client (defaults: `maxRetries` 2, `timeoutMs` 30 000), bare openapi-fetch (`createClient` with the same two headers) and raw fetch, all given the same stub fetch that returns a fresh `Response`: nothing is sent, only client code runs. 15 rounds.",
    tables,
    summary: [["stub fetch, ours ÷ bare openapi-fetch (ops/s), GET / POST", `${times(r.get.median)} / ${times(r.post.median)}`, "≥ 0.90×", status(r.get.median >= 0.9 && r.post.median >= 0.9)]],
  };
}

async function loopback(quick: boolean): Promise<Section> {
  const sdk = await loadSdk();
  const createClient = await loadBareOpenapiFetch();
  const server = await startLoopbackServer();
  const fetch = (input: Request | string | URL, init?: RequestInit): Promise<Response> => globalThis.fetch(input, init);
  const calls = {
    ours: clientCalls(sdk.createStoreAdminClient({ apiUrl: server.url, accessToken: TOKEN })),
    bare: bareCalls(createClient, server.url, fetch),
    raw: rawCalls(server.url, fetch),
    rawTimeout: rawCalls(server.url, fetch, 30_000),
  };
  try {
    const { tables, ratio } = await opsTables(
      quick,
      40,
      (method) => ({ ours: calls.ours[method], bare: calls.bare[method], raw: calls.raw[method], rawTimeout: calls.rawTimeout[method] }),
      { ours: "ours", bare: "bare openapi-fetch", raw: "raw fetch", rawTimeout: "raw fetch with a timeout (`AbortController` + timer)" },
      [["ours", "raw", "ours ÷ raw fetch (goal ≥ 0.97×)"], ["ours", "bare", "ours ÷ bare openapi-fetch"], ["ours", "rawTimeout", "ours ÷ raw fetch with a timeout"], ["rawTimeout", "raw", "raw fetch with a timeout ÷ raw fetch"]],
    );
    const r = ratio["ours/raw"]!;
    return {
      title: "End to end on loopback",
      note:
        "The same calls with Node's fetch (undici, keep-alive) against a keep-alive `node:http` server on 127.0.0.1 in a worker thread. Raw fetch runs a second time with the per-request timeout our client sets on every attempt, written by hand. 40 rounds: a loopback request takes about a millisecond, and the machine's load moves it.",
      tables,
      summary: [["loopback, ours ÷ raw fetch (ops/s), GET / POST", `${times(r.get.median)} / ${times(r.post.median)}`, "≥ 0.97×", status(r.get.median >= 0.97 && r.post.median >= 0.97)]],
    };
  } finally {
    await server.close();
  }
}

async function retryCost(quick: boolean): Promise<Section> {
  const sdk = await loadSdk();
  const { tables, ratio } = await opsTables(
    quick,
    15,
    (method) => {
      const fetch = stubFetch(method === "get" ? USER_JSON : PRODUCT_JSON);
      const make = (maxRetries: number, timeoutMs?: number) => clientCalls(sdk.createStoreAdminClient({ apiUrl: STUB_API_URL, accessToken: TOKEN, fetch, maxRetries, timeoutMs }))[method];
      return { retries2: make(2), retries0: make(0), noTimer: make(0, Number.POSITIVE_INFINITY) };
    },
    { retries2: "`maxRetries: 2` (default)", retries0: "`maxRetries: 0`", noTimer: "`maxRetries: 0`, `timeoutMs: Infinity`" },
    [["retries2", "retries0", "maxRetries 2 ÷ 0"], ["retries0", "noTimer", "with the per-attempt timer ÷ without"]],
  );
  const r = ratio["retries2/retries0"]!;
  return {
    title: "Retry machinery",
    note: "What retries cost a call that succeeds at once, on the stub fetch: our client with `maxRetries: 2` against `maxRetries: 0`, and without the per-attempt timer (`timeoutMs: Infinity`). 15 rounds.",
    tables,
    summary: [["retry machinery, maxRetries 2 ÷ 0 (ops/s), GET / POST", `${times(r.get.median)} / ${times(r.post.median)}`, "reported", "–"]],
  };
}

type WalkName = "ours" | "hand" | "bare";
type Walk = (count: number, onPage: () => void | Promise<void>) => Promise<number>;

/** The three ways of visiting every user of a `count`-item list on a loopback server of their own. */
async function walks(): Promise<{ walks: Record<WalkName, Walk>; close(): Promise<void> }> {
  const sdk = await loadSdk();
  const createClient = await loadBareOpenapiFetch();
  const server = await startLoopbackServer();
  const apiUrl = (count: number): string => `${server.url}/n${count}`;
  // Plain loops over each page's items (a `for await` over an array would add a turn per item).
  const visit = async (users: Array<{ id?: number }>, seen: { n: number }, onPage: () => void | Promise<void>) => {
    for (const user of users) {
      if (user.id === undefined) throw new Error("user without id");
      if (++seen.n % PAGE_SIZE === 0) await onPage();
    }
  };
  const ours: Walk = async (count, onPage) => {
    let seen = 0;
    for await (const user of sdk.createStoreAdminClient({ apiUrl: apiUrl(count), accessToken: TOKEN }).paginate("/users/")) {
      if (user.id === undefined) throw new Error("user without id");
      if (++seen % PAGE_SIZE === 0) await onPage();
    }
    return seen;
  };
  const hand: Walk = async (count, onPage) => {
    const seen = { n: 0 };
    for (let url: string | null = `${apiUrl(count)}/users/`; url; ) {
      const response = await fetch(url, { headers: HEADERS });
      if (!response.ok) throw new Error(`page failed: ${response.status}`);
      const page = (await response.json()) as { next: string | null; results: Array<{ id?: number }> };
      await visit(page.results, seen, onPage);
      url = page.next;
    }
    return seen.n;
  };
  const bare: Walk = async (count, onPage) => {
    const client = createClient<paths>({ baseUrl: apiUrl(count), headers: HEADERS });
    const seen = { n: 0 };
    for (let cursor: string | undefined, more = true; more; ) {
      const { data, response } = await client.GET("/users/", { params: { query: { cursor } } });
      if (!data) throw new Error(`page failed: ${response.status}`);
      await visit(data.results, seen, onPage);
      cursor = data.next ? (new URL(data.next).searchParams.get("cursor") ?? undefined) : undefined;
      more = data.next != null;
    }
    return seen.n;
  };
  return { walks: { ours, hand, bare }, close: () => server.close() };
}

/** One timed walk, in a process of its own: a 10,000-item warm-up, then the walk of `items`, in ms. */
async function walk(name: WalkName, items: string): Promise<number> {
  const { walks: all, close } = await walks();
  try {
    await all[name](10_000, () => {});
    collectGarbage();
    const start = performance.now();
    const seen = await all[name](Number(items), () => {});
    if (seen !== Number(items)) throw new Error(`${name} visited ${seen} of ${items} items`);
    return performance.now() - start;
  } finally {
    await close();
  }
}

/** Heap in use outside the code spaces (where compiled code goes): data only. */
const dataHeap = (): number => getHeapSpaceStatistics().reduce((sum, s) => sum + (s.space_name.startsWith("code") ? 0 : s.space_used_size), 0);

/** Forced collections with a turn of the event loop between them, so finalizers and WeakRef targets go too. */
async function settle(rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
  }
}

/** What a walk keeps alive: the data heap every 10 pages (after collections) above the heap once it is over. */
async function liveHeap(walk: Walk, items: number): Promise<{ median: number; driftPerPage: number }> {
  await settle(12);
  const samples: number[] = [];
  let pages = 0;
  await walk(items, async () => {
    if (++pages % 10 === 0) await settle(2), samples.push(dataHeap());
  });
  await settle(12);
  const after = dataHeap();
  const live = samples.map((bytes) => bytes - after);
  const drift = summarize(live.slice(-5)).median - summarize(live.slice(0, 5)).median;
  return { median: summarize(live).median, driftPerPage: drift / pages };
}

async function pagination(quick: boolean): Promise<Section> {
  const items = quick ? 20_000 : 100_000;
  const names: WalkName[] = ["ours", "hand", "bare"];
  const ms: Record<WalkName, number[]> = { ours: [], hand: [], bare: [] };
  for (let round = 0; round < (quick ? 2 : 7); round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length]!;
      ms[name].push(await inChild<number>("walk", name, String(items)));
    }
  }
  const { walks: all, close } = await walks();
  const memory = { ours: await liveHeap(all.ours, items), hand: await liveHeap(all.hand, items) };
  await close();
  const pageText = `{"next":null,"previous":null,"results":[${Array.from({ length: PAGE_SIZE }, () => USER_JSON).join(",")}]}`;
  await settle(4);
  const before = dataHeap();
  const held = Array.from({ length: 10 }, () => JSON.parse(pageText) as unknown);
  await settle(4);
  const onePage = (dataHeap() - before) / held.length;

  const ratio = pairedRatio(ms.ours, ms.hand);
  const kB = (bytes: number): string => `${(bytes / 1024).toFixed(1)} kB`;
  const live = memory.ours;
  const memoryMet = live.median <= 5 * onePage && Math.abs(live.driftPerPage) <= 0.01 * onePage;
  return {
    title: "Pagination walk",
    note: `Every user of a ${int(items)}-item list (pages of ${PAGE_SIZE}) from the loopback server: \`for await (… of store.paginate("/users/"))\` against a hand-written loop over raw fetch following \`next\`, and a cursor loop over bare openapi-fetch. ${quick ? 2 : 7} timed walks each, in rotating order, each in a fresh process after a 10,000-item warm-up. Live heap: the data heap after forced collections every 10 pages, above the heap once the walk is over; one parsed page takes ${kB(onePage)}. Goal met when the median live heap is at most 5 pages and drifts by at most 1 % of a page per page walked.`,
    tables: [
      [["walk", "ms per walk", "ms per page"], ...names.map((n) => [n === "ours" ? "`paginate()`" : n === "hand" ? "hand loop over raw fetch" : "cursor loop over bare openapi-fetch", cell(summarize(ms[n]), int), (summarize(ms[n]).median / (items / PAGE_SIZE)).toFixed(2)])],
      [["ratio (paired)", "time"], ["ours ÷ hand (goal ≤ 1.10×)", cell(ratio, times)], ["bare openapi-fetch ÷ hand", cell(pairedRatio(ms.bare, ms.hand), times)]],
      [["walk", "live heap (median)", "drift per page walked"], ...(["ours", "hand"] as const).map((n) => [n === "ours" ? "`paginate()`" : "hand loop", `${kB(memory[n].median)} (${(memory[n].median / onePage).toFixed(1)} pages)`, `${int(memory[n].driftPerPage)} B`])],
    ],
    summary: [
      [`pagination of ${int(items)} items, time ours ÷ hand loop`, times(ratio.median), "≤ 1.10×", status(ratio.median <= 1.1)],
      ["pagination live heap; drift per page", `${(live.median / onePage).toFixed(1)} pages; ${int(live.driftPerPage)} B`, "≤ 5 pages; ≤ 1 % of a page", status(memoryMet)],
    ],
  };
}

async function size(): Promise<Section> {
  const ours = await bundleSize();
  const bare = await bundleSize("openapi-fetch", ["default as createClient"]);
  return {
    title: "Bundle size",
    note: `\`scripts/size.ts\` (also run by \`npm test\`, which holds a ceiling): an esbuild bundle (minified, ESM, platform neutral) of \`import { createStoreAdminClient }\` from the built \`${MAIN_ENTRY}\`, openapi-fetch included, gzipped at level 9; the same for bare openapi-fetch's \`createClient\`.`,
    tables: [
      [["bundle", "minified", "min+gz"], ["ours", `${int(ours.minBytes)} B`, `**${int(ours.gzipBytes)} B**`], ["bare openapi-fetch", `${int(bare.minBytes)} B`, `${int(bare.gzipBytes)} B`], ["ratio", times(ours.minBytes / bare.minBytes), times(ours.gzipBytes / bare.gzipBytes)]],
      [["input (minified bytes, before gzip)", "bytes"], ...ours.inputs.map((i) => [`\`${i.path}\``, int(i.bytes)])],
    ],
    summary: [["bundle of `import { createStoreAdminClient }`, min+gz", `${int(ours.gzipBytes)} B (${times(ours.gzipBytes / bare.gzipBytes)} openapi-fetch)`, `≤ ${int(GOAL_GZIP_BYTES)} B`, status(ours.gzipBytes <= GOAL_GZIP_BYTES)]],
  };
}

async function startup(quick: boolean): Promise<Section> {
  const coldImportMs = (specifier: string): number =>
    Number(execFileSync(process.execPath, ["--input-type=module", "-e", `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - t);`], { cwd: ROOT, encoding: "utf8" }));
  const ours = pathToFileURL(DIST_ENTRY).href;
  for (let i = 0; i < 3; i++) coldImportMs(ours), coldImportMs("openapi-fetch"); // the file cache
  const ms = { ours: [] as number[], bare: [] as number[] };
  for (let i = 0; i < (quick ? 5 : 25); i++) ms.ours.push(coldImportMs(ours)), ms.bare.push(coldImportMs("openapi-fetch"));
  const fixed = (n: number): string => n.toFixed(1);
  const oursMs = summarize(ms.ours);
  return {
    title: "Start-up",
    note: `\`await import()\` as the first thing a new \`node\` process does, ${quick ? 5 : 25} processes each, alternating with openapi-fetch alone.`,
    tables: [[["import", "ms"], ["the package (`dist/src/index.js`)", cell(oursMs, fixed)], ["openapi-fetch alone", cell(summarize(ms.bare), fixed)], ["ratio (paired)", cell(pairedRatio(ms.ours, ms.bare), times)]]],
    summary: [["cold `import()` of the package", `${fixed(oursMs.median)} ms`, "< 50 ms", status(oursMs.median < 50)]],
  };
}

/** `tsc --extendedDiagnostics` of one file against the built `.d.ts`, in a temporary directory. */
function typecheckRun(dir: string, name: string, source: string): Record<string, number> {
  const rewritten = source
    .replaceAll('"../../src/index.js"', JSON.stringify(DIST_ENTRY))
    .replaceAll('"../../generated/schema.js"', JSON.stringify(DIST_ENTRY.replace(/src\/index\.js$/, "generated/schema.js")))
    .replaceAll('"openapi-fetch"', JSON.stringify(`${ROOT}node_modules/openapi-fetch/dist/index.mjs`));
  writeFileSync(join(dir, `${name}.mts`), rewritten);
  const compilerOptions = { strict: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM", "DOM.Iterable"], types: [], skipLibCheck: true, noEmit: true };
  writeFileSync(join(dir, `${name}.json`), JSON.stringify({ compilerOptions, files: [`${name}.mts`] }));
  const output = execFileSync(process.execPath, [`${ROOT}node_modules/typescript/lib/tsc.js`, "-p", join(dir, `${name}.json`), "--extendedDiagnostics"], { encoding: "utf8" });
  return Object.fromEntries([...output.matchAll(/^([A-Za-z ]+):\s+([\d.]+)[sK]?$/gm)].map(([, key, value]) => [key!.trim(), Number(value)]));
}

async function typecheck(quick: boolean): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), "store-admin-sdk-typecheck-"));
  const read = (file: string): string => readFileSync(new URL(file, import.meta.url), "utf8");
  const files = {
    ours: read("./typecheck-consumer.ts"),
    importOnly: `import { createStoreAdminClient } from "../../src/index.js";\nexport const store = createStoreAdminClient({ baseUrl: "https://shop.example.com", accessToken: "t" });\n`,
    bare: read("./typecheck-bare.ts"),
  };
  const runs: Record<string, Array<Record<string, number>>> = { ours: [], importOnly: [], bare: [] };
  try {
    typecheckRun(dir, "ours", files.ours); // the file cache and Node's compile cache
    for (let i = 0; i < (quick ? 1 : 5); i++) for (const [name, source] of Object.entries(files)) runs[name]!.push(typecheckRun(dir, name, source));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const check = (name: string): Summary => summarize(runs[name]!.map((r) => r["Check time"]!));
  const instantiations = (name: string): number => runs[name]![0]!["Instantiations"]!;
  const instantiationRatio = instantiations("ours") / instantiations("bare");
  const checkRatio = check("ours").median / check("bare").median;
  const fixed = (n: number): string => n.toFixed(2);
  const labels = { ours: "ours, 20 operations + paginate", importOnly: "ours, import and create the client only", bare: "bare openapi-fetch, 20 operations" };
  return {
    title: "Type-checking cost",
    note: `\`tsc --noEmit --extendedDiagnostics\` (\`strict\`, NodeNext, \`skipLibCheck\`) against the built \`.d.ts\`, as an application sees them: \`scripts/bench/typecheck-consumer.ts\` calls each of the 20 operations once, uses a field of each answer and runs one \`paginate()\`; \`typecheck-bare.ts\` makes the same 20 calls through bare openapi-fetch over the generated types. ${quick ? 1 : 5} runs each.`,
    tables: [
      [["file", "check time (s)", "instantiations", "types"], ...Object.entries(labels).map(([k, label]) => [label, cell(check(k), fixed), int(instantiations(k)), int(runs[k]![0]!["Types"]!)])],
      [["ratio", "ours ÷ bare openapi-fetch"], ["instantiations", times(instantiationRatio)], ["check time (medians)", times(checkRatio)]],
    ],
    summary: [["type-check of 20 operations, ours ÷ bare openapi-fetch: check time, instantiations", `${times(checkRatio)}, ${times(instantiationRatio)}`, "reported", "–"]],
  };
}

/** What child.ts can run, by name. */
export const BENCHMARKS = {
  stub: (mode: string) => stub(mode === "quick"),
  loopback: (mode: string) => loopback(mode === "quick"),
  pagination: (mode: string) => pagination(mode === "quick"),
  retryCost: (mode: string) => retryCost(mode === "quick"),
  size: () => size(),
  startup: (mode: string) => startup(mode === "quick"),
  typecheck: (mode: string) => typecheck(mode === "quick"),
  walk: (name: string, items: string) => walk(name as WalkName, items),
} satisfies Record<string, (...args: string[]) => Promise<unknown>>;
