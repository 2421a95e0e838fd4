/**
 * A worker process of the queue benchmark: the BUILT package's `createBulkQueue().work()` with
 * its own client, running `GET /users/{id}/` per item. Environment: QUEUE, REDIS_PORT, API_URL,
 * TOKEN, RATE (optional), CONCURRENCY. Sends "ready" over IPC; SIGTERM closes it.
 */
import { pathToFileURL } from "node:url";
import { ROOT } from "./fixtures.js";

const { createStoreAdminClient } = (await import(
  pathToFileURL(`${ROOT}dist/src/index.js`).href
)) as typeof import("../../src/index.js");
const { createBulkQueue } = (await import(
  pathToFileURL(`${ROOT}dist/src/bulk/bullmq/index.js`).href
)) as typeof import("../../src/bulk/bullmq/index.js");

const env = process.env as Record<string, string>;
const store = createStoreAdminClient({ apiUrl: env.API_URL!, accessToken: env.TOKEN! });
const bulk = createBulkQueue<{ id: number }>({
  name: env.QUEUE!,
  connection: { host: "127.0.0.1", port: Number(env.REDIS_PORT) },
  ...(env.RATE ? { rate: { perSecond: Number(env.RATE) } } : {}),
});
const worker = bulk.work(
  (item, { client, signal }) => client.GET("/users/{id}/", { params: { path: { id: item.id } }, signal }),
  {
    client: store,
    concurrency: Number(env.CONCURRENCY ?? 8),
  },
);
process.once("SIGTERM", () => void bulk.close().then(() => process.exit(0)));
await worker.ready();
process.send!("ready");
