/** Searches a whole Redis for a secret's bytes: what the token tests use to show it never got there. */
import type { Redis } from "ioredis";

/** Every key of Redis whose DUMP (or name) holds `needle`, and how many keys were scanned. */
export async function keysHolding(redis: Redis, needle: string): Promise<{ scanned: number; found: string[] }> {
  const bytes = Buffer.from(needle, "utf8");
  const found: string[] = [];
  let scanned = 0;
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "COUNT", 500);
    cursor = next;
    for (const key of keys) {
      scanned += 1;
      const dump = await redis.dumpBuffer(key);
      if (dump?.includes(bytes) || key.includes(needle)) found.push(key);
    }
  } while (cursor !== "0");
  return { scanned, found };
}
