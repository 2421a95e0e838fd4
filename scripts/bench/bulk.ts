/**
 * Bulk work (`store-admin-sdk/bulk`, built): the runner's overhead against a hand-written
 * Promise pool over the same client, how closely it keeps a rate budget as the server sees it,
 * its memory over a million items, and how long a resume takes to open a ledger of a million
 * finished keys.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadSdk, ROOT, TOKEN, USER_JSON } from "./fixtures.js";
import { cell, collectGarbage, int, oneLine, pairedRatio, status, summarize, times, type Section } from "./measure.js";
import { startLoopbackServer } from "./server.js";

type BulkModule = typeof import("../../src/bulk/index.js");
// The ledger's line format, to write the million-key fixture; the ledger opened is the built one.
import { ledgerLine } from "../../src/bulk/file-ledger.js";

async function load<T>(path: string): Promise<T> {
  const file = join(ROOT, path);
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\`.`);
  return import(pathToFileURL(file).href) as Promise<T>;
}

const CONCURRENCY = 8;
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** Items per second: runBulk and a Promise pool, the same client and the same call, rotating order. */
async function throughput(
  bulk: BulkModule,
  quick: boolean,
): Promise<{ items: number; rounds: number; ours: number[]; pool: number[] }> {
  const sdk = await loadSdk();
  const server = await startLoopbackServer();
  const client = sdk.createStoreAdminClient({ apiUrl: server.url, accessToken: TOKEN });
  const items = quick ? 2_000 : 10_000;
  const rounds = quick ? 3 : 7;
  const get = (id: number) => client.GET("/users/{id}/", { params: { path: { id } } });
  let run = 0;
  const variants = {
    ours: async () => {
      const report = await bulk.runBulk({
        client,
        runId: `bench-${++run}`,
        items: range(items),
        key: String,
        concurrency: CONCURRENCY,
        // The same call as the pool's, on the run's client (which counts and gates it).
        task: (id, { client: runClient }) => runClient.GET("/users/{id}/", { params: { path: { id } } }),
      });
      if (report.done !== items) throw new Error(`runBulk did ${report.done} of ${items}`);
    },
    pool: async () => {
      let next = 0;
      let done = 0;
      const worker = async () => {
        while (next < items) {
          const id = ++next;
          const { response } = await get(id);
          if (response.ok) done++;
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      if (done !== items) throw new Error(`the pool did ${done} of ${items}`);
    },
  };
  const names = Object.keys(variants) as Array<keyof typeof variants>;
  for (const name of names) await variants[name](); // warm-up
  const perSecond: Record<string, number[]> = { ours: [], pool: [] };
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length]!;
      collectGarbage();
      const start = performance.now();
      await variants[name]();
      perSecond[name]!.push((items * 1000) / (performance.now() - start));
    }
  }
  await server.close();
  return { items, rounds, ours: perSecond.ours!, pool: perSecond.pool! };
}

/**
 * The budget's server, in a process of its own: it notes when each request arrives on its own
 * event loop, which nothing else keeps busy (in this process, the runner's work would delay the
 * notes and bunch them). `GET /arrivals` answers the notes, in ms, and is not counted.
 */
const ARRIVAL_SERVER = `
const arrivals = [];
const server = require("node:http").createServer((request, response) => {
  if (request.url === "/arrivals") return response.end(JSON.stringify(arrivals));
  arrivals.push(performance.now());
  request.resume();
  request.on("end", () => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(process.env.BODY);
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));`;

/** Arrival times at a server of a run under `perSecond`: the achieved rate and the busiest one-second window. */
async function budget(
  bulk: BulkModule,
  quick: boolean,
  perSecond: number,
): Promise<{ items: number; achieved: number; fullest: number }> {
  const sdk = await loadSdk();
  const child = spawn(process.execPath, ["-e", ARRIVAL_SERVER], {
    env: { ...process.env, BODY: USER_JSON },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout!.once("data", (chunk: Buffer) => resolve(Number(chunk.toString("utf8").trim())));
      child.once("exit", (code) => reject(new Error(`the arrival server exited with ${code}`)));
    });
    const apiUrl = `http://127.0.0.1:${port}`;
    const client = sdk.createStoreAdminClient({ apiUrl, accessToken: TOKEN });
    const items = quick ? 3 * perSecond : 15 * perSecond;
    await bulk.runBulk({
      client,
      runId: "budget",
      items: range(items),
      key: String,
      concurrency: 32,
      rate: { perSecond },
      task: (id, { client: runClient, signal }) => runClient.GET("/users/{id}/", { params: { path: { id } }, signal }),
    });
    const arrivals = (await (await fetch(`${apiUrl}/arrivals`)).json()) as number[];
    let fullest = 0;
    for (let i = 0, j = 0; j < arrivals.length; j++) {
      while (arrivals[j]! - arrivals[i]! >= 1000) i++;
      fullest = Math.max(fullest, j - i + 1);
    }
    const spanS = (arrivals.at(-1)! - arrivals[0]!) / 1000;
    return { items, achieved: (arrivals.length - 1) / spanS, fullest };
  } finally {
    child.kill("SIGKILL");
  }
}

/** The heap after forced collections, before and after a run of a million items with no calls. */
async function memory(
  bulk: BulkModule,
): Promise<{ items: number; flat: number; flatPeak: number; withKeys: number; ms: number }> {
  const sdk = await loadSdk();
  const items = 1_000_000;
  const client = sdk.createStoreAdminClient({ apiUrl: "http://127.0.0.1:9", accessToken: TOKEN });
  const settle = () => {
    collectGarbage();
    collectGarbage();
    return process.memoryUsage().heapUsed;
  };
  function* generated() {
    for (let id = 1; id <= items; id++) yield { id, note: `item ${id}` };
  }
  const nothingKept = {
    open: async () => ({ inDoubt: [] }),
    get: () => undefined,
    start: () => undefined,
    sending: () => undefined,
    end: () => undefined,
    checkpoint: () => undefined,
    close: async () => undefined,
  };
  let peak = 0;
  const before = settle();
  const start = performance.now();
  await bulk.runBulk({
    client,
    runId: "memory",
    items: generated(),
    key: (item) => String(item.id),
    concurrency: CONCURRENCY,
    ledger: nothingKept,
    task: (item) => {
      if (item.id % 50_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
      return item.id;
    },
  });
  const ms = performance.now() - start;
  const flat = settle() - before;

  const ledger = bulk.memoryLedger();
  const beforeKeys = settle();
  await bulk.runBulk({
    client,
    runId: "memory-keys",
    items: generated(),
    key: (item) => String(item.id),
    concurrency: CONCURRENCY,
    ledger,
    task: (item) => item.id,
  });
  const withKeys = settle() - beforeKeys;
  if (ledger.get("1") === undefined) throw new Error("the ledger lost its keys");
  return { items, flat, flatPeak: peak - before, withKeys, ms };
}

/** Opening (resuming) a file ledger of a million done keys, against reading and splitting the same file. */
async function resume(
  ledgers: BulkModule,
  quick: boolean,
): Promise<{ keys: number; bytes: number; open: number[]; read: number[] }> {
  const keys = 1_000_000;
  const dir = mkdtempSync(join(tmpdir(), "bench-ledger-"));
  const path = join(dir, "million.ledger");
  writeFileSync(
    path,
    ledgerLine(`H${JSON.stringify({ ledger: "store-admin-sdk/bulk", version: 1, runId: "million" })}`),
  );
  for (let from = 1; from <= keys; from += 50_000) {
    let chunk = "";
    for (let id = from; id < from + 50_000; id++) chunk += ledgerLine(`s"${id}"`) + ledgerLine(`d"${id}"`);
    appendFileSync(path, chunk);
  }
  const bytes = readFileSync(path).length;
  const open: number[] = [];
  const read: number[] = [];
  for (let round = 0; round < (quick ? 1 : 3); round++) {
    collectGarbage();
    let start = performance.now();
    const ledger = ledgers.fileLedger(path);
    const state = await ledger.open("million");
    if ((await ledger.get(String(keys)))?.state !== "done" || state.inDoubt.length !== 0)
      throw new Error("the ledger did not read back");
    open.push(performance.now() - start);
    await ledger.close();
    collectGarbage();
    start = performance.now();
    const lines = readFileSync(path, "utf8").split("\n").length;
    if (lines < keys) throw new Error("short file");
    read.push(performance.now() - start);
  }
  rmSync(dir, { recursive: true, force: true });
  return { keys, bytes, open, read };
}

export async function bulkRunner(quick: boolean): Promise<Section> {
  const bulk = await load<BulkModule>("dist/src/bulk/index.js");
  const RATE = 200;
  const speed = await throughput(bulk, quick);
  const rate = await budget(bulk, quick, RATE);
  const heap = await memory(bulk);
  const opened = await resume(bulk, quick);

  return bulkSection({ RATE, speed, rate, heap, opened });
}

/** What the four measurements of the bulk runner found, as `bulkRunner` hands them to its section. */
interface BulkFigures {
  RATE: number;
  speed: Awaited<ReturnType<typeof throughput>>;
  rate: Awaited<ReturnType<typeof budget>>;
  heap: Awaited<ReturnType<typeof memory>>;
  opened: Awaited<ReturnType<typeof resume>>;
}

/** The ratios the note, the tables and the summary share, worked out once. */
function bulkRatios({ RATE, speed, rate, opened }: BulkFigures) {
  const ratio = pairedRatio(speed.ours, speed.pool);
  const achieved = rate.achieved / RATE;
  const fullest = rate.fullest / RATE;
  const openMs = summarize(opened.open);
  return { ratio, achieved, fullest, openMs };
}

/** The section of docs/performance.md: its note, its tables and its summary rows. */
function bulkSection(f: BulkFigures): Section {
  const ratios = bulkRatios(f);
  return {
    title: "Bulk runner",
    note: bulkNote(f),
    tables: bulkTables(f, ratios),
    summary: bulkSummary(f, ratios),
  };
}

/** The section's note: what each of the four measurements runs, against what, how often. */
function bulkNote({ RATE, speed, rate, heap, opened }: BulkFigures): string {
  return oneLine(`
      \`store-admin-sdk/bulk\`, built. Throughput: ${int(speed.items)} items, one \`GET /users/{id}/\` each, against the
      loopback server with no rate budget, \`runBulk\` (memory ledger, concurrency ${CONCURRENCY}) against a hand-written
      pool of ${CONCURRENCY} async workers taking ids from a shared counter, over the same client and the same call;
      ${speed.rounds} runs each, in rotating order, after a warm-up run of each; the ratio is of items per second,
      paired by round. Budget: ${int(rate.items)} items at \`rate: { perSecond: ${RATE} }\` (concurrency 32) against a
      server in a process of its own that notes when each request arrives: the achieved rate is requests over the time from the
      first to the last arrival, the busiest window is the most arrivals within any 1,000 ms (the budget keeps
      ${RATE} sends at least 1,050 ms apart: its 50 ms margin absorbs arrival jitter, and costs 5% of the rate). Memory: ${int(heap.items)}
      generated items through a task that makes no call, the heap after forced collections, once with a ledger that keeps
      nothing (the runner's own) and once with \`memoryLedger()\` (which keeps every key). Resume: opening a
      \`fileLedger\` of ${int(opened.keys)} done keys (a start and an end record each, ${mb(opened.bytes)}), against
      reading the same file and splitting its lines.`);
}

/** The section's tables: throughput, the budget, memory over a million items, resume. */
function bulkTables(
  { rate, heap, speed, opened }: BulkFigures,
  { ratio, achieved, fullest, openMs }: ReturnType<typeof bulkRatios>,
): string[][][] {
  return [
    [
      ["throughput (items/s)", "median (IQR)"],
      ["`runBulk`", cell(summarize(speed.ours), int)],
      ["Promise pool", cell(summarize(speed.pool), int)],
      ["ours ÷ pool (goal ≥ 0.95×)", cell(ratio, times)],
    ],
    [
      ["budget of 200/s", "result"],
      ["achieved ÷ budget (goal ≥ 0.90×; the 50 ms margin caps it at 0.95×)", times(achieved)],
      ["busiest 1-second arrival window ÷ budget (goal ≤ 1.00×)", `${times(fullest)} (${rate.fullest} requests)`],
    ],
    [
      ["memory over a million items", "heap"],
      ["runner alone, after the run", mb(heap.flat)],
      ["runner alone, highest seen during the run", mb(heap.flatPeak)],
      ["with `memoryLedger()` holding every key", `${mb(heap.withKeys)} (${int(heap.withKeys / heap.items)} B a key)`],
      ["time for the million (no calls)", seconds(heap.ms)],
    ],
    [
      ["resume over a million done keys", "median (IQR)"],
      ["`fileLedger(path).open(runId)`", cell(openMs, seconds)],
      ["read and split the file (floor)", cell(summarize(opened.read), seconds)],
      ["open ÷ read", cell(pairedRatio(opened.open, opened.read), times)],
    ],
  ];
}

/** The section's rows in the summary table, each against its goal. */
function bulkSummary(
  { RATE, speed, heap }: BulkFigures,
  { ratio, achieved, fullest, openMs }: ReturnType<typeof bulkRatios>,
): string[][] {
  return [
    [
      `bulk, ${int(speed.items)} items, no budget: runBulk ÷ Promise pool`,
      times(ratio.median),
      "≥ 0.95×",
      status(ratio.median >= 0.95),
    ],
    [
      `bulk at ${RATE}/s: achieved ÷ budget; busiest 1-second arrival window ÷ budget`,
      `${times(achieved)}; ${times(fullest)}`,
      "≥ 0.90×; ≤ 1.00×",
      status(achieved >= 0.9 && fullest <= 1),
    ],
    [
      "bulk over a million items: runner heap after; peak",
      `${mb(heap.flat)}; ${mb(heap.flatPeak)}`,
      "≤ 16 MB; ≤ 64 MB",
      status(heap.flat <= 16 * 1024 * 1024 && heap.flatPeak <= 64 * 1024 * 1024),
    ],
    [
      "bulk resume: open a ledger of a million done keys",
      seconds(openMs.median),
      "seconds (≤ 5 s)",
      status(openMs.median <= 5000),
    ],
  ];
}
