/**
 * The queue across processes (`store-admin-sdk/bulk/bullmq`, built): worker processes of the
 * built package, a real redis-server on 127.0.0.1, and a keep-alive `node:http` server in this
 * process that notes when each request arrives (the workers are other processes, so this one
 * is otherwise idle).
 *
 * - One budget: 3 workers against `rate: { perSecond: 200 }`; achieved rate ÷ budget over the
 *   run (first to last arrival), and the busiest 1-second window ÷ budget.
 * - Scale: with no budget, jobs per second of 3 workers ÷ 1 worker, interleaved rounds.
 */
import { fork, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:http";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startRedis, type RedisServer } from "../redis-server.js";
import { ROOT, TOKEN, USER_JSON } from "./fixtures.js";
import { cell, oneLine, pairedRatio, status, summarize, times, type Section, type Summary } from "./measure.js";

const BUDGET = 200;
const CONCURRENCY = 8;

/** Arrival times (performance.now()) of the requests the server received. */
interface ArrivalServer {
  url: string;
  arrivals: number[];
  close(): Promise<void>;
}

async function startArrivalServer(): Promise<ArrivalServer> {
  const arrivals: number[] = [];
  const server: Server = createServer({ keepAlive: true }, (request, response) => {
    arrivals.push(performance.now());
    request.resume();
    request.on("end", () => {
      const ok = request.headers.authorization === `Bearer ${TOKEN}`;
      const body = ok ? USER_JSON : `{"detail":"missing token"}`;
      response.writeHead(ok ? 200 : 401, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      response.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function startWorkers(count: number, env: Record<string, string | number>): Promise<ChildProcess[]> {
  const script = fileURLToPath(new URL("./bulk-worker.ts", import.meta.url));
  return Promise.all(
    Array.from({ length: count }, () => {
      const child = fork(script, [], {
        execArgv: ["--import", "tsx"],
        env: { ...process.env, ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])) },
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      return new Promise<ChildProcess>((resolve, reject) => {
        child.once("message", () => resolve(child));
        child.once("exit", (code) => reject(new Error(`bench worker exited with ${code} before it was ready`)));
      });
    }),
  );
}

async function stopWorkers(workers: ChildProcess[]): Promise<void> {
  await Promise.all(
    workers.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once("exit", () => resolve());
          process.kill(child.pid!, "SIGTERM");
        }),
    ),
  );
}

/** The busiest `windowMs` of sorted arrival times. */
function maxInWindow(times: readonly number[], windowMs: number): number {
  let max = 0;
  for (let end = 0, start = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= windowMs) start++;
    max = Math.max(max, end - start + 1);
  }
  return max;
}

interface Run {
  /** Requests per second from the first arrival to the last. */
  perSecond: number;
  maxWindow: number;
}

/** One run: `workers` processes on a fresh queue of `items` GETs; resolves once all have arrived. */
async function runOnce(redis: RedisServer, server: ArrivalServer, name: string, workers: number, items: number, rate?: number): Promise<Run> {
  const { createBulkQueue } = (await import(pathToFileURL(`${ROOT}dist/src/bulk/bullmq/index.js`).href)) as typeof import("../../src/bulk/bullmq/index.js");
  const env = { QUEUE: name, REDIS_PORT: redis.port, API_URL: server.url, TOKEN, CONCURRENCY, ...(rate ? { RATE: rate } : {}) };
  const children = await startWorkers(workers, env);
  const bulk = createBulkQueue<{ id: number }>({ name, connection: { host: "127.0.0.1", port: redis.port } });
  server.arrivals.length = 0;
  try {
    await bulk.add(
      Array.from({ length: items }, (_, i) => ({ id: i + 1 })),
      { key: (item) => String(item.id) },
    );
    const deadline = Date.now() + 600_000;
    // Only the server runs in this process while requests arrive (its clock is the one measured);
    // the queue is asked once they are all in.
    while (server.arrivals.length < items || (await bulk.status()).done < items) {
      if (Date.now() > deadline) throw new Error(`${name}: not done after 10 minutes`);
      while (server.arrivals.length < items && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const times = [...server.arrivals].sort((a, b) => a - b);
    return { perSecond: ((times.length - 1) * 1000) / (times.at(-1)! - times[0]!), maxWindow: maxInWindow(times, 1000) };
  } finally {
    await stopWorkers(children);
    await bulk.close();
  }
}

export async function bulkQueue(quick: boolean): Promise<Section> {
  const redis = await startRedis();
  const server = await startArrivalServer();
  try {
    // One budget of 200/s for three workers: 10 s of requests per round.
    const budgetRounds = quick ? 1 : 3;
    const budgetItems = quick ? 400 : BUDGET * 10;
    const budget: Run[] = [];
    for (let round = 0; round < budgetRounds; round++) budget.push(await runOnce(redis, server, `bench-budget-${round}`, 3, budgetItems, BUDGET));
    const achieved = summarize(budget.map((r) => r.perSecond / BUDGET));
    const window = summarize(budget.map((r) => r.maxWindow / BUDGET));
    const worstWindow = Math.max(...budget.map((r) => r.maxWindow / BUDGET));

    // No budget: 3 workers ÷ 1 worker, interleaved, the order alternating per round.
    const scaleRounds = quick ? 1 : 4;
    const scaleItems = quick ? 600 : 3000;
    const one: number[] = [];
    const three: number[] = [];
    for (let round = 0; round < scaleRounds; round++) {
      for (const workers of round % 2 ? [3, 1] : [1, 3]) {
        const run = await runOnce(redis, server, `bench-scale-${round}-${workers}`, workers, scaleItems);
        (workers === 1 ? one : three).push(run.perSecond);
      }
    }
    const scale: Summary = pairedRatio(three, one);
    const perSecond = (n: number): string => `${Math.round(n).toLocaleString("en-US")}/s`;
    return {
      title: "Bulk work across processes (BullMQ + Redis)",
      note: oneLine(`
        \`store-admin-sdk/bulk/bullmq\`, built: worker processes (${CONCURRENCY} tasks each, one \`GET /users/{id}/\`
        per item, each worker its own client) on a queue in a real redis-server on 127.0.0.1, against a
        keep-alive \`node:http\` server in the benchmark's process that notes each request's arrival. The
        budget rounds (${budgetRounds} × ${budgetItems.toLocaleString("en-US")} items) run 3 workers against one
        budget of ${BUDGET} requests/s; the achieved rate is taken from the first arrival to the last, the window
        is the busiest second at the server. The scale rounds (${scaleRounds} × ${scaleItems.toLocaleString("en-US")}
        items, no budget) alternate 1 and 3 workers; all share the machine's 2 cores with Redis and the server.
        The budget lets at most ${BUDGET} requests start in any 1,050 ms on Redis's clock, and logs a start again
        when Redis's answer took more than 12.5 ms to reach the worker; a window at the server holds more only when
        a worker process is not scheduled between being let through and sending for longer than the rest of the
        50 ms margin, which grows with the machine's load. With no budget, more
        worker processes than cores only add contention here: scale-out pays on more cores or machines.`),
      tables: [
        [
          ["measure", "result"],
          ["3 workers, budget 200/s: achieved ÷ budget", cell(achieved, times)],
          ["3 workers, budget 200/s: busiest 1-second arrival window ÷ budget (goal ≤ 1.00×)", cell(window, times)],
          ["no budget, 1 worker (jobs/s)", cell(summarize(one), perSecond)],
          ["no budget, 3 workers (jobs/s)", cell(summarize(three), perSecond)],
          ["no budget, 3 workers ÷ 1 worker", cell(scale, times)],
        ],
      ],
      summary: [
        ["queue, 3 workers on one budget of 200/s: achieved ÷ budget", times(achieved.median), "≥ 0.90×", status(achieved.median >= 0.9)],
        // "No window above": every round's busiest window counts, the worst one decides.
        [
          "queue, 3 workers on one budget of 200/s: busiest 1-second window ÷ budget (worst round)",
          `${times(window.median)} (${times(worstWindow)})`,
          "≤ 1.00×",
          status(worstWindow <= 1),
        ],
        ["queue, no budget: 3 workers ÷ 1 worker (jobs/s)", times(scale.median), "reported", "–"],
      ],
    };
  } finally {
    await server.close();
    await redis.dispose();
  }
}
