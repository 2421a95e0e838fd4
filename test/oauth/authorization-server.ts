/**
 * A store for the OAuth tests, on one origin of 127.0.0.1 (what `testOrigin` sends every
 * store's requests to): a real authorization server (oauth2-mock-server, at the vendor's paths
 * `/oauth2/authorize/` and `/oauth2/token/`, form-encoded token requests) and a store API under
 * `/api/admin/` that accepts only the access tokens the server issued and has not revoked.
 * Refresh tokens rotate: each refresh issues a new one and the old one is refused
 * (`invalid_grant`). It counts every request it receives. `POST /test/revoke` revokes the
 * access tokens (for the runtimes' script).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { OAuth2Server } from "oauth2-mock-server";

export const CLIENT_ID = "partner-app";
export const CLIENT_SECRET = "app-secret-3f9a7c21d4e8b6a0";
export const REDIRECT_URI = "https://partner.example/oauth/callback";

export interface TokenRequestSeen {
  contentType: string | undefined;
  body: Record<string, string>;
}

export interface TestStore {
  origin: `http://127.0.0.1:${number}`;
  /** Every request received, `METHOD path` (no query). */
  requests: string[];
  /** Every request's URL as received, query included. */
  urls: string[];
  /** The token endpoint's requests, their form fields as received. */
  tokenRequests: TokenRequestSeen[];
  /** Access tokens the store API accepts. */
  valid: Set<string>;
  /** Refresh tokens the token endpoint accepts (the latest of each chain). */
  validRefresh: Set<string>;
  /** Every token issued, access and refresh: none may appear in an error, a log line or a span. */
  issued: string[];
  /** `expires_in` of the next answers, in seconds. */
  expiresInSeconds: number;
  /** The scope the next code exchange grants (default: the one asked for). */
  grantScope: string | undefined;
  /** What the token endpoint answers instead of tokens, while set. */
  tokenFailure: { status: number; body: unknown } | undefined;
  /** The `store` value the authorization redirect carries. */
  storeParam: string;
  /** While false, the store API refuses every token (the app was uninstalled). */
  acceptsTokens: boolean;
  /** Every access token issued so far made invalid (the store revoked them early: the next calls meet a 401). */
  revokeAccessTokens(): void;
  close(): Promise<void>;
}

const readForm = (req: IncomingMessage & { body?: unknown }): Record<string, string> => ({
  ...(req.body as Record<string, string>),
});

export async function startTestStore(): Promise<TestStore> {
  const oauth = new OAuth2Server(undefined, undefined, {
    endpoints: { authorize: "/oauth2/authorize/", token: "/oauth2/token/" },
  });
  await oauth.issuer.keys.generate("RS256");
  const store = {
    requests: [] as string[],
    urls: [] as string[],
    tokenRequests: [] as TokenRequestSeen[],
    valid: new Set<string>(),
    validRefresh: new Set<string>(),
    issued: [] as string[],
    expiresInSeconds: 3600,
    grantScope: undefined as string | undefined,
    tokenFailure: undefined as { status: number; body: unknown } | undefined,
    storeParam: "shop.stores.example.com",
    acceptsTokens: true,
    revokeAccessTokens() {
      store.valid.clear();
    },
  };
  // The scopes asked for, by the code (then the refresh token) that carries them: the vendor's token requests do not repeat them.
  const scopeOf = new Map<string, string>();
  oauth.service.on("beforeAuthorizeRedirect", ({ url }: { url: URL }, req: IncomingMessage) => {
    url.searchParams.set("store", store.storeParam);
    scopeOf.set(url.searchParams.get("code")!, new URL(req.url!, "http://x").searchParams.get("scope") ?? "");
  });
  oauth.service.on(
    "beforeResponse",
    (response: { statusCode: number; body: Record<string, unknown> }, req: IncomingMessage) => {
      const form = readForm(req);
      store.tokenRequests.push({ contentType: req.headers["content-type"], body: form });
      const refuse = (status: number, error: string) => {
        response.statusCode = status;
        response.body = { error };
      };
      if (form.client_id !== CLIENT_ID || form.client_secret !== CLIENT_SECRET) return refuse(401, "invalid_client");
      if (store.tokenFailure) {
        response.statusCode = store.tokenFailure.status;
        response.body = store.tokenFailure.body as Record<string, unknown>;
        return;
      }
      if (form.grant_type === "refresh_token") {
        if (!store.validRefresh.delete(form.refresh_token!)) return refuse(400, "invalid_grant");
        response.body.scope = scopeOf.get(form.refresh_token!);
      } else if (form.grant_type === "authorization_code") {
        if (form.redirect_uri !== REDIRECT_URI || !scopeOf.has(form.code!)) return refuse(400, "invalid_grant");
        response.body.scope = store.grantScope ?? scopeOf.get(form.code!);
        scopeOf.delete(form.code!);
      }
      // The vendor's answer: no id_token (not OpenID Connect).
      delete response.body.id_token;
      response.body.expires_in = store.expiresInSeconds;
      const access = response.body.access_token as string;
      const refresh = response.body.refresh_token as string;
      store.valid.add(access);
      store.validRefresh.add(refresh);
      scopeOf.set(refresh, response.body.scope as string);
      store.issued.push(access, refresh);
    },
  );
  const oauthHandler = oauth.service.requestHandler;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    store.requests.push(`${req.method} ${path}`);
    store.urls.push(req.url ?? "");
    if (path.startsWith("/oauth2/")) return oauthHandler(req, res);
    // For a script in another runtime: the store revokes every access token it issued.
    if (req.method === "POST" && path === "/test/revoke") {
      store.revokeAccessTokens();
      return res.end();
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    res.setHeader("Content-Type", "application/json");
    if (!token || !store.valid.has(token) || !store.acceptsTokens) {
      res.statusCode = 401;
      return res.end(JSON.stringify({ detail: "Invalid token." }));
    }
    req.resume();
    req.on("end", () => {
      const id = /\/(\d+)\/[^/]*\/?$/.exec(path)?.[1] ?? "1";
      res.statusCode = req.method === "POST" ? 201 : 200;
      res.end(
        JSON.stringify(req.method === "POST" ? { id: 7, body: "noted" } : { id: Number(id), email: "ada@example.com" }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const origin = `http://127.0.0.1:${port}` as const;
  oauth.issuer.url = origin;
  return Object.assign(store, {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** Follows the authorization link as the merchant's browser would: the redirect back, with `code`, `state` and `store`. */
export async function authorize(link: string): Promise<string> {
  const response = await fetch(link, { redirect: "manual" });
  const location = response.headers.get("location");
  if (response.status !== 302 || !location)
    throw new Error(`The authorization link answered ${response.status}: ${await response.text()}`);
  return location;
}
