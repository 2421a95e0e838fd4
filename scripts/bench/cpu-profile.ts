/**
 * Reads a V8 `.cpuprofile` (written by `node --cpu-prof`) and says where the time went:
 * self time per function, and self time per origin (our package, openapi-fetch, Node's
 * own fetch implementation, garbage collection, …).
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileEntry {
  name: string;
  origin: string;
  /** Share of the sampled time, 0–1. */
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  byOrigin: ProfileEntry[];
  /** By self time. */
  topFunctions: ProfileEntry[];
  /**
   * Functions of our package by inclusive time (their own code and what they call, up to
   * their next `await`: a resumed async function is the root of its continuation's stack).
   */
  ourFunctions: ProfileEntry[];
  /** For each of our functions asked about: what its time goes to (direct callees, inclusive, and its own code). */
  callees: Record<string, ProfileEntry[]>;
}

/** Where a frame's code lives, in the words the report uses. */
export function originOf(url: string, functionName: string): string {
  if (url.includes("/dist/src/") || url.includes("/dist/generated/")) return "store-admin-sdk";
  if (url.includes("/openapi-fetch/")) return "openapi-fetch";
  if (url.includes("/scripts/bench/")) return "benchmark harness";
  if (url.startsWith("node:internal/deps/undici") || url.includes("undici")) return "Node fetch (undici)";
  if (url.startsWith("node:")) return "Node internals";
  if (functionName === "(garbage collector)") return "garbage collection";
  if (functionName === "(idle)" || functionName === "(program)") return functionName;
  if (url === "") return "V8 builtins / native";
  return "other";
}

function shortUrl(url: string): string {
  const match = /(dist\/src\/.*|openapi-fetch\/dist\/.*|node:.*|scripts\/bench\/.*)$/.exec(url);
  return match ? match[1]! : url.replace(/^.*\//, "");
}

/** Self time per function and per origin, leaving out `(idle)`; `explain` names functions whose callees to list. */
export function summarizeProfile(path: string, top = 15, explain: readonly string[] = []): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

  const functions = new Map<string, { origin: string; us: number }>();
  const origins = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === "(idle)") continue;
    totalUs += us;
    const origin = originOf(url, functionName);
    origins.set(origin, (origins.get(origin) ?? 0) + us);
    const key = `${functionName || "(anonymous)"} ${url ? `${shortUrl(url)}:${lineNumber + 1}` : ""}`.trim();
    const entry = functions.get(key) ?? { origin, us: 0 };
    entry.us += us;
    functions.set(key, entry);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (originOf(frame.url, frame.functionName) !== "store-admin-sdk") continue;
      const name = `${frame.functionName || "(anonymous)"} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
      if (!seen.has(name)) inclusive.set(name, (inclusive.get(name) ?? 0) + us);
      seen.add(name);
    }
  }
  const byShare = (a: ProfileEntry, b: ProfileEntry): number => b.share - a.share;

  // Inclusive time of every node (its samples and its descendants').
  const inclusiveUs = new Map<number, number>();
  for (const [id, us] of selfUs) {
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) inclusiveUs.set(at, (inclusiveUs.get(at) ?? 0) + us);
  }
  const callees: Record<string, ProfileEntry[]> = {};
  for (const target of explain) {
    const parts = new Map<string, { origin: string; us: number }>();
    const add = (name: string, origin: string, us: number): void => {
      const entry = parts.get(name) ?? { origin, us: 0 };
      entry.us += us;
      parts.set(name, entry);
    };
    for (const node of profile.nodes) {
      if (node.callFrame.functionName !== target || originOf(node.callFrame.url, target) !== "store-admin-sdk") continue;
      add("(own code)", "store-admin-sdk", selfUs.get(node.id) ?? 0);
      for (const child of node.children ?? []) {
        const frame = byId.get(child)!.callFrame;
        add(`${frame.functionName || "(anonymous)"} ${shortUrl(frame.url)}`.trim(), originOf(frame.url, frame.functionName), inclusiveUs.get(child) ?? 0);
      }
    }
    callees[target] = [...parts]
      .map(([name, { origin, us }]) => ({ name, origin, share: us / totalUs }))
      .filter((entry) => entry.share >= 0.002)
      .sort(byShare)
      .slice(0, top);
  }
  return {
    totalMs: totalUs / 1000,
    byOrigin: [...origins].map(([origin, us]) => ({ name: origin, origin, share: us / totalUs })).sort(byShare),
    topFunctions: [...functions]
      .map(([name, { origin, us }]) => ({ name, origin, share: us / totalUs }))
      .sort(byShare)
      .slice(0, top),
    ourFunctions: [...inclusive]
      .map(([name, us]) => ({ name, origin: "store-admin-sdk", share: us / totalUs }))
      .sort(byShare)
      .slice(0, top),
    callees,
  };
}
