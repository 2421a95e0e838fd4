/**
 * 3. Pagination at scale: every user of a 100,000-item list (1,000 pages of 100) from the
 * loopback server, through `paginate()` and through a hand-written cursor loop over raw
 * fetch. Goal: time ≤ 1.1× the hand loop; heap growth bounded by about one page, the same
 * for 10,000 items as for 100,000. A cursor loop written over bare openapi-fetch is timed
 * too: the share of the gap that is openapi-fetch's own.
 *
 * Timed runs and memory runs are separate: sampling the heap (and, for the live-heap
 * figure, forcing a collection) would slow the walk down.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { getHeapSpaceStatistics } from "node:v8";
import type { paths } from "../../src/types.js";
import { HEADERS, loadBareOpenapiFetch, loadSdk, ROOT, TOKEN, USER_JSON } from "./fixtures.js";
import { PAGE_SIZE, startLoopbackServer } from "./server.js";
import { collectGarbage, pairedRatio, summarize, type BenchOptions, type Summary } from "./stats.js";

export interface MemoryFigures {
  items: number;
  /** Peak of `heapUsed` above the starting point, sampled after every page, garbage included (bytes). */
  peakHeapGrowth: number;
  /**
   * The data heap (`heapUsed` without the code spaces, where the JIT's output goes) measured
   * after forced collections every 10 pages, above what is left once the walk is over and
   * collected: what the walk keeps alive. Median and largest of those measurements (bytes).
   */
  liveHeapMedian: number;
  liveHeapMax: number;
  /**
   * Drift of the live figure within the walk: the median of its last five measurements
   * minus the median of its first five (bytes). Retained items would show here (a page each);
   * noise of the starting point would not.
   */
  liveHeapTrend: number;
  /** Peak of `arrayBuffers` (response bytes outside the JS heap) above the start (bytes). */
  peakArrayBufferGrowth: number;
}

export interface PaginationResult {
  items: number;
  pages: number;
  /** Wall time of one full walk, in ms. */
  timeMs: { ours: Summary; hand: Summary; bare: Summary };
  /** ours / hand, per round. */
  timeRatio: Summary;
  /** bare openapi-fetch loop / hand, per round. */
  bareRatio: Summary;
  /** Live heap taken by one parsed page of users, for scale (bytes). */
  onePageHeap: number;
  memory: { ours: MemoryFigures[]; hand: MemoryFigures[] };
}

/** Visits every item of a walk; `onPage` runs (and is awaited) after each `PAGE_SIZE` items. */
type Walk = (count: number, onPage: () => void | Promise<void>) => Promise<number>;

/** The three ways of walking the list. */
export type WalkName = "ours" | "hand" | "bare";

/** The three walks over a loopback server of their own; `close()` stops it. */
export async function createWalks(): Promise<{ walks: Record<WalkName, Walk>; close(): Promise<void> }> {
  const sdk = await loadSdk();
  const createClient = await loadBareOpenapiFetch();
  const server = await startLoopbackServer();
  const apiUrl = (count: number): string => `${server.url}/n${count}`;
  const store = (count: number) => sdk.createStoreAdminClient({ apiUrl: apiUrl(count), accessToken: TOKEN });

  const ours: Walk = async (count, onPage) => {
    let seen = 0;
    for await (const user of store(count).paginate("/users/")) {
      if (user.id === undefined) throw new Error("user without id");
      if (++seen % PAGE_SIZE === 0) await onPage();
    }
    return seen;
  };
  const hand: Walk = async (count, onPage) => {
    let seen = 0;
    let url: string | null = `${apiUrl(count)}/users/`;
    while (url) {
      const response = await fetch(url, { headers: HEADERS });
      if (!response.ok) throw new Error(`page failed: ${response.status}`);
      const page = (await response.json()) as { next: string | null; results: Array<{ id?: number }> };
      for (const user of page.results) {
        if (user.id === undefined) throw new Error("user without id");
        if (++seen % PAGE_SIZE === 0) await onPage();
      }
      url = page.next;
    }
    return seen;
  };

  const bare: Walk = async (count, onPage) => {
    const client = createClient<paths>({ baseUrl: apiUrl(count), headers: HEADERS });
    let seen = 0;
    let cursor: string | undefined;
    for (;;) {
      const { data, response } = await client.GET("/users/", { params: { query: { cursor } } });
      if (!data) throw new Error(`page failed: ${response.status}`);
      for (const user of data.results) {
        if (user.id === undefined) throw new Error("user without id");
        if (++seen % PAGE_SIZE === 0) await onPage();
      }
      if (!data.next) return seen;
      cursor = new URL(data.next).searchParams.get("cursor") ?? undefined;
    }
  };

  return { walks: { ours, hand, bare }, close: () => server.close() };
}

/**
 * One timed walk in a fresh `node` process (scripts/bench/pagination-walk.ts): a warm-up walk
 * of 10,000 items, a forced collection, then the walk of `items`, in ms. A process per walk,
 * because walks that share a process share undici's compiled code, and each way of calling
 * `fetch` (a URL and init, a Request, plain or Headers headers) makes it slower for the others.
 */
function timedWalk(name: WalkName, items: number): number {
  const output = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", join(ROOT, "scripts/bench/pagination-walk.ts"), name, String(items)], {
    cwd: ROOT,
    encoding: "utf8",
  });
  const ms = Number(output.trim().split("\n").at(-1));
  if (!Number.isFinite(ms)) throw new Error(`pagination walk ${name} printed ${JSON.stringify(output)}`);
  return ms;
}

export async function run(options: BenchOptions): Promise<PaginationResult> {
  const items = options.quick ? 20_000 : 100_000;
  const rounds = options.quick ? 2 : 7;
  const names: WalkName[] = ["ours", "hand", "bare"];
  const times = { ours: [] as number[], hand: [] as number[], bare: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length]!;
      times[name].push(timedWalk(name, items));
    }
  }

  const { walks, close } = await createWalks();
  try {
    const memory: PaginationResult["memory"] = { ours: [], hand: [] };
    for (const count of options.quick ? [2_000, 20_000] : [10_000, 100_000]) {
      for (const name of ["ours", "hand"] as const) memory[name].push(await measureMemory(walks[name], count));
    }
    return {
      items,
      pages: items / PAGE_SIZE,
      timeMs: { ours: summarize(times.ours), hand: summarize(times.hand), bare: summarize(times.bare) },
      timeRatio: pairedRatio(times.ours, times.hand),
      bareRatio: pairedRatio(times.bare, times.hand),
      onePageHeap: await onePageHeap(),
      memory,
    };
  } finally {
    await close();
  }
}

/** Heap in use outside the code spaces: data, not compiled code. */
function dataHeapBytes(): number {
  return getHeapSpaceStatistics()
    .filter((space) => !space.space_name.startsWith("code"))
    .reduce((sum, space) => sum + space.space_used_size, 0);
}

/**
 * Forced full collections with a turn of the event loop between them, so that finalizers
 * (undici registers one per Request that follows a signal) and WeakRef targets can go too.
 */
async function settle(rounds = 2): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
  }
}

async function measureMemory(walk: Walk, items: number): Promise<MemoryFigures> {
  // Many collections first: V8 ages out unused bytecode over several of them, and that
  // would otherwise show as the heap shrinking during the walk.
  await settle(12);
  const start = process.memoryUsage();
  let peakHeap = 0;
  let peakArrayBuffers = 0;
  const samples: number[] = [];
  let pages = 0;
  await walk(items, async () => {
    const now = process.memoryUsage();
    peakHeap = Math.max(peakHeap, now.heapUsed - start.heapUsed);
    peakArrayBuffers = Math.max(peakArrayBuffers, now.arrayBuffers - start.arrayBuffers);
    if (++pages % 10 === 0) {
      await settle();
      samples.push(dataHeapBytes());
    }
  });
  // The reference is the heap once the walk is over and collected, measured after the walk
  // rather than before it: closer in time, so less of the process's own drift gets in.
  await settle(12);
  const after = dataHeapBytes();
  const live = samples.map((bytes) => bytes - after);
  const median = (list: number[]): number => summarize(list).median;
  return {
    items,
    peakHeapGrowth: peakHeap,
    liveHeapMedian: median(live),
    liveHeapMax: Math.max(...live),
    liveHeapTrend: median(live.slice(-5)) - median(live.slice(0, 5)),
    peakArrayBufferGrowth: peakArrayBuffers,
  };
}

/** The heap one page of parsed users takes (ten pages held, divided by ten): the yardstick for "about one page". */
async function onePageHeap(): Promise<number> {
  const text = `{"next":null,"previous":null,"results":[${Array.from({ length: PAGE_SIZE }, () => USER_JSON).join(",")}]}`;
  await settle(4);
  const before = dataHeapBytes();
  const pages: unknown[] = Array.from({ length: 10 }, () => JSON.parse(text));
  await settle(4);
  const after = dataHeapBytes();
  if (pages.length !== 10) throw new Error("unreachable");
  return (after - before) / pages.length;
}
