import { isolatedEngines } from "./src/mcp/code/isolated.ts";
const e = isolatedEngines({ cpuMs: 200, memoryBytes: 16<<20, stackBytes: 256<<10, maxCalls: 50, timeoutMs: 60000, maxExecutes: 4, checkMs: 40000, workerMemoryBytes: 256<<20, logChars: 1000 });
await e.ready();
for (const code of [`const keep: string[] = []; for (;;) keep.push('x'.repeat(4 * 1024 * 1024) + keep.length);`]) {
  const c: any = await e.check(code, performance.now() + 60000);
  const t = performance.now();
  const o = await e.run(c.javascript, async () => ({ json: "null" }), performance.now() + 20000, 32768, new AbortController());
  console.log(o.stoppedBy, o.error?.message.slice(0, 80), Math.round(performance.now() - t));
}
