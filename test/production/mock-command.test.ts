/**
 * `store-admin-sdk mock`, from the packed package: the testing kit over HTTP on 127.0.0.1, with
 * a --handlers module and a request log. The SDK's own client calls it (the baseUrl is the
 * server's address); requests are validated against the contract (a bad body gets the kit's
 * 422 naming the field), answered by the handlers or the contract's examples, logged one JSON
 * line each in the order they arrived, never the token; SIGTERM lets the request in flight
 * finish and its line be written.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStoreAdminClient, UnprocessableEntityError } from "../../src/index.js";
import { createConsumerProject, ROOT, run, type ConsumerProject } from "../package/tarball.js";

const TOKEN = "sk_live_mockcommand_secret_0123";
let project: ConsumerProject | undefined;

beforeAll(async () => {
  project = await createConsumerProject();
  await cp(join(ROOT, "test", "production", "fixtures", "mock-handlers.mjs"), join(project.dir, "handlers.mjs"));
}, 300_000);

afterAll(async () => {
  await project?.remove();
});

const bin = () => join(project!.dir, "node_modules", ".bin", "store-admin-sdk");

/** Starts the command and resolves its URL once it prints that it listens. */
function startMock(args: string[]): Promise<{ child: ChildProcess; url: string; output: () => string; exited: Promise<number | null> }> {
  const child = spawn(bin(), ["mock", "--port", "0", ...args], { cwd: project!.dir, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the mock did not start:\n${output}`));
    }, 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, output: () => output, exited });
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", () => {
      clearTimeout(timer);
      reject(new Error(`the mock exited:\n${output}`));
    });
  });
}

describe("store-admin-sdk mock", () => {
  it("serves the kit with the handlers, validates, logs every request in order, and stops cleanly on SIGTERM", async () => {
    const mock = await startMock(["--log", "requests.jsonl", "--handlers", "handlers.mjs"]);
    try {
      const store = createStoreAdminClient({ baseUrl: mock.url, accessToken: TOKEN, maxRetries: 0 });
      // From the handlers module.
      expect(await store.users.retrieve(42)).toEqual({ id: 42, email: "user42@example.org" });
      // From the contract's examples: a list page.
      const page = await store.paginate.pages("/gift-cards/", { params: { query: { status: "active" } } }).next();
      expect(Array.isArray(page.value?.results)).toBe(true);
      // A body the contract refuses: the kit's 422, naming the field.
      const refused = await store.giftCards.update(7, { expired_at: 42 as never }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(UnprocessableEntityError);
      expect((refused as UnprocessableEntityError).validation.map((issue) => issue.location.join("."))).toContain("body.expired_at");
      // A query parameter the contract does not declare (`a[b]`, an object as openapi-fetch sends it): refused, named.
      const bracketed = await fetch(`${mock.url}/api/admin/users/?a[b]=1`, { headers: { authorization: `Bearer ${TOKEN}`, "x-store-api-version": "2024-04-01" } });
      expect(bracketed.status).toBe(422);
      expect(JSON.stringify(await bracketed.json())).toContain('"location":["query","a[b]"]');
      // In flight when SIGTERM arrives: answered, and logged.
      const late = store.gateways.retrieve(1);
      for (let i = 0; i < 300 && !existsSync(join(project!.dir, "in-flight.marker")); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      mock.child.kill("SIGTERM");
      expect(await late).toEqual({ id: 1 });
      expect(await mock.exited, mock.output()).toBe(0);
    } finally {
      mock.child.kill("SIGKILL");
    }
    const text = await readFile(join(project!.dir, "requests.jsonl"), "utf8");
    expect(text).not.toContain(TOKEN);
    const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => [line.method, line.path, line.status])).toEqual([
      ["GET", "/users/42/", 200],
      ["GET", "/gift-cards/", 200],
      ["PATCH", "/gift-cards/7/", 422],
      ["GET", "/users/", 422],
      ["GET", "/gateways/1/", 200],
    ]);
    expect(lines[1]!.query).toEqual({ status: "active" });
    expect(lines[2]!.body).toEqual({ expired_at: 42 });
    for (const line of lines) {
      expect(Object.keys(line)).toEqual(["method", "path", "query", "body", "status", "time"]);
      expect(new Date(line.time as string).toISOString()).toBe(line.time);
    }
  }, 60_000);

  it("refuses a --handlers module whose default export is not a function, naming it (exit 2)", async () => {
    const result = await run(bin(), ["mock", "--port", "0", "--handlers", "package.json"], { cwd: project!.dir, timeoutMs: 30_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--handlers package\.json: (could not be loaded|its default export must be a function)/);
  }, 60_000);
});
