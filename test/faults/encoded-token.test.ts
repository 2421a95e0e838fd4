/**
 * A server that echoes the token in an encoding gets none of it into an error (message, body,
 * headers, JSON) or the bulk runner's failure report: base64 (standard and URL-safe, inside a
 * longer encoded string at each of the three alignments), percent-encoding in either letter
 * case, HTML character references (decimal and hex, with leading zeros) and JSON `\u` escapes.
 * One loopback server echoes each encoding in the error body, a header and the body's message.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStoreAdminClient, StoreAdminError } from "../../src/index.js";
import { runBulk } from "../../src/bulk/index.js";

const TOKEN = "sk_live_Enc0dedEcho_4f9a2c7e1b";

const hex = (c: string) => c.charCodeAt(0).toString(16);
const each = (map: (c: string) => string) => [...TOKEN].map(map).join("");
const b64 = (text: string) => Buffer.from(text).toString("base64");
const b64url = (text: string) => Buffer.from(text).toString("base64url");

/** Each encoding of the token a server might echo, and the part of it that must not survive. */
const ENCODINGS: Record<string, string> = {
  base64: b64(TOKEN),
  "base64, in a longer string, one byte before": b64(`{${TOKEN}}`),
  "base64, two bytes before": b64(`"=${TOKEN}"`),
  "base64 URL-safe, one byte before": b64url(`?${TOKEN}~~`),
  "base64 URL-safe, two bytes before": b64url(`id${TOKEN}`),
  "percent-encoding, upper case": each((c) => `%${hex(c).toUpperCase()}`),
  "percent-encoding, lower case": each((c) => `%${hex(c)}`),
  "HTML decimal references with leading zeros": each((c) => `&#00${c.charCodeAt(0)};`),
  "HTML hex references with leading zeros": each((c) => `&#x00${hex(c).toUpperCase()};`),
  "JSON \\u escapes": each((c) => `\\u${hex(c).padStart(4, "0")}`),
};

/** What must not appear: the encoding less 4 characters at each end (which may also encode the text around it). */
const core = (encoded: string) => encoded.slice(4, -4);

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const name = decodeURIComponent(new URL(request.url!, "http://x").searchParams.get("encoding") ?? "");
    const echo = ENCODINGS[name] ?? "";
    const body = JSON.stringify({ detail: `the token ${echo} is not valid`, echo });
    response
      .writeHead(400, {
        "content-type": "application/json",
        "x-echo": echo,
        "x-request-id": `req-${echo.slice(0, 200)}`,
      })
      .end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const store = () => createStoreAdminClient({ apiUrl: url, accessToken: TOKEN, maxRetries: 0 });

/** Every rendering of an error a caller might log or send on. */
function renderings(error: unknown): string {
  const headers = error instanceof Error && "headers" in error ? [...(error.headers as Headers)].join(" ") : "";
  return [JSON.stringify(error), inspect(error, { depth: null, showHidden: true }), String(error), headers].join("\n");
}

describe("an encoded token echoed by the server", () => {
  for (const [name, encoded] of Object.entries(ENCODINGS)) {
    it(`is redacted from the error and the bulk report: ${name}`, async () => {
      const error = await store()
        .giftCards.list({ encoding: name } as never)
        [Symbol.asyncIterator]()
        .next()
        .then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
      expect(error).toBeInstanceOf(StoreAdminError);
      const text = renderings(error);
      expect(text).toContain("[REDACTED]");
      expect(text).not.toContain(core(encoded));

      const report = await runBulk({
        client: store(),
        runId: "encoded",
        items: [1],
        key: String,
        task: async (_id, { client }) => {
          for await (const card of client.giftCards.list({ encoding: name } as never)) void card;
        },
      });
      expect(report.failed).toBe(1);
      const reported =
        JSON.stringify(report) +
        inspect(report, { depth: null, showHidden: true }) +
        report.failures.map((f) => f.message).join("\n");
      expect(reported).toContain("[REDACTED]");
      expect(reported).not.toContain(core(encoded));
    });
  }
});
