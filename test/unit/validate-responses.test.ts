/**
 * `createStoreAdminClient({ validateResponses })` from the sources, against a local server:
 * a bad value refused before anything is sent; `"off"` (the default) and `"report"` return the
 * drifting data as today; `"strict"` throws `ContractDriftError` in both call styles, once (never
 * retried), with the pointer, what was expected and the type that came, the request id and the
 * body scrubbed of the token; the logger hears of each drifting field once per process; an
 * extra field and a body read as text are no drift. The packed package, its span events and
 * counter are proven in test/production/drift-package.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContractDriftError, formatLogEvent, StoreAdminError, type RequestLogEvent } from "../../src/index.js";
import { validateResponses } from "../../src/plugins/index.js";
import { startFaultServer, TEST_TOKEN, type FaultServer } from "../helpers/fault-server.js";

let server: FaultServer;

beforeAll(async () => {
  server = await startFaultServer();
});
afterAll(async () => {
  await server.close();
});

/** A page of users whose second user's language is not one the contract lists. */
const drifting = (echo = "fr") => ({
  next: null,
  previous: null,
  results: [
    { id: 1, language: "en" },
    { id: 2, language: echo },
    { id: 3, language: "tlh" },
  ],
});

describe("validateResponses", () => {
  it("refuses a mode that is not report or strict, naming it, and the old client option, naming the plugin, before anything is sent", async () => {
    const before = server.requests.length;
    expect(() => validateResponses("loud" as never)).toThrow(
      new TypeError('validateResponses() takes "report" or "strict", got loud.'),
    );
    expect(() => server.client({ validateResponses: "report" } as never)).toThrow(
      /validateResponses is no longer a client option: import \{ validateResponses \} from "store-admin-sdk\/plugins"/,
    );
    expect(server.requests.length).toBe(before);
  });

  it('without the plugin (the default) and with "report", the drifting data is returned as today', async () => {
    for (const mode of [undefined, "report"] as const) {
      server.enqueue({ body: drifting() });
      const page = await server
        .client({ plugins: mode ? [validateResponses(mode)] : [] })
        .GET("/users/", { params: { query: {} } });
      expect(page.data?.results.map((user) => user.language)).toEqual(["en", "fr", "tlh"]);
      expect(page.error).toBeUndefined();
    }
  });

  it('"strict" throws ContractDriftError in both call styles, once: the pointer, the enum, the type, the request id, the body scrubbed', async () => {
    const store = server.client({ plugins: [validateResponses("strict")] });
    const methodStyle = async () => {
      for await (const user of store.users.list()) expect(user).toBeUndefined();
    };
    for (const call of [methodStyle, () => store.GET("/users/", { params: { query: {} } })]) {
      const before = server.count("GET", "/users/");
      server.enqueue({ body: drifting(TEST_TOKEN), headers: { "x-request-id": "req-drift" } });
      const error = (await call().then(
        () => undefined,
        (thrown: unknown) => thrown,
      )) as ContractDriftError;
      expect(error).toBeInstanceOf(ContractDriftError);
      expect(error).toBeInstanceOf(StoreAdminError);
      expect(server.count("GET", "/users/") - before, "never retried").toBe(1);
      expect(error.pointer).toBe("/results/*/language");
      expect(error.expected).toMatch(/^one of "en", "fr", .*"", null$/);
      expect(error.received).toBe("string");
      expect(error.message).toBe(
        `[GET /users/] 200 OK body does not match the contract: /results/*/language is a string, where the contract expects ${error.expected}. The store changed, or the contract is behind it: validateResponses "report" logs this and returns the data.`,
      );
      expect(error.requestId).toBe("req-drift");
      expect(error.status).toBe(200);
      expect(error.response.status).toBe(200);
      expect((error.body as ReturnType<typeof drifting>).results[1]!.language).toBe("[REDACTED]");
      expect(JSON.stringify(error)).not.toContain(TEST_TOKEN);
      expect(Object.keys(error)).not.toContain("response");
    }
  });

  it("an extra field, a body read as text, and an error status are no drift", async () => {
    const store = server.client({ plugins: [validateResponses("strict")] });
    server.enqueue({ body: { id: 7, favourite_colour: "blue" } });
    expect(await store.users.retrieve(7)).toEqual({ id: 7, favourite_colour: "blue" });
    server.enqueue({ body: { id: "seven" } });
    const text = await store.GET("/users/{id}/", { params: { path: { id: 7 } }, parseAs: "text" });
    expect(text.data).toBe('{"id":"seven"}');
    server.enqueue({ status: 404, body: { detail: 42 } });
    await expect(store.users.retrieve(7)).rejects.toMatchObject({ name: "NotFoundError" });
  });

  it('"report" tells the logger of each drift on its attempt\'s one event, once per process, types only', async () => {
    const events: RequestLogEvent[] = [];
    const store = server.client({ plugins: [validateResponses("report")], logger: (event) => void events.push(event) });
    for (let i = 0; i < 2; i++) {
      server.enqueue({ body: { id: 9, email: "no address", is_blocked: "yes", language: TEST_TOKEN } });
      await store.users.retrieve(9);
    }
    // One event per attempt: the first carries its drifts, the second (the same drifts) none.
    expect(events).toHaveLength(2);
    expect(events[0]!.drifts).toEqual([
      { pointer: "/email", expected: 'format "email"', received: "string" },
      { pointer: "/is_blocked", expected: "boolean or null", received: "string" },
      { pointer: "/language", expected: expect.stringMatching(/^one of "en"/), received: "string" },
    ]);
    expect(events[0]).toMatchObject({ method: "GET", path: "/users/{id}/", status: 200, attempt: 1, willRetry: false });
    expect(events[0]!.error, "report mode throws nothing").toBeUndefined();
    expect(formatLogEvent(events[0]!)).toMatch(
      /^GET \/users\/\{id\}\/ 200 attempt 1 \d+ ms contract drift: \/email is a string, where the contract expects format "email"; \/is_blocked is a string, where /,
    );
    expect(events[1]!.drifts).toBeUndefined();
    expect(JSON.stringify(events)).not.toMatch(/sk_test|no address|yes/);
  });
});

describe("ContractDriftError.toJSON()", () => {
  it("leaves the body out without copying it: a body never read is never scrubbed", () => {
    let reads = 0;
    const body = {
      get results() {
        reads++;
        return [{ id: 1, email: `a@example.com ${TEST_TOKEN}` }];
      },
    };
    const error = new ContractDriftError({
      response: new Response(null, { status: 200, headers: { "x-request-id": "req-1" } }),
      body,
      drifts: [{ pointer: "/results/*/id", expected: "string", received: "integer" }],
      secrets: [TEST_TOKEN],
    });
    const json = error.toJSON();
    expect(reads).toBe(0);
    expect(json).not.toHaveProperty("body");
    expect(json).toMatchObject({
      name: "ContractDriftError",
      status: 200,
      requestId: "req-1",
      pointer: "/results/*/id",
    });
    expect(JSON.stringify(error)).not.toContain("example.com");
    // Read as a property, it is the scrubbed copy, made once.
    expect(JSON.stringify(error.body)).not.toContain(TEST_TOKEN);
    expect(reads).toBe(1);
    void error.body;
    expect(reads).toBe(1);
  });
});
