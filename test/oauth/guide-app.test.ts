/**
 * The guide's partner app ("Partner apps", docs/guide.md), run as written against the built
 * package: a merchant installs it on a store (begin, the store's authorization, the callback),
 * then the app calls the store with the stored token. A forged callback is refused.
 */
import { rm } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensureBuilt } from "../package/tarball.js";
import {
  authorize,
  CLIENT_ID,
  CLIENT_SECRET,
  REDIRECT_URI,
  startTestStore,
  type TestStore,
} from "./authorization-server.js";
import { guideBlock } from "./guide-blocks.js";

let server: TestStore;
let dir: string;
let app: { fetch(request: Request): Response | Promise<Response> };

beforeAll(async () => {
  await ensureBuilt();
  server = await startTestStore();
  Object.assign(process.env, {
    PARTNER_CLIENT_ID: CLIENT_ID,
    PARTNER_CLIENT_SECRET: CLIENT_SECRET,
    PARTNER_REDIRECT_URI: REDIRECT_URI,
    PARTNER_ALLOWED_STORES: ".stores.example.com",
    PARTNER_TEST_ORIGIN: server.origin,
    PARTNER_COOKIE_SECRET: "a-cookie-secret-for-the-test",
  });
  const block = await guideBlock("new Hono()", "app.ts");
  dir = block.dir;
  app = ((await import(pathToFileURL(block.file).href)) as { default: typeof app }).default;
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const request = (path: string, cookie?: string) =>
  app.fetch(new Request(new URL(path, "https://partner.example"), { headers: cookie ? { cookie } : {} }));

/** The cookie the app set, as a browser sends it back. */
const cookieOf = (response: Response): string =>
  response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!)
    .join("; ");

it("installs on a store and calls it with the store's token", async () => {
  const install = await request("/oauth/install?store=shop.stores.example.com");
  expect(install.status).toBe(302);
  const link = install.headers.get("location")!;
  expect(link).toMatch(new RegExp(`^${server.origin}/oauth2/authorize/\\?response_type=code&`));
  const cookie = cookieOf(install);
  expect(cookie).toMatch(/^oauth=/);

  const back = new URL(await authorize(link));
  expect(back.origin + back.pathname).toBe(REDIRECT_URI);
  const installed = await request(back.pathname + back.search, cookie);
  expect(await installed.text()).toBe("Installed on shop.stores.example.com.");
  expect(installed.status).toBe(200);
  expect(server.tokenRequests.map((seen) => seen.body.grant_type)).toEqual(["authorization_code"]);

  const user = await request("/stores/shop.stores.example.com/users/42");
  expect(user.status).toBe(200);
  expect(await user.json()).toEqual({ id: 42, email: "ada@example.com" });
  expect(server.requests.at(-1)).toBe("GET /api/admin/users/42/");
});

it("refuses a callback whose state was tampered with, and a store outside the allow-list, sending nothing", async () => {
  const install = await request("/oauth/install?store=shop.stores.example.com");
  const back = new URL(await authorize(install.headers.get("location")!));
  back.searchParams.set("state", "forged");
  server.requests.length = 0;
  const forged = await request(back.pathname + back.search, cookieOf(install));
  expect(forged.status).toBe(400);
  expect(await forged.text()).toMatch(/state/);

  const elsewhere = await request("/oauth/install?store=shop.attacker.test");
  expect(elsewhere.status).toBe(400);
  expect(await elsewhere.text()).toMatch(/not in allowedStores/);
  expect(server.requests).toEqual([]);
});
