/**
 * A partner app's client meeting a 401 (the store revoked the token before its time) against
 * the test store on 127.0.0.1: one refresh for every call that met it, each call then sent once
 * more (a POST too) and succeeding once; a refused refresh (`invalid_grant`) ends each call with
 * its 401 AuthenticationError, the refusal as its cause; a token endpoint answering 503 keeps
 * the tokens and fails the calls as a server error. No token appears in an error, a log line
 * or a span.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AuthenticationError, formatLogEvent, InternalServerError, type RequestLogEvent } from "../../src/index.js";
import { createPartnerApp, memoryTokenStorage, OAuthError } from "../../src/oauth/index.js";
import { telemetry } from "../../src/plugins/index.js";
import {
  authorize,
  CLIENT_ID,
  CLIENT_SECRET,
  REDIRECT_URI,
  startTestStore,
  type TestStore,
} from "./authorization-server.js";
import { leakedSecrets } from "./leaks.js";

const STORE = "shop.stores.example.com";
const CALLS = 20;

let server: TestStore;
beforeAll(async () => {
  server = await startTestStore();
});
afterAll(() => server.close());
beforeEach(() => {
  server.tokenFailure = undefined;
  server.acceptsTokens = true;
});

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

/** An app installed on the store, and a client for it that logs every attempt and traces every call. */
async function installed() {
  const storage = memoryTokenStorage();
  const app = createPartnerApp({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri: REDIRECT_URI,
    allowedStores: [".stores.example.com"],
    scopes: ["users:read", "disputes:write"],
    storage,
    testOrigin: server.origin,
  });
  const began = await app.begin({ store: STORE });
  await app.callback(await authorize(began.url), began);
  const log: RequestLogEvent[] = [];
  const client = app.client(STORE, { logger: (event) => log.push(event), plugins: [telemetry({ tracerProvider })] });
  server.requests.length = 0;
  server.tokenRequests.length = 0;
  exporter.reset();
  return { app, storage, client, log };
}

/** Half GETs, half POSTs (a dispute note: not idempotent, resent only because a 401 means the store did not act). */
const calls = (client: Awaited<ReturnType<typeof installed>>["client"]) =>
  Array.from({ length: CALLS }, (_, i) =>
    i % 2 === 0
      ? client.users.retrieve(i + 1).then((user) => `user ${user.id}`)
      : client.disputes.notes
          .create(i + 1, { body: `note ${i}` } as never)
          .then((note) => `note ${(note as { id: number }).id}`),
  );

/** Everything the client's observers saw: log lines (as STORE_ADMIN_LOG prints them) and spans. */
const observed = (log: RequestLogEvent[]) => {
  // Not vacuous: every attempt was logged and traced.
  expect(log.length).toBeGreaterThanOrEqual(CALLS);
  expect(exporter.getFinishedSpans().length).toBeGreaterThanOrEqual(CALLS);
  return [
    log,
    log.map((event) => formatLogEvent(event)),
    exporter
      .getFinishedSpans()
      .map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status })),
  ];
};

describe("calls meeting a 401", () => {
  it(`${CALLS} at once: one refresh, then each call sent once more and succeeding once, POSTs too`, async () => {
    const { client, storage, log } = await installed();
    const before = (await storage.get(STORE))!;
    server.revokeAccessTokens();
    const results = await Promise.all(calls(client));
    expect(results).toEqual(Array.from({ length: CALLS }, (_, i) => (i % 2 === 0 ? `user ${i + 1}` : "note 7")));
    expect(server.tokenRequests.map((seen) => seen.body.grant_type)).toEqual(["refresh_token"]);
    expect(server.tokenRequests[0]!.body.refresh_token).toBe(before.refreshToken);
    // Each call twice: the 401, then the resend; a POST is received twice and acted on once (the 401 one was refused).
    expect(server.requests.filter((request) => request.startsWith("GET /api/admin/users/"))).toHaveLength(CALLS);
    expect(server.requests.filter((request) => request.startsWith("POST /api/admin/disputes/"))).toHaveLength(CALLS);
    const after = (await storage.get(STORE))!;
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(server.valid.has(after.accessToken)).toBe(true);
    expect(leakedSecrets(observed(log), [...server.issued, CLIENT_SECRET])).toEqual([]);
    // Nor in any URL: the authorization link, the callback and the API calls carry none.
    expect(server.urls.length).toBeGreaterThan(2 * CALLS);
    expect(leakedSecrets(server.urls, [...server.issued, CLIENT_SECRET])).toEqual([]);

    // The rotated refresh token is the one the next refresh sends.
    server.revokeAccessTokens();
    expect(await client.users.retrieve(5)).toMatchObject({ id: 5 });
    expect(server.tokenRequests.map((seen) => seen.body.refresh_token)).toEqual([
      before.refreshToken,
      after.refreshToken,
    ]);
  });

  it("a second 401 after the resend ends the call: one refresh, two sends", async () => {
    const { client } = await installed();
    // The store refuses even the fresh token (the app was uninstalled meanwhile).
    server.acceptsTokens = false;
    const error = await client.users.retrieve(1).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(server.tokenRequests).toHaveLength(1);
    expect(server.requests.filter((request) => request.startsWith("GET /api/admin/"))).toHaveLength(2);
  });

  it("a refused refresh (invalid_grant): each call ends with its 401 AuthenticationError, the refusal as cause, saying to authorize again", async () => {
    const { client, storage, log } = await installed();
    server.revokeAccessTokens();
    server.validRefresh.clear();
    const errors = await Promise.all(
      calls(client).map((call) =>
        call.then(
          () => undefined,
          (thrown: unknown) => thrown,
        ),
      ),
    );
    for (const error of errors) {
      expect(error).toBeInstanceOf(AuthenticationError);
      expect((error as AuthenticationError).status).toBe(401);
      expect((error as Error).message).toMatch(
        /^\[(GET|POST) \/[^\]]+\] 401 Unauthorized: Invalid token\..* The refresh token was refused: the merchant must authorize the app again \(begin\(\)\)\.$/,
      );
      const cause = (error as Error).cause as OAuthError;
      expect(cause).toBeInstanceOf(OAuthError);
      expect(cause).toMatchObject({ reason: "refresh_refused", code: "invalid_grant" });
    }
    expect(server.tokenRequests).toHaveLength(1);
    expect((await storage.get(STORE))!.refused).toEqual({ error: "invalid_grant" });
    // Marked: a later call does not send the refused token again.
    await client.users.retrieve(1).catch(() => undefined);
    expect(server.tokenRequests).toHaveLength(1);
    expect(leakedSecrets([errors, observed(log)], [...server.issued, CLIENT_SECRET])).toEqual([]);
  });

  it("a token endpoint answering 503: each call fails as a server error, the tokens kept", async () => {
    const { client, storage, log } = await installed();
    const before = await storage.get(STORE);
    server.revokeAccessTokens();
    server.tokenFailure = { status: 503, body: { error: "temporarily_unavailable" } };
    const errors = await Promise.all(
      calls(client).map((call) =>
        call.then(
          () => undefined,
          (thrown: unknown) => thrown,
        ),
      ),
    );
    for (const error of errors) {
      expect(error).toBeInstanceOf(InternalServerError);
      expect((error as InternalServerError).status).toBe(503);
      expect((error as Error).message).toMatch(/^\[POST \/oauth2\/token\/\] 503 Service Unavailable/);
    }
    expect(server.tokenRequests).toHaveLength(1);
    expect(await storage.get(STORE)).toEqual(before);
    expect(leakedSecrets([errors, observed(log)], [...server.issued, CLIENT_SECRET])).toEqual([]);
  });
});
