/**
 * The file ledger: what it writes is what it reads back; a crash at any byte of a write leaves
 * a file that opens with every whole record and nothing else; damage, another run's file, a
 * file that is not a ledger and a ledger in use are refused with a clear error.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileLedger, type Ledger, type LedgerResume } from "../../src/bulk/index.js";

const dir = mkdtempSync(join(tmpdir(), "bulk-ledger-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const fresh = () => join(dir, `ledger-${++files}`);

/** Keys that a naive format would break: quotes, backslashes, newlines, a NUL, non-ASCII. */
const ODD_KEYS = ["plain", 'with "quotes"', "back\\slash", "new\nline", "nul\u0000byte", "ünïcödé ✓", ""];

/** A ledger's state as the runner sees it: resume info and each key's record. */
async function stateOf(
  path: string,
  runId: string,
  keys: readonly string[],
): Promise<{ resume: LedgerResume; entries: unknown[] }> {
  const ledger = fileLedger(path);
  const resume = await ledger.open(runId);
  const entries = await Promise.all(keys.map((key) => ledger.get(key)));
  await ledger.close();
  return { resume, entries };
}

/** Writes a run's worth of records; returns the keys it used. */
async function writeRun(ledger: Ledger): Promise<string[]> {
  const keys = ODD_KEYS.filter((key) => key !== "");
  await ledger.open("run-1");
  for (const key of keys) await ledger.start(key);
  await ledger.sending(keys[0]!);
  await ledger.end(keys[0]!, { state: "done" });
  await ledger.end(keys[1]!, { state: "failed", status: 422, error: 'bad "field"\nsecond line' });
  await ledger.sending(keys[2]!);
  await ledger.end(keys[3]!, { state: "inDoubt", error: "no answer" });
  await ledger.checkpoint("cursor/=+x");
  await ledger.close();
  return keys;
}

describe("fileLedger", () => {
  it("reads back what it wrote: states, failures, in doubt, the cursor, keys of any text", async () => {
    const path = fresh();
    const keys = await writeRun(fileLedger(path));
    const { resume, entries } = await stateOf(path, "run-1", keys);
    expect(resume).toEqual({ cursor: "cursor/=+x", inDoubt: [keys[2], keys[3]] });
    expect(entries).toEqual([
      { state: "done" },
      { state: "failed", status: 422, error: 'bad "field"\nsecond line' },
      { state: "sending" },
      { state: "inDoubt", status: undefined, error: "no answer" },
      { state: "started" },
      { state: "started" },
    ]);
  });

  it("opens a file cut at every byte with exactly the whole records before the cut, and appends after them", async () => {
    const whole = fresh();
    const keys = await writeRun(fileLedger(whole));
    const bytes = readFileSync(whole);
    const lineEnds = [...bytes.entries()].filter(([, b]) => b === 10).map(([i]) => i + 1);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const path = fresh();
      writeFileSync(path, bytes.subarray(0, cut));
      // The state of the longest prefix of whole records, written out on its own.
      const wholeLines = lineEnds.filter((end) => end <= cut).at(-1) ?? 0;
      const reference = fresh();
      writeFileSync(reference, bytes.subarray(0, wholeLines));
      const expected = await stateOf(reference, "run-1", keys);
      const got = await stateOf(path, "run-1", keys);
      expect(got, `cut at byte ${cut}`).toEqual(expected);
      // The torn tail is gone: a record appended now is read back.
      const ledger = fileLedger(path);
      await ledger.open("run-1");
      await ledger.end("after-the-cut", { state: "done" });
      await ledger.close();
      expect((await stateOf(path, "run-1", ["after-the-cut"])).entries).toEqual([{ state: "done" }]);
    }
  });

  it("drops a last record that fails its checksum (a torn write), and refuses one followed by good records (damage)", async () => {
    const path = fresh();
    const keys = await writeRun(fileLedger(path));
    const bytes = readFileSync(path);
    const lastStart = bytes.lastIndexOf(10, bytes.length - 2) + 1;
    const tornTail = Buffer.from(bytes);
    tornTail[lastStart + 10] = tornTail[lastStart + 10]! ^ 0x01;
    writeFileSync(path, tornTail);
    expect((await stateOf(path, "run-1", keys)).resume.cursor).toBeUndefined();

    const damaged = fresh();
    const middle = Buffer.from(bytes);
    const second = middle.indexOf(10) + 1;
    middle[second + 9] = middle[second + 9]! ^ 0x01;
    writeFileSync(damaged, middle);
    await expect(fileLedger(damaged).open("run-1")).rejects.toThrow(
      new RegExp(`The ledger file .* is damaged at byte ${second}: .*good records follow`),
    );
    expect(readFileSync(damaged)).toEqual(middle);
  });

  it("refuses another run's file, a file that is not a ledger, a ledger in use, and 0.3.0's lock file", async () => {
    const path = fresh();
    await writeRun(fileLedger(path));
    await expect(fileLedger(path).open("run-2")).rejects.toThrow(/belongs to the run "run-1", not "run-2"/);

    const text = fresh();
    writeFileSync(text, "id,name\n1,Ada\n");
    await expect(fileLedger(text).open("run-1")).rejects.toThrow(/is not a bulk ledger/);
    expect(readFileSync(text, "utf8")).toBe("id,name\n1,Ada\n");

    // One line without a newline is not a torn header either.
    const oneLine = fresh();
    writeFileSync(oneLine, 'deadbeefH{"ledger":"something-else"}');
    await expect(fileLedger(oneLine).open("run-1")).rejects.toThrow(/is not a bulk ledger/);
    expect(readFileSync(oneLine, "utf8")).toContain("something-else");

    const held = fileLedger(path);
    await held.open("run-1");
    await expect(fileLedger(path).open("run-1")).rejects.toThrow(
      `The ledger ${path} is in use: it is already open in this process`,
    );
    await held.close();
    expect(existsSync(`${path}.lock`)).toBe(false);

    // The lock file of 0.3.0 (a process id): refused with what to do, whatever its age.
    writeFileSync(`${path}.lock`, String(process.ppid));
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(`${path}.lock`, old, old);
    await expect(fileLedger(path).open("run-1")).rejects.toThrow(
      `a lock file of an earlier store-admin-sdk (0.3.0) is there, holding a process id; if no run of that version uses this ledger, delete it (${path}.lock)`,
    );
    rmSync(`${path}.lock`);
    const after = fileLedger(path);
    await after.open("run-1");
    await after.close();
  });

  it("refuses a bad path", () => {
    expect(() => fileLedger("")).toThrow(/fileLedger\(path\) takes the path of the ledger file/);
  });
});
