/**
 * `store-admin-sdk mock`, from the packed package: the testing kit over HTTP on 127.0.0.1, with
 * a --handlers module and a request log. The SDK's own client calls it (the baseUrl is the
 * server's address); requests are validated against the contract (a bad body gets the kit's
 * 422 naming the field), answered by the handlers or the contract's examples, logged one JSON
 * line each, written before its answer is sent, never the token; SIGTERM lets the request in
 * flight finish and its line be written, and answers 503 (and logs) what is still pending after
 * --grace; a --log or --handlers module that cannot be used exits 2 before listening; a body
 * too large for the log is logged as its size. Started through `npx` (which passes no SIGTERM
 * on) and stopped by npx's process id, it stops as on SIGTERM: the guide's script runs as is.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  existsSync,
  linkSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { cp, readFile } from "node:fs/promises";
import { request } from "node:http";
import { once } from "node:events";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fencedBlocks } from "../../scripts/docs-code.js";
import { createStoreAdminClient, UnprocessableEntityError } from "../../src/index.js";
import { createConsumerProject, npmEnv, ROOT, run, type ConsumerProject } from "../package/tarball.js";

const TOKEN = "sk_live_mockcommand_secret_0123";
let project: ConsumerProject | undefined;

beforeAll(async () => {
  project = await createConsumerProject();
  await cp(join(ROOT, "test", "production", "fixtures", "mock-handlers.mjs"), join(project.dir, "handlers.mjs"));
  await cp(join(ROOT, "test", "production", "fixtures", "mock-handlers-hang.mjs"), join(project.dir, "hang.mjs"));
}, 300_000);

afterAll(async () => {
  await project?.remove();
});

const bin = () => join(project!.dir, "node_modules", ".bin", "store-admin-sdk");

/** Starts the command and resolves its URL once it prints that it listens. */
function startMock(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; url: string; output: () => string; exited: Promise<number | null> }> {
  const child = spawn(bin(), ["mock", "--port", "0", ...args], {
    cwd: project!.dir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
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

/** Whether something accepts connections on 127.0.0.1:`port`. */
function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Polls until nothing accepts on `port` (true), or gives up after `tries` × 100 ms (false). */
async function closedWithin(port: number, tries = 100): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (!(await accepting(port))) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/**
 * The mock processes running in `dir` (Linux /proc): the ones a test started through a launcher
 * whose pid it does not hold, so that a failing test can still stop them by id.
 */
function mocksIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (
        readlinkSync(`/proc/${entry}/cwd`) === dir &&
        command.some((arg) => arg.endsWith("store-admin-sdk")) &&
        command.includes("mock") &&
        /(^|\/)node$/.test(command[0]!)
      )
        found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** The requests of sync-customers.mjs, the code the guide's script runs against the mock. */
const SYNC_CUSTOMERS = `import { createStoreAdminClient } from "store-admin-sdk";
const store = createStoreAdminClient({ baseUrl: process.env.STORE_URL, accessToken: "test-token", maxRetries: 0 });
await store.users.retrieve(1);
await store.users.retrieve(2);
for (const id of [7, 8]) await store.giftCards.update(id, { expired_at: 42 }).catch(() => undefined);
`;

describe("store-admin-sdk mock started through npx, stopped by npx's process id", () => {
  it("the guide's script runs as is: the mock stops, the port is closed, the log complete", async () => {
    const guide = readFileSync(join(ROOT, "docs", "guide.md"), "utf8");
    const script = fencedBlocks(guide, "docs/guide.md").find(
      (block) => block.language === "sh" && block.code.includes('kill "$mock"'),
    );
    expect(script, "the guide's mock section shows a script that starts and stops the mock").toBeDefined();
    writeFileSync(join(project!.dir, "sync-customers.mjs"), SYNC_CUSTOMERS);
    try {
      const result = await run("bash", ["-c", script!.code], { cwd: project!.dir, env: npmEnv(), timeoutMs: 45_000 });
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
      // The script's last command counts the PATCH lines.
      expect(result.stdout.trim().split("\n").at(-1)).toBe("2");
      const out = readFileSync(join(project!.dir, "mock.out"), "utf8");
      expect(out).toContain("store-admin-sdk mock stopped (its launcher exited)");
      const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
      expect(await closedWithin(port)).toBe(true);
      const lines = readFileSync(join(project!.dir, "requests.jsonl"), "utf8")
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.map((line) => [line.method, line.path, line.status])).toEqual([
        ["GET", "/users/1/", 200],
        ["GET", "/users/2/", 200],
        ["PATCH", "/gift-cards/7/", 422],
        ["PATCH", "/gift-cards/8/", 422],
      ]);
      expect(mocksIn(project!.dir)).toEqual([]);
    } finally {
      for (const pid of mocksIn(project!.dir)) process.kill(pid, "SIGKILL");
    }
  }, 90_000);

  it("npx killed with SIGKILL: the mock still stops, answering the request in flight and logging it first", async () => {
    const npx = spawn(
      "npx",
      ["store-admin-sdk", "mock", "--port", "0", "--log", "launched.jsonl", "--handlers", "handlers.mjs"],
      { cwd: project!.dir, env: npmEnv(), stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    // The mock writes to npx's pipes: they close once the mock has exited too.
    const closed = Promise.all([once(npx.stdout!, "close"), once(npx.stderr!, "close")]);
    npx.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    npx.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    try {
      for (let i = 0; i < 300 && !/listening on http/.test(output); i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      expect(url, output).toBeDefined();
      const store = createStoreAdminClient({ baseUrl: url!, accessToken: TOKEN, maxRetries: 0 });
      expect(await store.users.retrieve(5)).toEqual({ id: 5, email: "user5@example.org" });
      // Answered after a second: in flight when npx goes.
      rmSync(join(project!.dir, "in-flight.marker"), { force: true });
      const late = store.gateways.retrieve(1);
      for (let i = 0; i < 300 && !existsSync(join(project!.dir, "in-flight.marker")); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      npx.kill("SIGKILL");
      expect(await late).toEqual({ id: 1 });
      // Bounded: a mock left serving fails here, not at the test's timeout.
      const exited = await Promise.race([
        closed.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 20_000)),
      ]);
      expect(exited, `the mock is still running after npx was killed:\n${output}`).toBe(true);
      expect(output).toContain("store-admin-sdk mock stopped (its launcher exited)");
      expect(await closedWithin(Number(new URL(url!).port))).toBe(true);
      const lines = readFileSync(join(project!.dir, "launched.jsonl"), "utf8")
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.map((line) => [line.method, line.path, line.status])).toEqual([
        ["GET", "/users/5/", 200],
        ["GET", "/gateways/1/", 200],
      ]);
    } finally {
      npx.kill("SIGKILL");
      for (const pid of mocksIn(project!.dir)) process.kill(pid, "SIGKILL");
      rmSync(join(project!.dir, "in-flight.marker"), { force: true });
    }
  }, 90_000);
});

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
      expect((refused as UnprocessableEntityError).validation.map((issue) => issue.location.join("."))).toContain(
        "body.expired_at",
      );
      // A query parameter the contract does not declare (`a[b]`, an object as openapi-fetch sends it): refused, named.
      const bracketed = await fetch(`${mock.url}/api/admin/users/?a[b]=1`, {
        headers: { authorization: `Bearer ${TOKEN}`, "x-store-api-version": "2024-04-01" },
      });
      expect(bracketed.status).toBe(422);
      expect(JSON.stringify(await bracketed.json())).toContain('"location":["query","a[b]"]');
      // In flight when SIGTERM arrives: answered, and logged.
      const late = store.gateways.retrieve(1);
      for (let i = 0; i < 300 && !existsSync(join(project!.dir, "in-flight.marker")); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      mock.child.kill("SIGTERM");
      expect(await late).toEqual({ id: 1 });
      expect(await mock.exited, mock.output()).toBe(0);
    } finally {
      mock.child.kill("SIGKILL");
    }
    const text = await readFile(join(project!.dir, "requests.jsonl"), "utf8");
    expect(text).not.toContain(TOKEN);
    const lines = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
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
    const result = await run(bin(), ["mock", "--port", "0", "--handlers", "package.json"], {
      cwd: project!.dir,
      timeoutMs: 30_000,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--handlers package\.json: (could not be loaded|its default export must be a function)/,
    );
  }, 60_000);

  it("each request's line is in the log when its answer arrives, a pending one holding back none; the log is emptied at start", async () => {
    const log = join(project!.dir, "answered.jsonl");
    writeFileSync(log, `${JSON.stringify({ method: "GET", path: "/from-an-earlier-run/" })}\n`);
    const mock = await startMock(["--log", "answered.jsonl", "--handlers", "handlers.mjs", "--grace", "1"]);
    const lines = () =>
      readFileSync(log, "utf8")
        .trimEnd()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    try {
      const store = createStoreAdminClient({ baseUrl: mock.url, accessToken: TOKEN, maxRetries: 0 });
      const stuck = store.users.retrieve(666).catch((error: unknown) => error);
      for (let i = 0; i < 300 && !existsSync(join(project!.dir, "stuck.marker")); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const counts: number[] = [];
      for (let i = 1; i <= 30; i++) {
        if (i % 2) await store.users.retrieve(i);
        else await store.giftCards.update(i, { expired_at: 42 as never }).catch(() => undefined);
        counts.push(lines().length);
      }
      expect(counts).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      // SIGTERM: the handler that never settles is answered 503 after --grace, and logged.
      mock.child.kill("SIGTERM");
      expect(await mock.exited, mock.output()).toBe(0);
      expect(((await stuck) as { status?: number }).status).toBe(503);
      expect(mock.output()).toContain("1 request(s) not answered within --grace 1 s were answered 503");
    } finally {
      mock.child.kill("SIGKILL");
    }
    const logged = lines();
    expect(logged).toHaveLength(31);
    expect(logged.some((line) => line.path === "/from-an-earlier-run/")).toBe(false);
    expect(logged.filter((line) => line.status === 422)).toHaveLength(15);
    expect(logged.at(-1)).toMatchObject({ method: "GET", path: "/users/666/", status: 503 });
  }, 60_000);

  it("SIGTERM with a request whose body never finishes arriving: answered 503 after --grace, logged, exit 0", async () => {
    const mock = await startMock(["--log", "cut.jsonl", "--grace", "1"]);
    const socket = connect(Number(new URL(mock.url).port), "127.0.0.1");
    socket.on("error", () => undefined);
    try {
      let received = "";
      socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
      // With Expect: 100-continue the server says when it has the request's head.
      socket.write(
        "PATCH /api/admin/gift-cards/1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer x\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n",
      );
      for (let i = 0; i < 300 && !received.includes("100 Continue"); i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      socket.write('{"expired_at"');
      mock.child.kill("SIGTERM");
      expect(await mock.exited, mock.output()).toBe(0);
    } finally {
      socket.destroy();
      mock.child.kill("SIGKILL");
    }
    const [line, ...more] = readFileSync(join(project!.dir, "cut.jsonl"), "utf8").trimEnd().split("\n");
    expect(more).toEqual([]);
    expect(JSON.parse(line!)).toMatchObject({ method: "PATCH", path: "/gift-cards/1/", status: 503 });
  }, 60_000);

  it("a body over 1 MiB is logged as its size, not kept whole", async () => {
    const mock = await startMock(["--log", "big.jsonl"]);
    try {
      const response = await fetch(`${mock.url}/api/admin/gift-cards/1/`, {
        method: "PATCH",
        headers: { authorization: "Bearer x", "content-type": "application/json" },
        body: JSON.stringify({ expired_at: "x".repeat(2 * 1024 * 1024) }),
      });
      await response.arrayBuffer();
      mock.child.kill("SIGTERM");
      expect(await mock.exited, mock.output()).toBe(0);
    } finally {
      mock.child.kill("SIGKILL");
    }
    const text = readFileSync(join(project!.dir, "big.jsonl"), "utf8");
    expect(text.length).toBeLessThan(10_000);
    expect(JSON.parse(text).body).toMatch(/^\[a body of 2097\d{3} bytes, over the log's limit of 1048576\]$/);
  }, 60_000);

  it("a body over 32 MiB is answered 413 without being read whole, and logged so", async () => {
    const mock = await startMock(["--log", "huge.jsonl"]);
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const sent = request(
          `${mock.url}/api/admin/gift-cards/1/`,
          { method: "PATCH", headers: { authorization: "Bearer x", "content-type": "application/json" } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        sent.on("error", reject);
        // Past the limit in chunks of 1 MiB; the answer may come before the last is sent.
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        let left = 34;
        const more = (): void => {
          while (left > 0) {
            left--;
            if (!sent.write(chunk)) return void sent.once("drain", more);
          }
          sent.end();
        };
        more();
      });
      expect(status).toBe(413);
      mock.child.kill("SIGTERM");
      expect(await mock.exited, mock.output()).toBe(0);
    } finally {
      mock.child.kill("SIGKILL");
    }
    const text = readFileSync(join(project!.dir, "huge.jsonl"), "utf8");
    expect(JSON.parse(text)).toMatchObject({
      method: "PATCH",
      path: "/gift-cards/1/",
      status: 413,
      body: "[a body of more than 33554432 bytes, not read]",
    });
  }, 60_000);

  it("a --log it cannot open (a missing folder, a symlink) exits 2 naming it, before listening", async () => {
    writeFileSync(join(project!.dir, "victim.txt"), "KEEP\n");
    symlinkSync("victim.txt", join(project!.dir, "linked.jsonl"));
    for (const [log, why] of [
      ["missing/requests.jsonl", "its folder does not exist"],
      ["linked.jsonl", "it is a symlink"],
    ]) {
      const result = await run(bin(), ["mock", "--port", "0", "--log", log!], { cwd: project!.dir, timeoutMs: 30_000 });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--log ${log}: cannot be opened (${why}`);
      expect(result.stdout).not.toContain("listening");
    }
    expect(readFileSync(join(project!.dir, "victim.txt"), "utf8")).toBe("KEEP\n");
  }, 60_000);

  it("a --handlers module whose setup never settles exits 2 naming it, before listening", async () => {
    const result = await run(bin(), ["mock", "--port", "0", "--handlers", "hang.mjs"], {
      cwd: project!.dir,
      timeoutMs: 40_000,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--handlers hang.mjs: neither loaded nor set up within 10 s");
    expect(result.stdout).not.toContain("listening");
  }, 60_000);

  it("a second mock on the same port and --log exits 2 without touching the running mock's log, which stays whole JSON lines", async () => {
    const log = join(project!.dir, "shared.jsonl");
    const mock = await startMock(["--log", "shared.jsonl"]);
    const headers = { authorization: `Bearer ${TOKEN}`, "x-store-api-version": "2024-04-01" };
    try {
      for (const id of [1, 2, 3]) await (await fetch(`${mock.url}/api/admin/users/${id}/`, { headers })).arrayBuffer();
      const before = readFileSync(log, "utf8");
      const second = await run(bin(), ["mock", "--port", new URL(mock.url).port, "--log", "shared.jsonl"], {
        cwd: project!.dir,
        timeoutMs: 30_000,
      });
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`cannot listen on 127.0.0.1:${new URL(mock.url).port}`);
      expect(readFileSync(log, "utf8")).toBe(before);
      await (await fetch(`${mock.url}/api/admin/users/4/`, { headers })).arrayBuffer();
      mock.child.kill("SIGTERM");
      expect(await mock.exited, mock.output()).toBe(0);
    } finally {
      mock.child.kill("SIGKILL");
    }
    const lines = readFileSync(log, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.path)).toEqual(["/users/1/", "/users/2/", "/users/3/", "/users/4/"]);
  }, 60_000);

  it("refuses a --log that is the --handlers module (or a hard link to it), or not a regular file (a FIFO), exit 2 before listening", async () => {
    const module = readFileSync(join(project!.dir, "handlers.mjs"), "utf8");
    linkSync(join(project!.dir, "handlers.mjs"), join(project!.dir, "handlers-link.mjs"));
    for (const log of ["handlers.mjs", "handlers-link.mjs"]) {
      const result = await run(bin(), ["mock", "--port", "0", "--log", log, "--handlers", "handlers.mjs"], {
        cwd: project!.dir,
        timeoutMs: 30_000,
      });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`--log ${log} is the same file as --handlers handlers.mjs`);
      expect(result.stdout).not.toContain("listening");
      expect(readFileSync(join(project!.dir, "handlers.mjs"), "utf8")).toBe(module);
    }
    expect(spawnSync("mkfifo", [join(project!.dir, "requests.fifo")]).status).toBe(0);
    const fifo = await run(bin(), ["mock", "--port", "0", "--log", "requests.fifo"], {
      cwd: project!.dir,
      timeoutMs: 20_000,
    });
    expect(fifo.code, fifo.stderr).toBe(2);
    expect(fifo.stderr).toContain("--log requests.fifo: cannot be opened (it is not a regular file");
    expect(fifo.stdout).not.toContain("listening");
  }, 90_000);

  it("refuses a --grace longer than a day, naming it (exit 2)", async () => {
    const result = await run(bin(), ["mock", "--port", "0", "--grace", "3000000"], {
      cwd: project!.dir,
      timeoutMs: 30_000,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--grace must be a number of seconds from 0 to 86400, got "3000000"');
    expect(result.stdout).not.toContain("listening");
  }, 60_000);

  it("keeps no request it answered: 1,000 bodies of 1 MB in a 64 MB heap, each answered", async () => {
    const mock = await startMock([], { ...process.env, NODE_OPTIONS: "--max-old-space-size=64" });
    const headers = {
      authorization: `Bearer ${TOKEN}`,
      "x-store-api-version": "2024-04-01",
      "content-type": "application/json",
    };
    const body = JSON.stringify({ message: "m".repeat(1_000_000) });
    const statuses = new Map<number, number>();
    try {
      for (let i = 0; i < 1_000; i++) {
        const response = await fetch(`${mock.url}/api/admin/disputes/${i + 1}/notes/`, {
          method: "POST",
          headers,
          body,
        });
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
      mock.child.kill("SIGTERM");
      expect(await mock.exited, mock.output()).toBe(0);
    } finally {
      mock.child.kill("SIGKILL");
    }
    expect([...statuses]).toEqual([[200, 1_000]]);
  }, 180_000);

  it("answers a body nested 200,000 levels deep 400, naming the depth, and logs it", async () => {
    const mock = await startMock(["--log", "deep.jsonl"]);
    const deep = `{"message":${"[".repeat(200_000)}${"]".repeat(200_000)}}`;
    try {
      const response = await fetch(`${mock.url}/api/admin/disputes/1/notes/`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${TOKEN}`,
          "x-store-api-version": "2024-04-01",
          "content-type": "application/json",
        },
        body: deep,
        // Only so that a mock that never answers fails the test instead of hanging it.
        signal: AbortSignal.timeout(30_000),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { detail: string }).detail).toMatch(/nested more than \d+ levels deep/);
      // The mock still answers after it.
      expect(
        (
          await fetch(`${mock.url}/api/admin/users/1/`, {
            headers: { authorization: `Bearer ${TOKEN}`, "x-store-api-version": "2024-04-01" },
          })
        ).status,
      ).toBe(200);
      mock.child.kill("SIGTERM");
      expect(await mock.exited, mock.output()).toBe(0);
    } finally {
      mock.child.kill("SIGKILL");
    }
    const lines = readFileSync(join(project!.dir, "deep.jsonl"), "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => [line.method, line.path, line.status])).toEqual([
      ["POST", "/disputes/1/notes/", 400],
      ["GET", "/users/1/", 200],
    ]);
    expect(String(lines[0]!.body)).toMatch(/^\[a JSON body nested more than \d+ levels deep, \d+ bytes\]$/);
  }, 60_000);

  it("refuses __proto__, constructor and prototype as query names with 422, naming each, and logs them as sent", async () => {
    const mock = await startMock(["--log", "proto.jsonl"]);
    const headers = { authorization: `Bearer ${TOKEN}`, "x-store-api-version": "2024-04-01" };
    const names = ["__proto__", "constructor", "prototype"];
    try {
      for (const name of names) {
        const response = await fetch(`${mock.url}/api/admin/users/?${name}=one&email=ada%40example.com`, { headers });
        expect(response.status, name).toBe(422);
        const answer = (await response.json()) as { validation: Array<{ location: string[] }> };
        expect(
          answer.validation.map((issue) => issue.location),
          name,
        ).toEqual([["query", name]]);
      }
      mock.child.kill("SIGTERM");
      expect(await mock.exited, mock.output()).toBe(0);
    } finally {
      mock.child.kill("SIGKILL");
    }
    const lines = readFileSync(join(project!.dir, "proto.jsonl"), "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { query: Record<string, unknown>; status: number });
    expect(lines.map((line) => line.status)).toEqual([422, 422, 422]);
    lines.forEach((line, i) => {
      expect(Object.keys(line.query)).toEqual([names[i], "email"]);
      expect(Object.getOwnPropertyDescriptor(line.query, names[i]!)?.value).toBe("one");
    });
  }, 60_000);
});
