/**
 * A workload for `node --cpu-prof`: `scripts/bench.ts` runs it in a child process to show
 * where our client's time goes (see cpu-profile.ts). Arguments: `get` or `post` (our client
 * over the stub fetch of benchmark 1) or `paginate` (100,000 items from the loopback
 * server), then the seconds to run for.
 */
import { clientCalls, loadSdk, PRODUCT_JSON, stubFetch, TOKEN, USER_JSON } from "./fixtures.js";
import { startLoopbackServer } from "./server.js";

const [target = "get", seconds = "5"] = process.argv.slice(2);
const sdk = await loadSdk();
const until = performance.now() + Number(seconds) * 1000;

if (target === "get" || target === "post") {
  const fetch = stubFetch(target === "get" ? USER_JSON : PRODUCT_JSON);
  const op = clientCalls(sdk.createStoreAdminClient({ apiUrl: "https://shop.example.com/api/admin", accessToken: TOKEN, fetch }))[target];
  while (performance.now() < until) {
    for (let i = 0; i < 16; i++) await op();
    await new Promise((resolve) => setImmediate(resolve)); // as in stats.ts: let the event loop turn
  }
} else if (target === "paginate") {
  const server = await startLoopbackServer();
  try {
    const store = sdk.createStoreAdminClient({ apiUrl: `${server.url}/n100000`, accessToken: TOKEN });
    while (performance.now() < until) for await (const user of store.paginate("/users/")) if (user.id === undefined) throw new Error("no id");
  } finally {
    await server.close();
  }
} else {
  throw new Error(`unknown profile target ${target}`);
}
