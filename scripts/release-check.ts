/**
 * `npm run release:check` (part of `npm test`): does the release record agree with itself,
 * and does it say what the contract did since the last release?
 *
 * A version is either released — a dated `## [x.y.z] - YYYY-MM-DD` entry in CHANGELOG.md,
 * its contract kept as `openapi/released/store-admin-<x.y.z>.yaml`, package.json's version
 * for the newest, all made by `npm run release` — or not yet, its entries under
 * `## [Unreleased]`. Refuses (exit 1, each problem named) any mix of the two, and a contract
 * change since the last release that `## [Unreleased]` does not name (each breaking change,
 * by its field, e.g. `data.arn`, or its operation). Git tags are not consulted: a fresh
 * clone may have none.
 *
 * Run in the repository root (npm does). See docs/contract-diff.md, "Releasing".
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadContractFile } from "./load-contract.js";
import { recordProblems, releasedContract, releasedSnapshots, unreleasedProblems } from "./contract-diff/release.js";
import { CONTRACT_PATH } from "./contract-diff/document.js";
import type { Change } from "./contract-diff/compare.js";
import type { Bump } from "./contract-diff/kinds.js";

export interface ReleaseCheck {
  released: string;
  packageVersion: string;
  bump: Bump;
  changes: Change[];
  problems: string[];
}

/** The check, on the repository at `root`. */
export async function checkRelease(root: string): Promise<ReleaseCheck> {
  const released = releasedContract(root);
  const base = loadContractFile(join(root, released.path));
  const head = loadContractFile(join(root, CONTRACT_PATH));
  // Loaded here: TypeScript and openapi-typescript take seconds to load, and are only needed for a diff.
  const { diffContracts } = await import("./contract-diff/report.js");
  const { bump, changes } = await diffContracts(base, head);
  const packageVersion = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
  const changelog = readFileSync(join(root, "CHANGELOG.md"), "utf8");
  const problems = [
    ...recordProblems({ changelog, snapshots: releasedSnapshots(root), packageVersion }),
    ...unreleasedProblems({ releasedVersion: released.version, bump, changelog, changes }),
  ];
  return { released: released.version, packageVersion, bump, changes, problems };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  checkRelease(process.cwd()).then(
    (check) => {
      if (check.problems.length > 0) {
        console.error(
          `release:check: refused (last release ${check.released}, package.json ${check.packageVersion}, contract change since: ${check.bump}).`,
        );
        for (const problem of check.problems) console.error(`- ${problem}`);
        process.exit(1);
      }
      console.log(
        `release:check: the last release is ${check.released} (dated, snapshot kept, package.json agrees); CHANGELOG.md's [Unreleased] covers the contract since (change: ${check.bump}).`,
      );
    },
    (error: unknown) => {
      console.error(`release:check: ${(error as Error).message}`);
      process.exit(2);
    },
  );
}
