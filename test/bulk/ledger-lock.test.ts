/**
 * One run at a time per ledger, in one process: the lock belongs to the ledger file (a symlink,
 * `dir//a.ledger`, a relative path are the same ledger), one ledger object serves one run at a
 * time (and again after it ends), and a run that loses its lock sends nothing more. Requests
 * are counted at a loopback server. Across processes and containers: test/package/ledger.test.ts.
 */
import { mkdirSync, renameSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { createStoreAdminClient } from "../../src/index.js";
import { fileLedger, memoryLedger, runBulk, type Ledger } from "../../src/bulk/index.js";
import { bulkTestBed } from "./server.js";

const { server, dir, file } = bulkTestBed("bulk-lock-");
const fresh = () => file("lock.ledger");

const client = () => createStoreAdminClient({ apiUrl: server.url, accessToken: "sk_lock_token", maxRetries: 0 });
const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const renew = (id: number, { client: c, signal }: { client: ReturnType<typeof client>; signal: AbortSignal }) =>
  c.POST("/subscriptions/{id}/renew/", { params: { path: { id } }, signal });

describe("the lock belongs to the ledger file, not its spelling", () => {
  it("refuses a symlink to a held ledger, dir//a.ledger, and a relative spelling of it, while it is held", async () => {
    const sub = join(dir, "spelled");
    mkdirSync(sub);
    const path = join(sub, "a.ledger");
    const link = join(dir, "link.ledger");
    const held = fileLedger(path);
    await held.open("renewals");
    symlinkSync(path, link);
    for (const spelling of [link, `${sub}//a.ledger`, relative(process.cwd(), path), `${sub}/./a.ledger`]) {
      await expect(fileLedger(spelling).open("renewals"), spelling).rejects.toThrow(
        /is in use: it is already open in this process/,
      );
    }
    await held.close();
    // Released: any spelling opens it.
    const again = fileLedger(link);
    await again.open("renewals");
    await again.close();
  });
});

describe("one ledger object, one run at a time", () => {
  for (const [name, make] of [
    ["memoryLedger()", () => memoryLedger()],
    ["fileLedger(path)", () => fileLedger(fresh())],
  ] as const) {
    it(`${name} given to two runBulk calls at once: the second is refused, each POST is sent once`, async () => {
      const ledger: Ledger = make();
      server.respond = () => ({ delayMs: 20, status: 201, body: {} });
      const options = {
        client: client(),
        runId: "renewals",
        items: ids(6),
        key: String,
        concurrency: 2,
        ledger,
        task: renew,
      };
      const [first, second] = await Promise.allSettled([runBulk(options), runBulk(options)]);
      expect(first.status).toBe("fulfilled");
      expect(second.status).toBe("rejected");
      expect(String((second as PromiseRejectedResult).reason)).toMatch(
        /is in use by another run of this process \(the same ledger object given to two runBulk calls at once\)/,
      );
      for (const id of ids(6)) expect(server.count("POST", id), `POST ${id}`).toBe(1);

      // Once the first run has ended, the same object resumes: everything is done, nothing is sent.
      const third = await runBulk(options);
      expect(third).toMatchObject({ done: 0, skipped: 6 });
      expect(server.received.length).toBe(6);
    });
  }

  it('fileLedger: the same object resumes after a stop (it used to say "The ledger is not open")', async () => {
    const ledger = fileLedger(fresh());
    const stop = new AbortController();
    server.respond = (request) => {
      if (request.id === "2") stop.abort();
      return { status: 201, body: {} };
    };
    const options = {
      client: client(),
      runId: "renewals",
      items: ids(5),
      key: String,
      concurrency: 1,
      ledger,
      task: renew,
    };
    const first = await runBulk({ ...options, signal: stop.signal });
    expect(first.stopped).toBe(true);
    const second = await runBulk(options);
    expect(second).toMatchObject({ stopped: false, skipped: first.done });
    expect(first.done + second.done).toBe(5);
    for (const id of ids(5)) expect(server.count("POST", id), `POST ${id}`).toBe(1);
  });
});

describe("a run that loses its lock", () => {
  it("sends nothing more and says why, when another run took the lock (an expired lease taken over)", async () => {
    const path = fresh();
    const ledger = fileLedger(path);
    server.respond = (request) => {
      if (request.id === "3") {
        // Another process took the lock over while this run was frozen past its lease.
        renameSync(`${path}.lock`, file("gone"));
        mkdirSync(`${path}.lock`);
        writeFileSync(join(`${path}.lock`, "other-holder"), "");
      }
      return { status: 201, body: {} };
    };
    const run = runBulk({
      client: client(),
      runId: "renewals",
      items: ids(8),
      key: String,
      concurrency: 1,
      ledger,
      task: renew,
    });
    await expect(run).rejects.toThrow(
      `The run lost the lock of the ledger ${path}: another run took its lock. It sends nothing more`,
    );
    expect(server.received.map((r) => r.id)).toEqual(["1", "2", "3"]);
  });

  it("stops at its next write when its lease renewal finds the lock changed under it (proper-lockfile's onCompromised)", async () => {
    const path = fresh();
    const ledger = fileLedger(path);
    await ledger.open("renewals");
    // Another process touched the lock: the next renewal (every 5 s) finds its mtime not ours.
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(`${path}.lock`, hourAgo, hourAgo);
    let refused: unknown;
    for (let i = 0; i < 100 && refused === undefined; i++) {
      try {
        await ledger.start(`k${i}`);
        await ledger.sending(`k${i}`);
      } catch (error) {
        refused = error;
      }
      if (refused === undefined) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(String(refused)).toContain(
      `The run lost the lock of the ledger ${path}: its lease could not be renewed (Unable to update lock within the stale threshold). It sends nothing more`,
    );
    await expect(ledger.close()).rejects.toThrow(/The run lost the lock/);
  }, 30_000);
});
