/**
 * What the MCP server's code mode costs: a warm type-check of a 30-line snippet against the
 * generated declarations (one LanguageService, its declarations parsed once), a sandbox's start
 * (a fresh QuickJS runtime, the prelude, a snippet that returns at once, disposal), and a
 * sandboxed `store.*` call beside the same method called directly on the same stub fetch (the
 * crossing, the host's checks and the contract check it adds).
 */
import { createStoreAdminClient } from "../../src/index.js";
import { operationCalls } from "../../src/mcp/operation-call.js";
import { codeModeHost, type SentCall } from "../../src/mcp/code/host.js";
import { loadQuickJS, runInSandbox } from "../../src/mcp/code/sandbox.js";
import { loadTypeScript, snippetChecker } from "../../src/mcp/code/typecheck.js";
import { isolatedEngines } from "../../src/mcp/code/isolated.js";
import { endWorkers } from "../../src/mcp/code/workers.js";
import { mockStoreClient } from "../../src/testing/mock-store.js";
import { stubFetch, TOKEN, USER_JSON } from "./fixtures.js";
import { cell, oneLine, status, summarize, times, type Section } from "./measure.js";

/** 30 lines an agent might send: two lists walked, a retrieve, some arithmetic, a result. */
const SNIPPET = `const byDomain: Record<string, number> = {};
const blocked: number[] = [];
let seen = 0;
for await (const customer of store.users.list({ is_blocked: false })) {
  seen += 1;
  const email = customer.email ?? "";
  const domain = email.slice(email.indexOf("@") + 1) || "(none)";
  byDomain[domain] = (byDomain[domain] ?? 0) + 1;
  if (customer.is_blocked) blocked.push(customer.id);
  if (seen >= 100) break;
}
const withNotes: Array<{ id: number; notes: number }> = [];
for (const id of blocked.slice(0, 5)) {
  let notes = 0;
  for await (const note of store.users.notes.list(id)) {
    if (note.message) notes += 1;
  }
  withNotes.push({ id, notes });
}
const first = await store.users.retrieve(42);
const cards: string[] = [];
for await (const card of store.giftCards.list({ customer: first.id })) {
  cards.push(String(card.id));
  if (cards.length > 10) break;
}
const top = Object.entries(byDomain).sort((a, b) => b[1] - a[1]).slice(0, 3);
console.log("domains", top.length);
return { seen, top, withNotes, cards, email: first.email };
`;

const LIMITS = { cpuMs: 5_000, memoryBytes: 64 * 1024 * 1024, stackBytes: 256 * 1024, logChars: 8_192 };

type Checker = ReturnType<typeof snippetChecker>;
type QuickJS = Awaited<ReturnType<typeof loadQuickJS>>;
type Client = ReturnType<typeof createStoreAdminClient>;
type Calls = ReturnType<typeof operationCalls>;

export async function codeMode(quick: boolean): Promise<Section> {
  const rounds = quick ? 5 : 25;
  const calls = quick ? 20 : 100;
  const checker = snippetChecker(await loadTypeScript());
  const checkMs = timeTypeChecks(checker, rounds);
  const quickjs = await loadQuickJS();
  const startMs = await timeSandboxStarts(quickjs, rounds);
  // A call: direct, and through the sandbox and the host's checks, on one stub fetch.
  const client = createStoreAdminClient({
    apiUrl: "https://shop.example.com/api/admin",
    accessToken: TOKEN,
    fetch: stubFetch(USER_JSON),
  });
  const checked = operationCalls({
    client,
    filter: {},
    maxBytes: 32_768,
    clean: (text) => text,
    contractChecker: async () => mockStoreClient("contract-check"),
    nameOf: (tool) => `store.${tool.methodName}`,
  });
  const { direct, sandboxed, crossing } = await timeCalls(quickjs, client, checked, rounds, calls);
  const { inThread, isolated } = await timeExecutes(quickjs, checker, checked, rounds);
  // The workers the executes started, ended: nothing of the section outlives it.
  endWorkers();
  return codeModeSection({ rounds, calls, checkMs, startMs, direct, sandboxed, crossing, inThread, isolated });
}

/** Type-check: warm (three checks first), each sample a changed snippet, as each execute is. */
function timeTypeChecks(checker: Checker, rounds: number): number[] {
  for (let i = 0; i < 3; i++) checker.check(`${SNIPPET}// ${i}`);
  const checkMs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    const outcome = checker.check(`${SNIPPET}// round ${i}`);
    checkMs.push(performance.now() - start);
    if (!outcome.ok) throw new Error(`the bench's snippet does not type-check: ${JSON.stringify(outcome.errors)}`);
  }
  return checkMs;
}

/** A sandbox's start: a snippet that returns at once, three warm-up starts not counted. */
async function timeSandboxStarts(quickjs: QuickJS, rounds: number): Promise<number[]> {
  const empty = () => Promise.reject(new Error("no call"));
  const startMs: number[] = [];
  for (let i = 0; i < rounds + 3; i++) {
    const start = performance.now();
    await runInSandbox(quickjs, "async function __codeModeMain() { return 1; }", empty, LIMITS);
    if (i >= 3) startMs.push(performance.now() - start);
  }
  return startMs;
}

/** Per call: direct, sandboxed with the host's checks, and the crossing alone; two warm-up rounds not counted. */
async function timeCalls(
  quickjs: QuickJS,
  client: Client,
  checked: Calls,
  rounds: number,
  calls: number,
): Promise<{ direct: number[]; sandboxed: number[]; crossing: number[] }> {
  const loop = `async function __codeModeMain() { for (let i = 0; i < ${calls}; i++) await store.users.retrieve(42); return 1; }`;
  const direct: number[] = [];
  const sandboxed: number[] = [];
  const crossing: number[] = [];
  // The crossing alone: a host that answers at once with the same user, no check, no fetch.
  const answered = JSON.parse(USER_JSON) as unknown;
  const atOnce = codeModeHost(
    {
      calls: { checkedSend: async () => ({ args: {}, data: answered, status: 200 }) },
      clean: (text) => text,
      maxCalls: calls,
    },
    [],
  );
  for (let i = 0; i < rounds + 2; i++) {
    let start = performance.now();
    for (let n = 0; n < calls; n++) await client.users.retrieve(42);
    const directMs = performance.now() - start;
    const sent: SentCall[] = [];
    start = performance.now();
    await runInSandbox(
      quickjs,
      loop,
      codeModeHost({ calls: checked, clean: (text) => text, maxCalls: calls }, sent),
      LIMITS,
    );
    const sandboxMs = performance.now() - start;
    if (sent.length !== calls || sent.some((call) => call.status !== 200))
      throw new Error(`the sandboxed calls did not all succeed: ${JSON.stringify(sent.slice(0, 3))}`);
    start = performance.now();
    await runInSandbox(quickjs, loop, atOnce, LIMITS);
    const crossingMs = performance.now() - start;
    if (i >= 2) direct.push(directMs / calls), sandboxed.push(sandboxMs / calls), crossing.push(crossingMs / calls);
  }
  return { direct, sandboxed, crossing };
}

/** A warm one-call execute, checked and run on this thread and in worker threads; three warm-up rounds not counted. */
async function timeExecutes(
  quickjs: QuickJS,
  checker: Checker,
  checked: Calls,
  rounds: number,
): Promise<{ inThread: number[]; isolated: number[] }> {
  // A warm execute of a one-call snippet: checked and run in worker threads (as the server does) against both on this thread (as it did).
  const oneCall = (i: number) => `return (await store.users.retrieve(42)).email; // ${i}`;
  const engines = isolatedEngines({
    ...LIMITS,
    maxCalls: 50,
    timeoutMs: 30_000,
    maxExecutes: 4,
    checkMs: 10_000,
    workerMemoryBytes: 512 * 1024 * 1024,
  });
  await engines.ready();
  const inThread: number[] = [];
  const isolated: number[] = [];
  for (let i = 0; i < rounds + 3; i++) {
    let start = performance.now();
    const here = checker.check(oneCall(i));
    if (!here.ok) throw new Error("the one-call snippet does not type-check");
    await runInSandbox(
      quickjs,
      here.javascript,
      codeModeHost({ calls: checked, clean: (text) => text, maxCalls: 50 }, []),
      LIMITS,
    );
    const inThreadMs = performance.now() - start;
    start = performance.now();
    const deadline = start + 30_000;
    const there = await engines.check(oneCall(i), deadline);
    if (!("ok" in there) || !there.ok)
      throw new Error(`the one-call snippet does not type-check in a worker: ${JSON.stringify(there)}`);
    const sent: SentCall[] = [];
    const outcome = await engines.run(
      there.javascript,
      codeModeHost({ calls: checked, clean: (text) => text, maxCalls: 50 }, sent),
      deadline,
      32_768,
      new AbortController(),
    );
    const isolatedMs = performance.now() - start;
    if (outcome.value === undefined || sent.length !== 1)
      throw new Error(`the one-call execute failed in a worker: ${JSON.stringify(outcome)}`);
    if (i >= 3) inThread.push(inThreadMs), isolated.push(isolatedMs);
  }
  return { inThread, isolated };
}

/** What the code-mode measurements found, as `codeMode` hands them to its section. */
interface CodeModeFigures {
  rounds: number;
  calls: number;
  checkMs: number[];
  startMs: number[];
  direct: number[];
  sandboxed: number[];
  crossing: number[];
  inThread: number[];
  isolated: number[];
}

/** The section of docs/performance.md: its note, its table and its summary rows. */
function codeModeSection({
  rounds,
  calls,
  checkMs,
  startMs,
  direct,
  sandboxed,
  crossing,
  inThread,
  isolated,
}: CodeModeFigures): Section {
  const isolation = summarize(isolated.map((ms, i) => ms / inThread[i]!));
  const overhead = summarize(sandboxed.map((ms, i) => ms - direct[i]!));
  const ratio = summarize(sandboxed.map((ms, i) => ms / direct[i]!));
  const [check, start] = [summarize(checkMs), summarize(startMs)];
  const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`;
  return {
    title: "MCP code mode",
    note: oneLine(`
      The costs of one \`execute\` (src/mcp/code/), ${rounds} samples each after a warm-up. A type-check of a
      30-line snippet against the generated declarations (generated/code-mode-declarations.ts) on a warm
      LanguageService, a changed snippet each time. A sandbox's start: a new QuickJS runtime and context, the
      prelude that builds \`store\`, a snippet that returns at once, and disposal (the WebAssembly module is
      loaded once). A call: ${calls} \`store.users.retrieve(42)\` in one sandbox, each crossing to the host,
      checked (the policy, the arguments, the contract by the testing kit's validators) and sent, against the
      same method called directly, both on one stub fetch; per call, paired by round. Most of the difference is
      the contract check before sending (the testing kit's validators, as the per-operation tools run it); the
      crossing alone (a host that answers at once) is the next row. Last, a warm \`execute\` of a one-call snippet
      (\`return (await store.users.retrieve(42)).email\`), type-checked and run on this thread as the server did
      before, against in its worker threads as it does now (the messages, the call crossing back to this thread),
      paired by round.`),
    tables: [
      [
        ["measure", "result"],
        ["warm type-check, 30 lines", cell(check, ms)],
        ["sandbox start", cell(start, ms)],
        ["a direct call (`store.users.retrieve`)", cell(summarize(direct), ms)],
        ["a sandboxed call", cell(summarize(sandboxed), ms)],
        ["sandboxed − direct, per call", cell(overhead, ms)],
        ["sandboxed ÷ direct, per call", cell(ratio, times)],
        ["the crossing alone, per call (a host answering at once: no check, no fetch)", cell(summarize(crossing), ms)],
        ["a warm one-call execute, checked and run on the server's thread", cell(summarize(inThread), ms)],
        ["a warm one-call execute, checked and run in worker threads", cell(summarize(isolated), ms)],
        ["workers ÷ server's thread, per execute", cell(isolation, times)],
      ],
    ],
    summary: [
      ["code mode: warm type-check of a 30-line snippet", ms(check.median), "< 1 s", status(check.median < 1_000)],
      ["code mode: sandbox start", ms(start.median), "< 100 ms", status(start.median < 100)],
      [
        "code mode: a sandboxed call over a direct one",
        `${ms(overhead.median)} (${times(ratio.median)})`,
        "< 2 ms",
        status(overhead.median < 2),
      ],
      [
        "code mode: a warm one-call execute in worker threads ÷ on the server's thread",
        times(isolation.median),
        "≤ 2×",
        status(isolation.median <= 2),
      ],
    ],
  };
}
