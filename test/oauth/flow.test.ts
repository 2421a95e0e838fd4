/**
 * store-admin-sdk/oauth against a real authorization server on 127.0.0.1 (the vendor's paths,
 * form-encoded token requests) and a store that accepts only the tokens it issued: the whole
 * flow, the callback's checks (state, then the store, before the client secret goes anywhere),
 * the granted scopes, a refresh before expiry (one for many callers, the rotated refresh token
 * kept), and a token endpoint that refuses, fails or cannot be reached.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AuthenticationError, ConnectionError, InternalServerError } from "../../src/index.js";
import {
  createPartnerApp,
  memoryTokenStorage,
  OAuthError,
  type PartnerAppOptions,
  type TokenStorage,
} from "../../src/oauth/index.js";
import {
  authorize,
  CLIENT_ID,
  CLIENT_SECRET,
  REDIRECT_URI,
  startTestStore,
  type TestStore,
} from "./authorization-server.js";
import { leakedSecrets } from "./leaks.js";

let server: TestStore;
beforeAll(async () => {
  server = await startTestStore();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.tokenRequests.length = 0;
  server.expiresInSeconds = 3600;
  server.grantScope = undefined;
  server.tokenFailure = undefined;
  server.storeParam = "shop.stores.example.com";
});

const appOptions = (overrides: Partial<PartnerAppOptions> = {}): PartnerAppOptions => ({
  clientId: CLIENT_ID,
  clientSecret: CLIENT_SECRET,
  redirectUri: REDIRECT_URI,
  allowedStores: [".stores.example.com", "solo.example.org"],
  scopes: ["users:read", "disputes:write"],
  testOrigin: server.origin,
  ...overrides,
});

/** begin → the merchant's browser → callback: the store's tokens stored. */
async function install(options: Partial<PartnerAppOptions> = {}) {
  const storage = options.storage ?? memoryTokenStorage();
  const app = createPartnerApp(appOptions({ ...options, storage }));
  const began = await app.begin({ store: "shop.stores.example.com" });
  const result = await app.callback(await authorize(began.url), began);
  return { app, storage, began, result };
}

describe("the whole flow", () => {
  it("links to the vendor's authorize path, exchanges the code as a form with the client secret, and calls the store with the token", async () => {
    const { app, began, result, storage } = await install();
    const link = new URL(began.url);
    expect(link.origin + link.pathname).toBe(`${server.origin}/oauth2/authorize/`);
    expect(Object.fromEntries(link.searchParams)).toMatchObject({
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      scope: "users:read disputes:write",
      state: began.state,
      code_challenge_method: "S256",
    });
    expect(began.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43,}$/);

    expect(server.tokenRequests).toHaveLength(1);
    const [exchange] = server.tokenRequests;
    expect(exchange!.contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(exchange!.body).toMatchObject({
      grant_type: "authorization_code",
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uri: REDIRECT_URI,
      code_verifier: began.codeVerifier,
    });
    expect(exchange!.body.code).toMatch(/./);
    expect(server.requests).toContain("POST /oauth2/token/");

    expect(result).toEqual({
      store: "shop.stores.example.com",
      scopes: ["users:read", "disputes:write"],
      missingScopes: [],
      extraScopes: [],
    });
    const stored = await storage.get("shop.stores.example.com");
    expect(server.valid.has(stored!.accessToken)).toBe(true);
    expect(stored!.refreshToken).toBe(server.issued[1]);
    expect(stored!.expiresAt).toBeGreaterThan(Date.now() + 3_000_000);

    const store = app.client("shop.stores.example.com");
    expect((await store.users.retrieve(42)).id).toBe(42);
    expect(server.requests.at(-1)).toBe("GET /api/admin/users/42/");
  });

  it("sends no PKCE with pkce: false", async () => {
    const { began } = await install({ pkce: false });
    expect(new URL(began.url).searchParams.has("code_challenge")).toBe(false);
    expect(began.codeVerifier).toBeUndefined();
    expect(server.tokenRequests[0]!.body).not.toHaveProperty("code_verifier");
  });

  it("reports the scopes granted when they differ from those asked for", async () => {
    server.grantScope = "users:read orders:read";
    const { result, storage } = await install();
    expect(result).toMatchObject({
      scopes: ["users:read", "orders:read"],
      missingScopes: ["disputes:write"],
      extraScopes: ["orders:read"],
    });
    expect((await storage.get("shop.stores.example.com"))!.scopes).toEqual(["users:read", "orders:read"]);
  });
});

describe("the callback refuses before anything carries the client secret", () => {
  const callbackWith = async (mutate: (url: URL) => void, began?: { store: string | undefined }) => {
    const app = createPartnerApp(appOptions());
    const begun = await app.begin({ store: "shop.stores.example.com" });
    const url = new URL(await authorize(begun.url));
    mutate(url);
    server.requests.length = 0;
    const error = await app.callback(url, { ...begun, ...began }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    return error as OAuthError;
  };

  it("a tampered state", async () => {
    const error = await callbackWith((url) => url.searchParams.set("state", `${url.searchParams.get("state")}x`));
    expect(error).toBeInstanceOf(OAuthError);
    expect(error.reason).toBe("state_mismatch");
    expect(server.requests).toEqual([]);
  });

  it("a state missing from the redirect", async () => {
    const error = await callbackWith((url) => url.searchParams.delete("state"));
    expect(error.reason).toBe("state_mismatch");
    expect(server.requests).toEqual([]);
  });

  const refused: Array<[string, string]> = [
    ["outside the allow-list", "shop.other.example.com"],
    ["a look-alike suffix", "evilstores.example.com"],
    ["an allowed suffix followed by more", "shop.stores.example.com.attacker.test"],
    ["the suffix's own domain (not below it)", "stores.example.com"],
    ["user info", "attacker.test@shop.stores.example.com"],
    ["a port", "shop.stores.example.com:8443"],
    ["a path", "shop.stores.example.com/x"],
    ["a URL", "https://shop.stores.example.com"],
    ["a backslash", "attacker.test\\.stores.example.com"],
    ["a percent escape", "shop%2estores.example.com"],
    ["white space", "shop.stores.example.com "],
    ["an empty value", ""],
    ["an exact entry with a sub-domain", "x.solo.example.org"],
  ];
  for (const [what, value] of refused) {
    it(`a store with ${what}: ${JSON.stringify(value)}`, async () => {
      const error = await callbackWith((url) => url.searchParams.set("store", value), { store: undefined });
      expect(error).toBeInstanceOf(OAuthError);
      expect(error.reason).toBe("store_refused");
      expect(error.message).toMatch(/nothing was sent/);
      expect(server.requests).toEqual([]);
      expect(server.tokenRequests).toEqual([]);
    });
  }

  it("a store other than the one begin() was for", async () => {
    const error = await callbackWith((url) => url.searchParams.set("store", "other.stores.example.com"), {
      store: "shop.stores.example.com",
    });
    expect(error.reason).toBe("store_refused");
    expect(server.requests).toEqual([]);
  });

  it("accepts the store in another letter case and with a trailing dot, stored under its normal form", async () => {
    const storage = memoryTokenStorage();
    const app = createPartnerApp(appOptions({ storage }));
    const began = await app.begin({ store: "Shop.Stores.Example.COM." });
    expect(began.store).toBe("shop.stores.example.com");
    server.storeParam = "SHOP.stores.example.com.";
    const result = await app.callback(await authorize(began.url), began);
    expect(result.store).toBe("shop.stores.example.com");
    expect(await storage.get("shop.stores.example.com")).toBeDefined();
  });

  it("has no default allow-list, and refuses entries that would allow too much", () => {
    expect(() => createPartnerApp({ ...appOptions(), allowedStores: [] })).toThrow(/no default that allows any host/);
    expect(() => createPartnerApp({ ...appOptions(), allowedStores: [".com"] })).toThrow(/top-level domain/);
    expect(() => createPartnerApp({ ...appOptions(), allowedStores: ["*.stores.example.com"] })).toThrow(
      /leading dot, ".stores.example.com"/,
    );
    expect(() => createPartnerApp({ ...appOptions(), allowedStores: ["shop.example.com:443"] })).toThrow(/port/);
    expect(() => createPartnerApp({ ...appOptions(), testOrigin: "http://localhost:80" as never })).toThrow(
      /http:\/\/127\.0\.0\.1:<port>/,
    );
  });
});

describe("the token source", () => {
  /** The store's tokens made due for refresh (the server said they expire within refreshBeforeExpiryMs). */
  const dueSoon = async (storage: TokenStorage) => {
    const tokens = (await storage.get("shop.stores.example.com"))!;
    await storage.set("shop.stores.example.com", { ...tokens, expiresAt: Date.now() + 30_000 });
    return tokens;
  };

  it("refreshes before expiry, once for 20 concurrent calls, and keeps the rotated refresh token for the next refresh", async () => {
    const { app, storage } = await install();
    const first = await dueSoon(storage);
    server.tokenRequests.length = 0;
    const store = app.client("shop.stores.example.com");
    const users = await Promise.all(Array.from({ length: 20 }, (_, i) => store.users.retrieve(i + 1)));
    expect(users.map((user) => user.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(server.tokenRequests.map((request) => request.body.grant_type)).toEqual(["refresh_token"]);
    expect(server.tokenRequests[0]!.body).toMatchObject({
      refresh_token: first.refreshToken,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    const second = (await storage.get("shop.stores.example.com"))!;
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(server.validRefresh.has(second.refreshToken!)).toBe(true);

    await dueSoon(storage);
    await store.users.retrieve(1);
    expect(server.tokenRequests).toHaveLength(2);
    expect(server.tokenRequests[1]!.body.refresh_token).toBe(second.refreshToken);
  });

  it("with a token endpoint answering 503 past expiry: fails as a server error and keeps the tokens", async () => {
    const { app, storage } = await install();
    const tokens = (await storage.get("shop.stores.example.com"))!;
    await storage.set("shop.stores.example.com", { ...tokens, expiresAt: Date.now() - 1 });
    server.tokenFailure = { status: 503, body: { error: "temporarily_unavailable" } };
    const error = await app
      .client("shop.stores.example.com")
      .users.retrieve(1)
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(503);
    expect(await storage.get("shop.stores.example.com")).toEqual({ ...tokens, expiresAt: expect.any(Number) });
    expect(leakedSecrets(error, server.issued)).toEqual([]);
    server.tokenFailure = undefined;
    expect((await app.client("shop.stores.example.com").users.retrieve(3)).id).toBe(3);
  });

  it("with a token endpoint that cannot be reached past expiry: fails as a connection error and keeps the tokens", async () => {
    const storage = memoryTokenStorage();
    const { app } = await install({ storage });
    const tokens = (await storage.get("shop.stores.example.com"))!;
    await storage.set("shop.stores.example.com", { ...tokens, expiresAt: Date.now() - 1 });
    const closed = await startTestStore();
    await closed.close();
    const unreachable = createPartnerApp(appOptions({ storage, testOrigin: closed.origin }));
    const error = await unreachable
      .client("shop.stores.example.com")
      .users.retrieve(1)
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((await storage.get("shop.stores.example.com"))!.refreshToken).toBe(tokens.refreshToken);
    expect(leakedSecrets(error, server.issued)).toEqual([]);
    expect((await app.client("shop.stores.example.com").users.retrieve(4)).id).toBe(4);
  });

  it("with a refused refresh token past expiry: marks it, never sends it again, and the store's 401 says to authorize again", async () => {
    const { app, storage } = await install();
    const tokens = (await storage.get("shop.stores.example.com"))!;
    await storage.set("shop.stores.example.com", { ...tokens, expiresAt: Date.now() - 1 });
    server.validRefresh.clear();
    server.revokeAccessTokens();
    server.tokenRequests.length = 0;
    const store = app.client("shop.stores.example.com");
    const errors = await Promise.all(
      Array.from({ length: 5 }, () => store.users.retrieve(1).catch((thrown: unknown) => thrown)),
    );
    for (const error of errors) expect(error).toBeInstanceOf(AuthenticationError);
    expect(server.tokenRequests).toHaveLength(1);
    expect((await storage.get("shop.stores.example.com"))!.refused).toEqual({ error: "invalid_grant" });
    expect(leakedSecrets(errors, server.issued)).toEqual([]);
  });

  it("with a storage that hangs: the caller's abort ends the call, with its reason", async () => {
    const storage: TokenStorage = { ...memoryTokenStorage(), get: () => new Promise(() => {}) };
    const app = createPartnerApp(appOptions({ storage }));
    const controller = new AbortController();
    const call = app.client("solo.example.org").users.retrieve(1, { signal: controller.signal });
    const reason = new Error("the caller gave up");
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(server.requests).toEqual([]);
  });

  it("without stored tokens: says to send the merchant through begin()", async () => {
    const app = createPartnerApp(appOptions());
    const error = await app
      .client("solo.example.org")
      .users.retrieve(1)
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).reason).toBe("not_authorized");
    expect((error as Error).message).toMatch(/begin\(\)/);
    expect(server.requests).toEqual([]);
  });
});
