/**
 * The queue's keys are bound to their items, as runBulk's are with `fingerprint`: a key done
 * (or queued) under another item is refused by `add()`, naming the queue, the key and the item,
 * with the items before it queued and nothing sent for it; the same items again are accepted.
 * A real redis-server and worker processes; requests counted at the server.
 */
import { describe, expect, it } from "vitest";
import type { TestItem } from "./fixtures/worker.js";
import { useQueueEnvironment } from "./helpers/environment.js";

const env = useQueueEnvironment("sk_live_binding_token_0123456789");
const key = (item: TestItem) => String(item.id);

describe("a key is bound to its item", () => {
  it("a done key added again with another item is refused; the same items again are accepted, nothing sent twice", async () => {
    const { server } = env;
    server.reset();
    const bulk = env.queue("binding");
    const yesterday: TestItem[] = [1, 2, 3].map((id) => ({ id, method: "PATCH" }));
    await bulk.add(yesterday, { key });
    const workers = await env.startWorkers("binding", 1);
    await env.settled(bulk, 3);
    expect(server.requests).toHaveLength(3);

    expect(await bulk.add(yesterday, { key })).toBe(3);
    // Today: key 4 is new, key 2 comes with another item.
    const today: TestItem[] = [
      { id: 4, method: "PATCH" },
      { id: 2, method: "POST" },
      { id: 5, method: "PATCH" },
    ];
    await expect(bulk.add(today, { key })).rejects.toThrow(
      'add(): the queue "binding" holds the key "2" with another item than item 1 of this add. The same key with a different item is a different run: use another queue name, or restore the item as it was. Items before it were queued.',
    );
    await env.settled(bulk, 4);
    expect(server.requests.map((r) => `${r.method} ${r.key}`).sort()).toEqual([
      "PATCH 1",
      "PATCH 2",
      "PATCH 3",
      "PATCH 4",
    ]);
    expect(await bulk.status()).toMatchObject({ done: 4, waiting: 0 });
    await Promise.all(workers.map((worker) => worker.kill("SIGTERM")));
  }, 60_000);
});
