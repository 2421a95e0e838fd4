/**
 * The diff as people read it: the run itself (structural diff + compile probe), the report
 * grouped by operation, the JSON object of `--json`, and a draft changelog entry.
 */
import { compareContracts, bumpOfChanges, leafName, type Change } from "./compare.js";
import type { Node } from "./document.js";
import { adviceFor, brokenCodeFor, kindRule, type Bump } from "./kinds.js";
import { BREAKING_HEADING, releaseRule } from "./release.js";
import { attribute, runProbes, type ProbeError } from "./probe.js";

interface DiffResult {
  bump: Bump;
  changes: Change[];
  /** Compile errors of the probe against the head's types, per operation ("" for none). */
  errors: ProbeError[];
  /** Errors the probe had against the base's own types (a defect of the probe; excluded). */
  selfErrors: ProbeError[];
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Compare two contracts and prove each change's effect on the types with the compile probe. */
export async function diffContracts(
  base: Node,
  head: Node,
  options: { keepProbe?: boolean; log?: (line: string) => void } = {},
): Promise<DiffResult> {
  const changes = compareContracts(base, head);
  if (same(base, head)) return { bump: "none", changes, errors: [], selfErrors: [] };
  const started = Date.now();
  // The probe covers the operations the structural diff names: a change reaches a caller only
  // through an operation whose parameters, body or responses lead to it, and those are all named.
  const touched = new Set(changes.flatMap((c) => (c.operation === null ? [] : [c.operation])));
  const outcome = (
    await runProbes([{ id: "head", base, head, changes, operations: touched }], { keep: options.keepProbe })
  ).get("head");
  if (outcome === undefined) throw new Error("the compile probe produced no result");
  options.log?.(
    `Compiled the probe in ${((Date.now() - started) / 1000).toFixed(1)} s${options.keepProbe ? ` (kept in ${outcome.probeDir})` : ""}.`,
  );
  attribute(changes, outcome.errors);
  return { bump: bumpOfChanges(changes), changes, errors: outcome.errors, selfErrors: outcome.selfErrors };
}

/** The `--json` object: exactly the documented fields. */
export function toJson(result: DiffResult): {
  bump: Bump;
  changes: Array<Pick<Change, "operation" | "location" | "kind" | "breaking" | "typeBreak" | "message">>;
} {
  return {
    bump: result.bump,
    changes: result.changes.map(({ operation, location, kind, breaking, typeBreak, message }) => ({
      operation,
      location,
      kind,
      breaking,
      typeBreak,
      message,
    })),
  };
}

const rank = (c: Change): number => (c.breaking ? 0 : c.bump === "minor" ? 1 : 2);
const label = (c: Change): string => (c.breaking ? "BREAKING" : c.bump === "minor" ? "minor" : "patch");

/** The readable report, grouped by operation, breaking changes first within each. */
export function toText(result: DiffResult, sources: { base: string; head: string; released?: string }): string {
  const lines: string[] = [`Contract diff: ${sources.base} → ${sources.head}`, ""];
  if (result.changes.length === 0) return [...lines, "No changes. Release needed: none."].join("\n") + "\n";
  const rule = sources.released === undefined ? "" : ` ${releaseRule(sources.released, result.bump)}`;
  const groups = new Map<string, Change[]>();
  for (const change of result.changes) {
    const key = change.operation ?? "(no operation: document-wide or unused components)";
    groups.set(key, [...(groups.get(key) ?? []), change]);
  }
  for (const [operation, changes] of groups) {
    lines.push(operation);
    for (const c of [...changes].sort((a, b) => rank(a) - rank(b))) {
      const proof = c.typeBreak ? "compile error" : kindRule(c.kind).typed ? "compiles" : "types unaffected";
      lines.push(`  ${label(c).padEnd(8)} ${c.kind} (${proof}): ${c.message}`);
      if (c.location !== "") lines.push(`           at ${c.location}`);
    }
    lines.push("");
  }
  const breaking = result.changes.filter((c) => c.breaking);
  const proven = breaking.filter((c) => c.typeBreak);
  lines.push(
    `${result.changes.length} change(s): ${breaking.length} breaking (${proven.length} proven by a compile error, ${breaking.length - proven.length} that compile but refuse once-valid requests or values), ` +
      `${result.changes.filter((c) => !c.breaking && c.bump === "minor").length} minor, ${result.changes.filter((c) => c.bump === "patch").length} patch.`,
  );
  if (result.selfErrors.length > 0) {
    lines.push(
      `Note: the probe has ${result.selfErrors.length} compile error(s) against the base's own types; those lines were left out of the proof.`,
    );
  }
  lines.push(`Release needed: ${result.bump}.${rule}`);
  return lines.join("\n") + "\n";
}

/** The component (`User`) or operation a pointer lies in: changes there are told together. */
function ownerOf(location: string): string {
  const component = /^#\/components\/(?:schemas|parameters|requestBodies|responses)\/([^/]+)/.exec(location);
  if (component?.[1] !== undefined) return `\`${component[1].replace(/~1/g, "/").replace(/~0/g, "~")}\``;
  return "";
}

/**
 * A draft CHANGELOG.md entry: breaking changes first, each with what a caller must change,
 * in the caller's words (`data.arn`, `body.postcode`), and, where the compile probe proved
 * it, which code no longer compiles. Changes of one kind inside one component (every field
 * of `User` made nullable) are one line, naming the operations that use it and the fields.
 * `released` is the version the base was released as: the entry then says how the version
 * follows from the bump (0.x moves the minor number for a breaking change). It carries no
 * `## [x.y.z] - date` heading: its sections go under `## [Unreleased]`, and only
 * `npm run release` dates a version. Breaking changes are under BREAKING_HEADING, each line
 * `- **OPERATION**: …` naming the field: the form `release:check` counts as covering a break.
 */
export function toChangelog(result: DiffResult, version: string, baseLabel: string, released?: string): string {
  const groups = new Map<string, Change[]>();
  for (const c of result.changes) {
    const owner = ownerOf(c.location);
    const key = `${c.kind}|${c.direction}|${c.breaking}|${owner === "" ? `${c.operation}|${c.location}` : owner}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const line = (list: Change[]): string => {
    const first = list[0] as Change;
    const opOf = (c: Change): string => c.operation ?? "the document";
    const ops = [...new Set(list.map(opOf))];
    const leaves = [...new Set(list.map((c) => leafName(c.field)))].filter((f) => f !== "");
    // Each operation names the field where its own answer or request has it (a list's
    // `data.results[].x`, a single resource's `data.x`); operations that share those are told together.
    const byFields = new Map<string, { ops: string[]; fields: string[] }>();
    for (const op of ops) {
      // Shortest first: `data.email` before `data.results[].email`.
      const fields = [...new Set(list.filter((c) => opOf(c) === op).map((c) => c.field))]
        .filter((f) => f !== "")
        .sort((a, b) => a.length - b.length || a.localeCompare(b));
      const key = fields.join(" ");
      byFields.set(key, { ops: [...(byFields.get(key)?.ops ?? []), op], fields });
    }
    const many = new Set(list.map((c) => c.location)).size > 1 || byFields.size > 1;
    const what = many
      ? `${first.kind.replace(/-/g, " ")} in ${ownerOf(first.location)} (${first.direction}): ${leaves.map((f) => `\`${f}\``).join(", ")}.`
      : first.message;
    const named = (fields: string[]): string =>
      fields.length === 0 ? "the value" : fields.map((f) => `\`${f}\``).join(", ");
    const fill = (template: string): string =>
      [
        ...new Set(
          [...byFields.values()].map((g) =>
            template.replaceAll("{op}", g.ops.join(", ")).replaceAll("{field}", named(g.fields)),
          ),
        ),
      ].join(" ");
    // What no longer compiles is said once, of every location (the sentence names no operation).
    const allFields = [...new Set([...byFields.values()].flatMap((g) => g.fields))].sort(
      (a, b) => a.length - b.length || a.localeCompare(b),
    );
    const broken = list.some((c) => c.typeBreak)
      ? brokenCodeFor(first.kind, first.direction)
          .replaceAll("{op}", ops.join(", "))
          .replaceAll("{field}", named(allFields))
      : "";
    return `- **${ops.join(", ")}**: ${what}${first.breaking ? ` *What to change:* ${fill(adviceFor(first.kind, first.direction))}${broken === "" ? "" : ` ${broken}`}` : ""}`;
  };
  const sections: Array<[string, (c: Change) => boolean]> = [
    [BREAKING_HEADING.replace(/^### /, ""), (c) => c.breaking],
    ["Added and changed", (c) => !c.breaking && c.bump === "minor"],
    ["Documentation and fixes", (c) => !c.breaking && c.bump !== "minor"],
  ];
  const rule = released === undefined ? "" : ` ${releaseRule(released, result.bump)}`;
  const out = [
    `Contract changes since ${baseLabel}, for the release ${version}. Release needed: ${result.bump}.${rule}`,
  ];
  for (const [title, keep] of sections) {
    const list = [...groups.values()].filter((g) => keep(g[0] as Change));
    if (list.length === 0) continue;
    out.push("", `### ${title}`, "", ...list.map(line));
  }
  return out.join("\n") + "\n";
}
