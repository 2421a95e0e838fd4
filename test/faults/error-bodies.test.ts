/**
 * What the SDK does with what a hostile server sends once it is read: an error is built from
 * any body within `maxResponseBytes` at the cost of a bounded walk (compressed bombs of 11 M
 * items, bodies nested 100,000 deep), every regular expression that reads server text is
 * linear (each fed hostile input of the largest size it can see), parts of the token are
 * scrubbed wherever outside text enters an error, and control and bidi characters never reach
 * a message. Each against the fault server on 127.0.0.1, which counts what it receives.
 *
 * Times are compared with a baseline measured in the same test (one `JSON.parse` of the same
 * body, or a harmless input of the same size), never with a fixed number of milliseconds.
 */
import { inspect } from "node:util";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { buildClient } from "../../src/client/client.js";
import {
  type ApiError,
  ConnectionError,
  InternalServerError,
  invalidJson,
  NotFoundError,
  type StoreAdminError,
} from "../../src/core/errors.js";
import { formatLogEvent, type RequestLogEvent } from "../../src/core/logger.js";
import { parseRetryAfterMs } from "../../src/core/retry-policy.js";
import { responseHeadProblem } from "../../src/client/transport.js";
import type { StoreAdminClient, StoreAdminClientOptions } from "../../src/core/types.js";
import { unwrap, type FetchResult } from "../../src/client/unwrap.js";
import { BODY_BUDGET, BODY_DEPTH, redact } from "../../src/core/redact.js";
import { TEST_TOKEN, useFaultServer } from "../helpers/fault-server.js";
import { recordingSleep } from "../helpers/scripted-fetch.js";
import { rejection, everyRendering } from "../helpers/outcome.js";

const server = useFaultServer();
const MIB = 1024 * 1024;

function client(overrides: Partial<StoreAdminClientOptions> = {}): StoreAdminClient {
  return buildClient(
    {
      apiUrl: server().url,
      accessToken: TEST_TOKEN,
      timeoutMs: 60_000,
      maxRetries: 0,
      ...overrides,
    } as StoreAdminClientOptions,
    { sleep: recordingSleep().sleep, random: () => 0 },
  );
}

const getUser = (store: StoreAdminClient) =>
  store.GET("/users/{id}/", { params: { path: { id: 1 } } }) as Promise<FetchResult>;

/** The quickest of `runs` timings of `work`, in ms. */
async function fastest(runs: number, work: () => unknown): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await work();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const mb = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;

/** For the bodies of millions of keys or items: what they check is the result, not the time. */
const BIG_BODY_TIMEOUT_MS = 120_000;

describe("an error is built from any body within maxResponseBytes for about the cost of one JSON.parse", () => {
  // 11,184,810 items of 3 characters: 33,554,431 bytes decoded, one under the default limit; about 33 KB gzipped.
  const ITEMS = 11_184_810;

  it.each([
    ['["","",…]', '""'],
    ["[{},{},…]", "{}"],
  ])(
    "a 404 whose gzip body decodes to %s (11 M items): the error keeps a bounded part, the loop never stalls for long",
    async (_name, item) => {
      const text = `[${`${item},`.repeat(ITEMS - 1)}${item}]`;
      expect(text.length).toBe(32 * MIB - 1);
      const gzipped = gzipSync(text, { level: 9 });
      // The baseline: one JSON.parse of the same body, in this process, now.
      const parseMs = await fastest(1, () => JSON.parse(text));

      server().enqueue({
        status: 404,
        headers: { "content-type": "application/json", "content-encoding": "gzip" },
        body: gzipped,
      });
      let last = performance.now();
      let longestStall = 0;
      const ticker = setInterval(() => {
        const now = performance.now();
        longestStall = Math.max(longestStall, now - last);
        last = now;
      }, 5);
      let error: unknown;
      let buildMs = 0;
      let rssGrowth = 0;
      try {
        const result = await getUser(client());
        global.gc?.();
        const rssBefore = process.memoryUsage().rss;
        const started = performance.now();
        error = await rejection(unwrap(result));
        buildMs = performance.now() - started;
        rssGrowth = process.memoryUsage().rss - rssBefore;
      } finally {
        clearInterval(ticker);
      }
      console.info(
        `${_name}: ${(gzipped.length / 1024).toFixed(1)} KiB gzipped, ${mb(text.length)} decoded; one JSON.parse ${ms(parseMs)}; ` +
          `building the error ${ms(buildMs)}, RSS +${mb(rssGrowth)}; longest event-loop stall of the call ${ms(longestStall)}`,
      );
      expect(error).toBeInstanceOf(NotFoundError);
      expect(server().count("GET", "/users/1/")).toBe(1);
      const body = (error as ApiError).body as unknown[];
      // What is kept: the items the budget allows, then one marker with the full count.
      expect(body.length).toBeLessThanOrEqual(BODY_BUDGET + 1);
      expect(body.at(-1)).toBe(`…(${ITEMS} items)`);
      expect(body[0]).toEqual(JSON.parse(item));
      expect(JSON.stringify(error).length).toBeLessThan(4 * BODY_BUDGET);
      // Building the error costs less than one JSON.parse of the body; nothing of the body's size is allocated.
      expect(buildMs).toBeLessThan(parseMs);
      expect(rssGrowth).toBeLessThan(64 * MIB);
      // The whole call blocks the loop for about one parse (openapi-fetch's own), never for seconds.
      expect(longestStall).toBeLessThan(5 * parseMs + 250);
    },
    180_000,
  );

  it("a long string is kept up to the budget, its full length noted; keys and values are counted alike", async () => {
    server().enqueue({
      status: 400,
      body: { detail: "bad cursor", padding: "x".repeat(MIB), [`k${"y".repeat(100_000)}`]: 1 },
    });
    const error = (await rejection(unwrap(getUser(client())))) as ApiError;
    const body = error.body as Record<string, unknown>;
    expect(error.message).toBe("[GET /users/{id}/] 400 Bad Request: bad cursor. Check the parameters and body.");
    expect(body.detail).toBe("bad cursor");
    expect(body.padding).toMatch(/^x+…\(1048576 characters\)$/);
    expect((body.padding as string).split("…")[0]!.length).toBeLessThan(BODY_BUDGET);
    // The budget is spent by then: the third key is left out, and the count of keys noted.
    expect(Object.keys(body)).toEqual(["detail", "padding", "…"]);
    expect(body["…"]).toBe("…(3 keys)");
  });

  it(
    "an object of 1 M keys keeps the first ones and notes the count",
    async () => {
      const wide = Object.fromEntries(Array.from({ length: 1_000_000 }, (_, i) => [`k${i}`, i]));
      server().enqueue({ status: 409, body: { detail: "conflict", ...wide } });
      const error = (await rejection(unwrap(getUser(client())))) as ApiError;
      const body = error.body as Record<string, unknown>;
      expect(error.message).toMatch(/^\[GET \/users\/\{id\}\/\] 409 Conflict: conflict\. /);
      expect(body["k0"]).toBe(0);
      expect(body["…"]).toBe("…(1000001 keys)");
      expect(Object.keys(body).length).toBeLessThan(BODY_BUDGET / 2);
      // A body of some 15 MB built, sent and parsed: seconds of CPU, many more on a loaded machine.
    },
    BIG_BODY_TIMEOUT_MS,
  );

  it(
    "a 422 with 500,000 validation issues names the first ones",
    async () => {
      const validation = Array.from({ length: 500_000 }, (_, i) => ({
        location: ["body", `f${i}`],
        message: "required",
      }));
      server().enqueue({ status: 422, body: { validation } });
      const error = await rejection(unwrap(getUser(client())));
      expect((error as Error).message).toMatch(
        /^\[GET \/users\/\{id\}\/\] 422 Unprocessable Content: body\.f0: required; body\.f1: required; /,
      );
      const issues = (error as { validation: unknown[] }).validation;
      expect(issues.length).toBeGreaterThan(100);
      expect(issues.length).toBeLessThan(BODY_BUDGET / 4);
    },
    BIG_BODY_TIMEOUT_MS,
  );
});

describe("a body nested 100,000 deep", () => {
  it.each([
    ["arrays", `${"[".repeat(100_000)}${"]".repeat(100_000)}`],
    ["objects", `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`],
  ])(`of %s: JSON.stringify(error) gives its fields, the body cut at ${BODY_DEPTH} levels`, async (_name, text) => {
    server().enqueue({ status: 404, headers: { "content-type": "application/json" }, body: text });
    const error = (await rejection(unwrap(getUser(client())))) as ApiError;
    expect(error).toBeInstanceOf(NotFoundError);
    const json = JSON.parse(JSON.stringify(error)) as { status: number; body: unknown };
    expect(json.status).toBe(404);
    let level: unknown = json.body;
    let depth = 0;
    while (level !== null && typeof level === "object") {
      level = Array.isArray(level) ? level[0] : (level as { a: unknown }).a;
      depth++;
    }
    expect(depth).toBe(BODY_DEPTH);
    expect(level).toBe("…(nested deeper)");
    expect(() => inspect(error, { depth: null })).not.toThrow();
  });
});

describe("every regular expression that reads server text is linear", () => {
  /** Time to build the error for an error body, best of 3, from a result in hand. */
  async function buildTime(
    status: number,
    body: string,
    contentType: string,
  ): Promise<{ ms: number; error: StoreAdminError }> {
    server().enqueue({ status, headers: { "content-type": contentType }, body });
    const result = await getUser(client());
    let error: unknown;
    const time = await fastest(3, async () => {
      error = await rejection(unwrap(result));
    });
    return { ms: time, error: error as StoreAdminError };
  }

  // The HTML summary and the message see at most BODY_BUDGET characters of a body; each hostile
  // body is larger, and is compared with a harmless body of the same length.
  const SIZE = BODY_BUDGET + 1_000;
  const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);
  const hostile: Array<[string, string, string]> = [
    ['"<html>" + "<" repeated', `<html>${fill("<")}`, "text/html"],
    ['"<html>" + "<title" repeated', `<html>${fill("<title")}`, "text/html"],
    ['"<html>" + "<title>" + "<" repeated', `<html><title>x${fill("<title ")}`, "text/html"],
    ['"<html>" + "<script" repeated', `<html>${fill("<script")}`, "text/html"],
    ['"<html>" + "<style>" + "</style" repeated', `<html><style>${fill("</style")}`, "text/html"],
    ['"<html>" + "<a" + " " repeated', `<html><a${fill(" ")}`, "text/html"],
    ["dots before the end of a detail", `x${fill(".")}`, "text/plain"],
    ['"Bearer" + white space', `Bearer${fill("\t")}!`, "text/plain"],
    ['"Bearer " repeated, no token', fill("Bearer !"), "text/plain"],
    ["control characters", fill("\x1b\u202e"), "text/plain"],
    ["a run of token characters", fill(TEST_TOKEN.slice(0, 7)), "text/plain"],
  ];

  it.each(hostile)(
    "an error body of %s costs what a harmless one of the same size does",
    async (name, body, contentType) => {
      const harmless = await buildTime(503, `${contentType === "text/html" ? "<html>" : ""}${fill("a")}`, contentType);
      const measured = await buildTime(503, body, contentType);
      console.info(`${name} (${body.length} characters): ${ms(measured.ms)}, harmless ${ms(harmless.ms)}`);
      expect(measured.error).toBeInstanceOf(InternalServerError);
      expect(measured.error.message.length).toBeLessThan(700);
      expect(measured.ms).toBeLessThan(20 * Math.max(harmless.ms, 5));
    },
  );

  /** Best-of-5 time of `work(input)` for a hostile and a harmless input of the same size. */
  async function compare(
    name: string,
    work: (input: string) => unknown,
    hostileInput: string,
    harmlessInput: string,
  ): Promise<void> {
    const harmless = await fastest(5, () => work(harmlessInput));
    const measured = await fastest(5, () => work(hostileInput));
    console.info(`${name} (${hostileInput.length} characters): ${ms(measured)}, harmless ${ms(harmless)}`);
    expect(measured).toBeLessThan(20 * Math.max(harmless, 5));
  }

  // A custom fetch can hand over a header or an error message of any length: 1 MiB each.
  const LARGE = MIB;
  const headProblem = (contentType: string) =>
    responseHeadProblem(
      new Response("{}", { headers: { "content-type": contentType } }),
      { method: "GET", url: "http://127.0.0.1/" },
      { method: "GET", path: "/" },
      [],
    );

  it("Content-Type: a 1 MiB value of near-JSON media types", async () => {
    await compare(
      "content-type application/a.a.a…",
      headProblem,
      `application/${"a.".repeat(LARGE / 2)}`,
      `text/${"a".repeat(LARGE)}`,
    );
    await compare(
      "content-type of commas",
      headProblem,
      `${"application/json ,".repeat(LARGE / 18)}x`,
      `text/${"a".repeat(LARGE)}`,
    );
  });

  it("Retry-After: a 1 MiB value", async () => {
    await compare(
      "retry-after digits then a letter",
      (v) => parseRetryAfterMs(v),
      `${"1".repeat(LARGE)}x`,
      "a".repeat(LARGE + 1),
    );
    await compare(
      "retry-after white space",
      (v) => parseRetryAfterMs(v),
      `${" ".repeat(LARGE)}x`,
      "a".repeat(LARGE + 1),
    );
    await compare(
      "retry-after words and commas",
      (v) => parseRetryAfterMs(v),
      "Wed,".repeat(LARGE / 4),
      "a".repeat(LARGE),
    );
  });

  it("the JSON parser's message and a runtime's error message: 1 MiB each", async () => {
    const operation = { method: "GET", path: "/" };
    await compare(
      "SyntaxError message",
      (m) => invalidJson(operation, new SyntaxError(m), 200, [TEST_TOKEN]),
      "position ".repeat(LARGE / 9),
      "a".repeat(LARGE),
    );
    await compare(
      "fetch error message",
      (m) => ConnectionError.from(new TypeError(m), { phase: "request", operation, secrets: [TEST_TOKEN] }),
      `Bearer${" ".repeat(LARGE)}!`,
      "a".repeat(LARGE + 7),
    );
  });
});

describe("no run of 8 or more of the token's characters reaches an error or a log event", () => {
  const TOKEN = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
  const runsOf = (token: string) => Array.from({ length: token.length - 7 }, (_, i) => token.slice(i, i + 8));

  it("a server echoing 24 of 32 characters in the body, headers and request id", async () => {
    const events: RequestLogEvent[] = [];
    server().enqueue({
      status: 401,
      headers: {
        "x-request-id": `req-${TOKEN.slice(3, 20)}`,
        "www-authenticate": `Bearer error="invalid_token" hint="${TOKEN.slice(5, 30)}"`,
      },
      body: {
        detail: `Invalid API key provided: ${TOKEN.slice(0, 24)}…`,
        echo: [TOKEN.slice(8, 16), `${TOKEN.slice(20)}!`],
        [TOKEN.slice(2, 12)]: "as a key",
        short: TOKEN.slice(10, 17),
      },
    });
    const store = client({ accessToken: TOKEN, logger: (event) => void events.push(event) });
    const error = (await rejection(unwrap(getUser(store)))) as ApiError;
    expect(error.message).toBe(
      "[GET /users/{id}/] 401 Unauthorized: Invalid API key provided: [REDACTED]…. Check the access token: it is missing, malformed, expired or revoked.",
    );
    expect(error.body).toEqual({
      detail: "Invalid API key provided: [REDACTED]…",
      echo: ["[REDACTED]", "[REDACTED]!"],
      "[REDACTED]": "as a key",
      short: TOKEN.slice(10, 17),
    });
    expect(error.requestId).toBe("req-[REDACTED]");
    const seen = `${everyRendering(error)}\n${inspect(error.headers)}\n${JSON.stringify(events)}\n${events.map(formatLogEvent).join("\n")}`;
    for (const run of runsOf(TOKEN)) expect(seen).not.toContain(run);
    // The rule is 8 characters: a run of 7 (too short to single out a token) is left as sent.
    expect((error.body as { short: string }).short).toHaveLength(7);
  });

  it("a runtime error and a middleware error quoting part of the token: the cause, the message and the log event", async () => {
    const events: RequestLogEvent[] = [];
    const store = client({
      accessToken: TOKEN,
      logger: (event) => void events.push(event),
      fetch: async () => {
        throw new TypeError(`fetch failed for key ${TOKEN.slice(4, 28)}`, {
          cause: new Error(`socket ${TOKEN.slice(0, 9)}`),
        });
      },
    });
    const connection = await rejection(getUser(store));
    expect(connection).toBeInstanceOf(ConnectionError);
    const failing = client({ accessToken: TOKEN, logger: (event) => void events.push(event) });
    failing.use({
      onResponse: () => {
        throw new Error(`bad ${TOKEN.slice(12)}`);
      },
    });
    const thrown = await rejection(getUser(failing));
    expect(events.map((event) => event.error?.message)).toEqual([
      expect.stringContaining("[REDACTED]"),
      "bad [REDACTED]",
    ]);
    const seen = `${everyRendering(connection)}\n${JSON.stringify(events)}`;
    for (const run of runsOf(TOKEN)) expect(seen).not.toContain(run);
    // A middleware's own error is the caller's: it is rethrown as it is.
    expect((thrown as Error).message).toBe(`bad ${TOKEN.slice(12)}`);
  });

  it("a server echoing the token in another letter case: scrubbed all the same, wherever it is", async () => {
    const events: RequestLogEvent[] = [];
    const upper = TOKEN.toUpperCase();
    const mixed = [...TOKEN].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join("");
    server().enqueue({
      status: 401,
      headers: { "x-request-id": `req-${upper.slice(2, 20)}` },
      body: {
        detail: `KEY ${upper} IS NOT VALID`,
        echo: mixed.slice(4, 30),
        [TOKEN.toLowerCase().slice(0, 12)]: "as a key",
      },
    });
    const store = client({ accessToken: TOKEN, logger: (event) => void events.push(event) });
    const error = (await rejection(unwrap(getUser(store)))) as ApiError;
    expect(error.message).toContain("KEY [REDACTED] IS NOT VALID");
    expect(error.body).toEqual({ detail: "KEY [REDACTED] IS NOT VALID", echo: "[REDACTED]", "[REDACTED]": "as a key" });
    expect(error.requestId).toBe("req-[REDACTED]");
    const seen =
      `${everyRendering(error)}\n${inspect(error.headers)}\n${JSON.stringify(events)}\n${events.map(formatLogEvent).join("\n")}`.toLowerCase();
    for (const run of runsOf(TOKEN.toLowerCase())) expect(seen).not.toContain(run);
  });

  it("redaction is one pass over the text, whatever the token's length", async () => {
    const text = `${"abcdefgh".repeat(MIB / 8)}`;
    const shortToken = [TOKEN];
    const longToken = [Array.from({ length: 4096 }, (_, i) => String.fromCharCode(65 + (i % 26)) + (i % 7)).join("")];
    const short = await fastest(3, () => redact(text, shortToken));
    const long = await fastest(3, () => redact(text, longToken));
    console.info(`redacting 1 MiB: ${ms(short)} with a 32-character token, ${ms(long)} with an 8,192-character one`);
    expect(long).toBeLessThan(5 * Math.max(short, 5));
  });
});

describe("control and bidi characters from a server never reach a message", () => {
  const CONTROLS = /[\0-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

  it("in a JSON detail, an HTML title, a content type, a runtime's error and the log event", async () => {
    const events: RequestLogEvent[] = [];
    // Node's server writes header values as UTF-8: a fetch of the test's own sets the C1 bytes a raw server could send.
    const latin1 = new Map([
      ["x-request-id", "req\x9b2J"],
      ["content-type", "text/html\x9b31m"],
    ]);
    const PLACEHOLDER = "set by the fetch";
    const store = client({
      logger: (event) => void events.push(event),
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const headers = new Headers(response.headers);
        for (const [name, value] of latin1) if (headers.get(name) === PLACEHOLDER) headers.set(name, value);
        return new Response(response.body, { status: response.status, headers });
      },
    });
    server().enqueue({
      status: 500,
      headers: { "x-request-id": PLACEHOLDER },
      body: { detail: "\x1b[31mred\x1b[0m \u202eevil\u202c NUL\0here" },
    });
    const json = (await rejection(unwrap(getUser(store)))) as ApiError;
    expect(json.message).toBe(
      "[GET /users/{id}/] 500 Internal Server Error: [31mred[0m evil NULhere. The server failed; try again later.",
    );
    // The body is data and is kept as sent; only the message is cleaned.
    expect((json.body as { detail: string }).detail).toContain("\u202e");
    expect(events[0]?.requestId).toBe("req2J");

    server().enqueue({
      status: 502,
      headers: { "content-type": "text/html" },
      body: "<html><title>\u2066Bad\x07 \u200fgateway\u2069</title></html>",
    });
    const html = (await rejection(unwrap(getUser(store)))) as ApiError;
    expect(html.message).toContain('("Bad gateway")');

    server().enqueue({ status: 200, headers: { "content-type": PLACEHOLDER }, body: "<p>hi</p>" });
    const type = await rejection(getUser(store));
    expect((type as Error).message).toContain("its content-type is text/html31m, not application/json");

    const broken = client({
      fetch: async () => {
        throw new TypeError("fetch failed", { cause: new Error("\x1b]0;pwned\x07 reset") });
      },
    });
    const connection = await rejection(getUser(broken));
    expect((connection as Error).message).toContain("(]0;pwned reset)");

    for (const error of [json, html, type, connection]) expect((error as Error).message).not.toMatch(CONTROLS);
    for (const line of events.map(formatLogEvent)) expect(line).not.toMatch(CONTROLS);
  });
});
