/**
 * Two processes of a partner app sharing the guide's Redis storage (docs/guide.md, "Partner
 * apps"), against a real redis-server and the test store on 127.0.0.1: when the store's token
 * is due, or the store refuses it (401), their concurrent calls cause exactly one refresh, and
 * every call succeeds once.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startRedis, type RedisServer } from "../../scripts/redis-server.js";
import { createPartnerApp, type StoredTokens, type TokenStorage } from "../../src/oauth/index.js";
import { ensureBuilt, ROOT } from "../package/tarball.js";
import {
  authorize,
  CLIENT_ID,
  CLIENT_SECRET,
  REDIRECT_URI,
  startTestStore,
  type TestStore,
} from "./authorization-server.js";
import { guideBlock } from "./guide-blocks.js";

const CHILD = join(ROOT, "test", "oauth", "fixtures", "refresh-process.ts");
const CALLS_EACH = 10;

let server: TestStore;
let redisServer: RedisServer;
let redis: Redis;
let storageModule: string;
let dir: string;
let storage: TokenStorage;

beforeAll(async () => {
  await ensureBuilt();
  [server, redisServer] = await Promise.all([startTestStore(), startRedis()]);
  redis = new Redis({ host: "127.0.0.1", port: redisServer.port });
  const block = await guideBlock("redisTokenStorage", "redis-storage.ts");
  dir = block.dir;
  storageModule = pathToFileURL(block.file).href;
  storage = ((await import(storageModule)) as { redisTokenStorage: (redis: Redis) => TokenStorage }).redisTokenStorage(
    redis,
  );
}, 120_000);

afterAll(async () => {
  redis?.disconnect();
  await Promise.all([server?.close(), redisServer?.dispose()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A child process, its stdout lines as they come. */
function startChild(): { child: ChildProcess; line: () => Promise<string> } {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", CHILD, server.origin, String(redisServer.port), storageModule, String(CALLS_EACH)],
    { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] },
  );
  let buffered = "";
  let stderr = "";
  const waiting: Array<(line: string) => void> = [];
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      waiting.shift()?.(line);
    }
  });
  const line = () =>
    new Promise<string>((resolve, reject) => {
      waiting.push(resolve);
      child.once("exit", (code) => reject(new Error(`child exited with ${code}: ${stderr}`)));
    });
  return { child, line };
}

/** Installs the app on the store (in this process), lets `prepare` change what is stored or served, then runs two children at once. */
async function twoProcesses(prepare: (tokens: StoredTokens) => Promise<void> | void) {
  const app = createPartnerApp({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri: REDIRECT_URI,
    allowedStores: [".stores.example.com"],
    scopes: ["users:read"],
    storage,
    testOrigin: server.origin,
  });
  const began = await app.begin({ store: "shop.stores.example.com" });
  await app.callback(await authorize(began.url), began);
  const tokens = (await storage.get("shop.stores.example.com"))!;
  await prepare(tokens);
  server.tokenRequests.length = 0;
  server.requests.length = 0;

  const children = [startChild(), startChild()];
  await Promise.all(children.map(({ line }) => line().then((text) => expect(text).toBe("ready"))));
  const results = children.map(({ line }) => line());
  for (const { child } of children) child.stdin!.write("go\n");
  const outcomes = (await Promise.all(results)).map(
    (text) => JSON.parse(text) as Array<{ id?: number; error?: string }>,
  );
  for (const list of outcomes) expect(list).toEqual(Array.from({ length: CALLS_EACH }, (_, i) => ({ id: i + 1 })));
  expect(server.tokenRequests.map((seen) => seen.body.grant_type)).toEqual(["refresh_token"]);
  expect(server.tokenRequests[0]!.body.refresh_token).toBe(tokens.refreshToken);
  const refreshed = (await storage.get("shop.stores.example.com"))!;
  expect(refreshed.refreshToken).not.toBe(tokens.refreshToken);
  expect(await redis.keys("partner-app:lock:*")).toEqual([]);
}

it("two processes sharing the storage: one refresh for their 20 concurrent calls on a due token, each call succeeding once", async () => {
  await twoProcesses((tokens) => storage.set("shop.stores.example.com", { ...tokens, expiresAt: Date.now() + 1000 }));
  expect(server.requests.filter((request) => request.startsWith("GET /api/admin/"))).toHaveLength(2 * CALLS_EACH);
}, 60_000);

it("two processes sharing the storage: one refresh for their 20 concurrent calls meeting a 401, each call sent again and succeeding once", async () => {
  await twoProcesses(() => server.revokeAccessTokens());
  // Each call twice: the 401, then the resend with the refreshed token.
  expect(server.requests.filter((request) => request.startsWith("GET /api/admin/"))).toHaveLength(4 * CALLS_EACH);
}, 60_000);
