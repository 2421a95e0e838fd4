/**
 * `npm run release:check` (part of `npm test`): does this release say what the contract
 * did since the last release?
 *
 * Compares the working contract, `openapi/store-admin.yaml`, with the last released one
 * (the newest `openapi/released/store-admin-<version>.yaml`) through the contract diff,
 * compile probe included, and refuses (exit 1, each problem named) when
 *
 * - package.json's version moved less than the diff's bump needs (0.x: a breaking change
 *   moves the minor number), or
 * - CHANGELOG.md has no `## [<version>]` entry for package.json's version, or that entry
 *   does not name every breaking change (its field, e.g. `data.arn`, or its operation).
 *
 * Run in the repository root (npm does). See docs/contract-diff.md, "Releasing".
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadContractFile } from "./load-contract.js";
import { releasedContract, releaseProblems } from "./contract-diff/release.js";
import { CONTRACT_PATH } from "./contract-diff/document.js";
import type { Bump } from "./contract-diff/kinds.js";

export interface ReleaseCheck {
  released: string;
  packageVersion: string;
  bump: Bump;
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
  return { released: released.version, packageVersion, bump, problems: releaseProblems({ releasedVersion: released.version, bump, packageVersion, changelog, changes }) };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  checkRelease(process.cwd()).then(
    (check) => {
      if (check.problems.length > 0) {
        console.error(`release:check: refused (last release ${check.released}, package.json ${check.packageVersion}, contract change since: ${check.bump}).`);
        for (const problem of check.problems) console.error(`- ${problem}`);
        process.exit(1);
      }
      console.log(`release:check: package.json ${check.packageVersion} and CHANGELOG.md follow the contract since ${check.released} (change: ${check.bump}).`);
    },
    (error: unknown) => {
      console.error(`release:check: ${(error as Error).message}`);
      process.exit(2);
    },
  );
}
