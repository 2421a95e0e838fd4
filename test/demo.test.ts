/**
 * `npm start`'s tour (scripts/demo.ts), run as a user runs it: against the bundled mock, and
 * against a "real store" played by a node:http server on 127.0.0.1 that records what it
 * receives, to prove the tour only reads unless --write is given and explains a rejected
 * token in one line. Then `npm start` itself (scripts/start.ts), in a scratch copy of the
 * project so that its build does not replace the dist/ other tests are reading: it prints
 * the tour and nothing of the build, unless the build fails.
 */
import { execFile } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../", import.meta.url));
/** npm prints `> name@version script` before a script runs. */
const { version } = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string };
const tsx = `${root}node_modules/.bin/tsx`;

interface DemoResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function demo(args: string[], env: Record<string, string> = {}): Promise<DemoResult> {
  const clean = { ...process.env };
  delete clean.STORE_ADMIN_URL;
  delete clean.STORE_ADMIN_TOKEN;
  try {
    const { stdout, stderr } = await run(tsx, ["scripts/demo.ts", ...args], {
      cwd: root,
      env: { ...clean, ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

beforeAll(() => {
  // The tour imports the package by name, which resolves to the build (npm test builds first).
  expect(existsSync(`${root}dist/src/index.js`), "run `npm run build` first").toBe(true);
});

describe("against the bundled mock", () => {
  it("runs every step, exits 0 and leaves no Prism behind", async () => {
    const result = await demo([]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    for (const title of [
      "Page through customers",
      "Read a customer",
      "Read a dispute",
      "Resolve the dispute",
      "Edit an order line",
      "Upload a ticket attachment",
    ]) {
      expect(result.stdout).toContain(`▸ ${title}`);
    }
    expect(result.stdout).not.toContain("skipped");
    expect(result.stdout).toContain("ticket 2201");
    // Pagination visibly crosses two pages: the first with a next cursor, then the last.
    expect(result.stdout).toMatch(/^ {2}page 1: 1 customer\(s\); next cursor cD0yMDIzLTAzLTE0$/m);
    expect(result.stdout).toMatch(/^ {2}page 2: 1 customer\(s\); no next link: the last page$/m);
    expect(result.stdout).toContain("2 customer(s) on 2 page(s)");
    // Every step says what the mock's answer means, the mock stores nothing.
    expect(result.stdout).toContain("answers with the contract's fixed examples");
    expect(result.stdout.match(/^ {2}\(mock: .+\)$/gm)).toHaveLength(6);
    expect(result.stdout).toContain("a mock stores nothing");
    const port = /mock at http:\/\/127\.0\.0\.1:(\d+)/.exec(result.stdout)?.[1];
    expect(port).toBeDefined();
    await expect(fetch(`http://127.0.0.1:${port}/users/`)).rejects.toThrow(); // nothing listens there any more
  }, 90_000); // Prism's start and the tour: about 15 s on a busy 2-core machine; demo() gives up at 60 s
});

describe("against a real store", () => {
  let server: Server;
  let url: string;
  let status = 200;
  const received: { method: string; path: string; auth: string | undefined }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      received.push({ method: req.method ?? "", path: req.url ?? "", auth: req.headers.authorization });
      if (status !== 200) {
        res.writeHead(status, { "content-type": "application/json" }).end('{"detail":"Invalid token."}');
        return;
      }
      const path = req.url ?? "";
      const body = path.startsWith("/api/admin/users/?")
        ? { next: null, previous: null, results: [{ id: 1, email: "a@example.org" }] }
        : path.startsWith("/api/admin/users/1/")
          ? { id: 1, email: "a@example.org", orders_count: 3 }
          : path.startsWith("/api/admin/disputes/")
            ? { id: 9, amount: "5.00", currency: "EUR", status: "new" }
            : { id: 1, number: "N1", lines: [], comments: [] };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    received.length = 0;
    status = 200;
  });

  const store = (extra: Record<string, string> = {}) => ({
    STORE_ADMIN_URL: url,
    STORE_ADMIN_TOKEN: "sk_live_demo",
    STORE_ADMIN_DISPUTE_ID: "9",
    STORE_ADMIN_ORDER_NUMBER: "N1",
    STORE_ADMIN_LINE_ID: "2",
    ...extra,
  });

  it("only reads without --write", async () => {
    const result = await demo([], store());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("read-only");
    expect(received.length).toBeGreaterThan(0);
    expect(received.every((r) => r.method === "GET")).toBe(true);
    expect(received.every((r) => r.path.startsWith("/api/admin/") && r.auth === "Bearer sk_live_demo")).toBe(true);
    expect(result.stdout.match(/skipped: writes to a real store need --write/g)).toHaveLength(3);
  });

  it("writes with --write", async () => {
    const result = await demo(["--write"], store());
    expect(result.code).toBe(0);
    expect(received.map((r) => r.method).sort()).toEqual(["GET", "GET", "GET", "PATCH", "POST", "POST"]);
  });

  it("explains a rejected token in one line, without a stack trace or the token", async () => {
    status = 401;
    const result = await demo([], store());
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe("✗ The store rejected the token (401) for GET /users/: check STORE_ADMIN_TOKEN.");
    expect(result.stderr + result.stdout).not.toContain("sk_live_demo");
    expect(received).toHaveLength(1); // a 401 is not retried
  });

  it("names the missing scope of a 403", async () => {
    status = 403;
    const result = await demo([], store());
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      "✗ The token lacks the scope users:read (403) for GET /users/: grant it under API Access.",
    );
  });

  it("says what to set when only one variable is given", async () => {
    const result = await demo([], { STORE_ADMIN_URL: url });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(/^Set both STORE_ADMIN_URL .* and STORE_ADMIN_TOKEN/);
    expect(received).toHaveLength(0);
  });
});

describe("npm start", () => {
  /** A copy of the project whose build writes its own dist/; sources and node_modules are links. */
  let scratch: string;
  const LINKED = ["node_modules", "src", "generated", "scripts", "docs"];
  const COPIED = ["package.json", "tsconfig.json", "tsconfig.build.json", "openapi"];
  /** This machine's npm configuration has a key npm 11 warns about on every command: not ours. */
  const MACHINE_NPM_NOISE = /^npm warn Unknown (user|env) config .*$\n?/gm;

  async function npmStart(): Promise<DemoResult> {
    const env = { ...process.env };
    delete env.STORE_ADMIN_URL;
    delete env.STORE_ADMIN_TOKEN;
    // As a user's shell has it: nothing of the `npm test` running this (npm_config_*, npm_package_*, …).
    for (const key of Object.keys(env)) if (/^npm_/i.test(key)) delete env[key];
    try {
      const { stdout, stderr } = await run("npm", ["start"], {
        cwd: scratch,
        env,
        timeout: 240_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      return { code: 0, stdout, stderr: stderr.replace(MACHINE_NPM_NOISE, "") };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return {
        code: failed.code ?? -1,
        stdout: failed.stdout ?? "",
        stderr: (failed.stderr ?? "").replace(MACHINE_NPM_NOISE, ""),
      };
    }
  }

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "store-admin-start-"));
    for (const name of LINKED) await symlink(join(root, name), join(scratch, name));
    for (const name of COPIED) await cp(join(root, name), join(scratch, name), { recursive: true });
  });
  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it("prints the tour and nothing of the build (no lint report, no Redocly banner)", async () => {
    const result = await npmStart();
    expect(JSON.stringify(result.stderr.trim())).toBe('""');
    expect(result.code).toBe(0);
    expect(existsSync(join(scratch, "dist", "src", "index.js")), "the build ran").toBe(true);
    // npm's own two-line header of the script, then the tour's first line.
    const lines = result.stdout.trim().split("\n");
    expect(lines.slice(0, 3)).toEqual([`> store-admin-sdk@${version} start`, "> tsx scripts/start.ts", ""]);
    expect(lines[3]).toMatch(/^Touring the bundled Prism mock at http:\/\/127\.0\.0\.1:\d+\./);
    expect(lines.at(-1)).toBe("Done.");
    for (const chatter of [
      "Woohoo",
      "Node.js",
      "redocly",
      "API description is valid",
      "generated/ is up to date",
      `> store-admin-sdk@${version} build`,
      "lint:openapi",
    ]) {
      expect(result.stdout, `build output in the tour: ${chatter}`).not.toContain(chatter);
    }
  }, 300_000);

  it("shows the build's output and runs no tour when the build fails", async () => {
    const contract = join(scratch, "openapi", "store-admin.yaml");
    const source = await readFile(contract, "utf8");
    // Two operations with one operationId: the contract's linter rejects it.
    await writeFile(contract, source.replace("operationId: getGateway", "operationId: getUser"));
    const result = await npmStart();
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain("operation-operationId-unique");
    expect(result.stderr).toContain("✗ npm run build failed");
    expect(result.stdout).not.toContain("▸");
  }, 300_000);
});
