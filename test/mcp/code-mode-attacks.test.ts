/**
 * Code mode under attack, as an agent's host runs it: `store-admin-sdk mcp --mode code` from the
 * packed tarball, driven by the official MCP client over stdio. Each attack a snippet can make on
 * the server (a type that takes minutes and gigabytes to check, a C built-in that never reaches
 * QuickJS's interrupt, a recursion in C past the WebAssembly stack, a burst of executes, a result
 * of megabytes, an execute that outlives its wall clock) ends as the documented result naming
 * its limit, listing the store calls made before it with their status; and while it runs the
 * server answers `tools/list` within a second, every time it is asked. Under lowered limits (a
 * worker heap of 256 MB, `--memory-mb 16`), so that no run needs gigabytes.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { storeAnswer, TOKEN } from "./code-mode-store.js";
import { mcpSdk, useStdioFixture } from "./stdio-fixture.js";
import { pinnedVersion } from "../package/tarball.js";

const mcp = useStdioFixture({
  answer: storeAnswer,
  token: TOKEN,
  clientName: "code-mode-attacks",
  packages: async () => [
    await mcpSdk(),
    `typescript@${await pinnedVersion("typescript")}`,
    `quickjs-emscripten@${await pinnedVersion("quickjs-emscripten")}`,
  ],
});

/** The lowered limits every server here runs under, and the flags a test adds. */
const connect = (...flags: string[]): Promise<Client> =>
  mcp.connect(["--mode", "code", "--worker-memory-mb", "256", "--memory-mb", "16", ...flags]);

/** What the issue asks of the server while an attack runs: `tools/list` answered within this. */
const RESPONSIVE_MS = 1_000;

type Json = Record<string, any>;
type Result = Awaited<ReturnType<Client["callTool"]>>;
const textOf = (result: Result) => (result.content as Array<{ text: string }>).map((c) => c.text).join("\n");

/**
 * Runs `attack` and, until it has ended (and at least `samples` times), asks for `tools/list`
 * one request after another: the attack's result and each round trip in milliseconds.
 */
async function whileResponsive<T>(
  client: Client,
  attack: Promise<T>,
  samples = 5,
): Promise<{ result: T; roundTrips: number[] }> {
  let ended = false;
  const done = attack.finally(() => (ended = true));
  const roundTrips: number[] = [];
  while (!ended || roundTrips.length < samples) {
    const start = performance.now();
    const { tools } = await client.listTools();
    roundTrips.push(performance.now() - start);
    expect(tools.map((t) => t.name)).toEqual(["search_docs", "execute"]);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { result: await done, roundTrips };
}

const execute = (client: Client, code: string) =>
  client.callTool({ name: "execute", arguments: { code } }, undefined, { timeout: 300_000 });

/** The result of an execute a limit stopped: its structured content, the token nowhere in it. */
function stopped(result: Result): Json {
  expect(result.isError).toBe(true);
  expect(textOf(result)).not.toContain(TOKEN);
  return result.structuredContent as Json;
}

/** One store call before the attack: the stopped result must still list it with its status. */
const FIRST_CALL = "await store.users.retrieve(42);\n";
const CALLED = [{ method: "users.retrieve", status: 200 }];

/** A type whose check takes seconds and hundreds of megabytes: the permutations of `n` members, as a union of tuples. */
const permutations = (
  n: number,
) => `type Perm<U, T = U> = [U] extends [never] ? [] : T extends U ? [T, ...Perm<Exclude<U, T>>] : never;
const p = null as unknown as Perm<${Array.from({ length: n }, (_, i) => i + 1).join(" | ")}>;
const q: [1, 1] = p;
return q;`;

describe("the type check, in a worker of its own", () => {
  it("is stopped by its time bound, as a compile error naming --check-ms, and the server stays responsive", async () => {
    const client = await connect("--check-ms", "1000");
    const { result, roundTrips } = await whileResponsive(client, execute(client, permutations(9)));
    expect(Math.max(...roundTrips), roundTrips.join(", ")).toBeLessThan(RESPONSIVE_MS);
    const structured = stopped(result);
    expect(structured).toMatchObject({ compiled: false, stopped_by: "check_time" });
    expect(structured.errors[0].message).toContain("The type check took longer than 1000 ms (the server's --check-ms)");
    // The next execute is checked by a fresh worker.
    expect((await execute(client, "return 1 + 1;")).structuredContent).toMatchObject({ result: 2 });
  }, 300_000);

  it("is stopped by the worker's heap, as a compile error naming --worker-memory-mb, and the server stays responsive", async () => {
    const client = await connect("--check-ms", "200000", "--timeout-ms", "300000");
    const { result, roundTrips } = await whileResponsive(client, execute(client, permutations(9)));
    expect(Math.max(...roundTrips), roundTrips.join(", ")).toBeLessThan(RESPONSIVE_MS);
    const structured = stopped(result);
    expect(structured).toMatchObject({ compiled: false, stopped_by: "check_memory" });
    expect(structured.errors[0].message).toContain(
      "The type check needed more than 256 MB of memory (the server's --worker-memory-mb)",
    );
    expect((await execute(client, "return 1 + 1;")).structuredContent).toMatchObject({ result: 2 });
  }, 300_000);
});

describe("the run, in a worker of its own", () => {
  const deep = "let a: unknown[] = []; for (let i = 0; i < 300_000; i++) a = [a];\n";
  const attacks: Array<[string, string, string[], string]> = [
    [
      "an O(n·m) indexOf in C, past --cpu-ms",
      `${FIRST_CALL}return "a".repeat(1_400_000).indexOf("a".repeat(14_000) + "b");`,
      ["--cpu-ms", "1000"],
      "cpu",
    ],
    [
      "Array.prototype.flat on a 300,000-deep array",
      `${FIRST_CALL}${deep}return a.flat(Infinity).length;`,
      ["--cpu-ms", "30000"],
      "stack",
    ],
    [
      "Array.prototype.toString on a 300,000-deep array",
      `${FIRST_CALL}${deep}return String(a).length;`,
      ["--cpu-ms", "30000"],
      "stack",
    ],
    [
      "JSON.parse of a 300,000-deep array",
      `${FIRST_CALL}return JSON.parse("[".repeat(300_000) + "]".repeat(300_000));`,
      ["--cpu-ms", "30000"],
      "stack",
    ],
    [
      "an indexOf past --timeout-ms, whatever the CPU limit",
      `${FIRST_CALL}return "a".repeat(1_400_000).indexOf("a".repeat(14_000) + "b");`,
      ["--cpu-ms", "600000", "--timeout-ms", "3000"],
      "timeout",
    ],
  ];
  for (const [name, code, flags, limit] of attacks) {
    it(`ends ${name} as stopped_by "${limit}", listing the call made before it, and the server stays responsive`, async () => {
      const client = await connect(...flags);
      // The workers started first: the wall clock of the attack is the run's, not a first start's.
      expect((await execute(client, "return 1;")).structuredContent).toMatchObject({ result: 1 });
      const { result, roundTrips } = await whileResponsive(client, execute(client, code));
      expect(Math.max(...roundTrips), roundTrips.join(", ")).toBeLessThan(RESPONSIVE_MS);
      const structured = stopped(result);
      expect(structured.stopped_by).toBe(limit);
      expect(structured.error.name).toBe("LimitError");
      expect(structured.calls).toEqual(CALLED);
      // The worker that was stopped is replaced: the next execute runs.
      expect((await execute(client, "return (await store.users.retrieve(42)).id;")).structuredContent).toMatchObject({
        result: 42,
      });
    }, 300_000);
  }

  it("bounds a result of megabytes before the server's thread scrubs it: a note of its size, the calls listed", async () => {
    const client = await connect();
    const { result, roundTrips } = await whileResponsive(
      client,
      execute(client, `${FIRST_CALL}return '"'.repeat(4_000_000);`),
    );
    expect(Math.max(...roundTrips), roundTrips.join(", ")).toBeLessThan(RESPONSIVE_MS);
    const structured = result.structuredContent as Json;
    expect(structured.result).toBeUndefined();
    expect(structured.result_cut).toBe(
      "The returned value is 8000002 bytes, over the 32768-byte result cap (--max-result-bytes): return less, or a part at a time.",
    );
    expect(structured.calls).toEqual(CALLED);
  }, 300_000);
});

describe("executes at once", () => {
  it("runs --max-executes at a time with 16 waiting, refuses the rest at once as busy, and every one is answered", async () => {
    // A wall clock no busy machine reaches: the workers a burst needs start while it runs.
    const client = await connect("--max-executes", "4", "--cpu-ms", "1000", "--timeout-ms", "240000");
    // Each holds most of its 16 MB, and its place, until its CPU time is up.
    const bomb = `${FIRST_CALL}const keep: ArrayBuffer[] = []; for (let i = 0; i < 12; i++) keep.push(new ArrayBuffer(1024 * 1024)); for (;;) {}`;
    const burst = Promise.all(Array.from({ length: 40 }, () => execute(client, bomb)));
    const { result: results, roundTrips } = await whileResponsive(client, burst);
    expect(Math.max(...roundTrips), roundTrips.join(", ")).toBeLessThan(RESPONSIVE_MS);
    const busy = results.filter((r) => textOf(r).startsWith("The server is busy"));
    // 4 running and 16 waiting when the last of the 40 arrived, unless one ended before it arrived.
    expect(busy.length).toBeGreaterThan(0);
    expect(busy.length).toBeLessThanOrEqual(40 - 4 - 16);
    expect(textOf(busy[0]!)).toBe(
      "The server is busy: 4 executes are running and 16 are waiting (the server's --max-executes); nothing was run. Try again in a moment.",
    );
    const ran = results.filter((r) => !textOf(r).startsWith("The server is busy")).map((r) => stopped(r));
    expect(ran.map((s) => s.stopped_by)).toEqual(Array(40 - busy.length).fill("cpu"));
    expect(ran.every((s) => JSON.stringify(s.calls) === JSON.stringify(CALLED))).toBe(true);
    // And the server serves afterwards.
    expect((await execute(client, "return 1 + 1;")).structuredContent).toMatchObject({ result: 2 });
  }, 300_000);
});
