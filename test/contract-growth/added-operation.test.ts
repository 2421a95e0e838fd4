/**
 * An operation added to the contract needs no edit of the suite: a copy of this checkout gets
 * `GET /gift-cards/{id}/` (with its `x-sdk-method` and response example) and an optional
 * `GiftCard.note` in its contract, `npm run generate`, then a check with no file under `test/`
 * changed. Tests over every operation take their calls and counts from the contract or
 * `generated/` (test/helpers/contract-calls.ts); only `test/spec/`, which holds the contract to
 * the specification's operations, changes with the spec by design.
 *
 * The check is `SUITE_GROWTH_COMMAND`, run by a shell in the copy. By default it is the fast
 * part: the build, the typecheck and the files that go over every operation or count them.
 * The whole suite but `test/spec/` (10-30 minutes) is:
 *
 *   SUITE_GROWTH_COMMAND="npm run build && npm run typecheck && node_modules/.bin/vitest run --exclude 'test/spec/**' --exclude 'test/contract-growth/**'" \
 *     npx vitest run test/contract-growth/
 *
 * (`node_modules/.bin/vitest`, not `npx vitest`: npx hands its arguments to a shell, which
 * would expand the globs.)
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { contractModel } from "../../scripts/contract-model.js";
import { loadContractFile } from "../../scripts/load-contract.js";
import { describeRun, npmEnv, ROOT, run } from "../package/tarball.js";

/** The files of the suite that go over every operation or count them: what the default check runs. */
const PER_OPERATION_FILES = [
  "test/methods/methods.test.ts",
  "test/methods/generate.test.ts",
  "test/methods/method-names.test.ts",
  "test/methods/return-types.test.ts",
  "test/testing/operations.test.ts",
  "test/contract/auth-and-headers.test.ts",
  "test/mcp/generate.test.ts",
];
const COMMAND = process.env.SUITE_GROWTH_COMMAND ?? `npm run build && npm run typecheck && npx vitest run ${PER_OPERATION_FILES.join(" ")}`;

/** What a maintainer adds: an operation beside its neighbours, and an optional field. */
const ADDED_OPERATION = `    get:
      operationId: retrieveGiftCard
      x-sdk-method: giftCards.retrieve
      summary: Retrieve a gift card
      description: Returns one gift card.
      tags: [Gift cards]
      security:
        - storeAdminToken: ["gift_cards:read"]
      parameters:
        - $ref: "#/components/parameters/ApiVersion"
      responses:
        "200":
          description: The gift card.
          content:
            application/json:
              schema: { $ref: "#/components/schemas/GiftCard" }
              examples:
                giftCard: { $ref: "#/components/examples/GiftCard" }
        "401": { $ref: "#/components/responses/Unauthorized" }
        "403": { $ref: "#/components/responses/Forbidden" }
        "404": { $ref: "#/components/responses/NotFound" }
        "429": { $ref: "#/components/responses/TooManyRequests" }
        5XX: { $ref: "#/components/responses/ServerError" }
`;
const ADDED_FIELD = `        note: { type: [string, "null"], description: A note on the card for the store's staff. }\n`;

/** The contract with the operation and the field added, or an error naming the place it no longer finds. */
function grownContract(text: string): string {
  const add = (anchor: string, insert: (anchor: string) => string, what: string): void => {
    if (!text.includes(anchor)) throw new Error(`openapi/store-admin.yaml: ${what} (${JSON.stringify(anchor)}) is not there to add beside; update test/contract-growth/.`);
    text = text.replace(anchor, insert(anchor));
  };
  add("    patch:\n      operationId: updateGiftCard\n", (patch) => ADDED_OPERATION + patch, "PATCH /gift-cards/{id}/");
  add('        last_four: { type: [string, "null"] }\n', (lastFour) => lastFour + ADDED_FIELD, "GiftCard.last_four");
  return text;
}

/**
 * A copy of the checkout as it is (tracked and untracked files, not ignored ones), on the
 * history of HEAD (some tests read it, through git's alternates), with this checkout's
 * node_modules hard-linked in (a symbolic link would make bundlers name its files by their
 * real path, outside the copy), or linked where hard links cannot reach.
 */
function copyCheckout(into: string): void {
  const git = (cwd: string, ...args: string[]): string => execFileSync("git", args, { cwd, encoding: "utf8" });
  const files = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0").filter(Boolean);
  for (const file of files) {
    const from = join(ROOT, file);
    // A tracked file deleted in the checkout is not copied.
    if (existsSync(from)) cpSync(from, join(into, file), { verbatimSymlinks: true });
  }
  try {
    execFileSync("cp", ["-al", join(ROOT, "node_modules"), join(into, "node_modules")], { stdio: "pipe" });
  } catch {
    rmSync(join(into, "node_modules"), { recursive: true, force: true });
    symlinkSync(join(ROOT, "node_modules"), join(into, "node_modules"));
  }
  git(into, "init", "-q");
  // A link is not a folder, so .gitignore's `node_modules/` would not cover it.
  writeFileSync(join(into, ".git/info/exclude"), "node_modules\n");
  writeFileSync(join(into, ".git/objects/info/alternates"), `${resolve(ROOT, git(ROOT, "rev-parse", "--git-common-dir").trim())}/objects\n`);
  git(into, "update-ref", "HEAD", git(ROOT, "rev-parse", "HEAD").trim());
  // The checkout as it is, committed in the copy: what the growth changes shows against it.
  git(into, "add", "-A");
  git(into, "-c", "user.name=suite-growth", "-c", "user.email=suite-growth@localhost", "commit", "-q", "--no-verify", "--allow-empty", "-m", "the checkout as it is");
}

describe("an operation and a field added to the contract", () => {
  const dir = mkdtempSync(join(tmpdir(), "suite-growth-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses to guess when the contract no longer has the places it adds beside", () => {
    expect(() => grownContract("openapi: 3.1.0\n")).toThrow(/PATCH \/gift-cards\/\{id\}\/ .* is not there to add beside/);
  });

  it(`regenerate, then \`${COMMAND}\` passes in a copy with no file under test/ changed`, async () => {
    mkdirSync(dir, { recursive: true });
    copyCheckout(dir);
    const contractPath = join(dir, "openapi/store-admin.yaml");
    writeFileSync(contractPath, grownContract(readFileSync(contractPath, "utf8")));
    const before = contractModel(loadContractFile(join(ROOT, "openapi/store-admin.yaml"))).operations.length;
    const grown = contractModel(loadContractFile(contractPath));
    expect(grown.operations.length).toBe(before + 1);
    expect(grown.operations.find((op) => op.key === "GET /gift-cards/{id}/")?.methodName).toBe("giftCards.retrieve");

    const env = npmEnv();
    for (const key of Object.keys(env)) if (key.startsWith("VITEST") || key === "SUITE_GROWTH_COMMAND") delete env[key];
    const generate = await run("npm", ["run", "generate"], { cwd: dir, env, timeoutMs: 600_000 });
    expect(generate.code, describeRun("npm run generate", generate)).toBe(0);
    expect(readFileSync(join(dir, "generated/operation-facts.ts"), "utf8")).toContain('"GET /gift-cards/{id}/"');
    expect(readFileSync(join(dir, "generated/names.ts"), "utf8") + readFileSync(join(dir, "generated/schema.ts"), "utf8")).toMatch(/note\?: string \| null/);

    // Nothing under test/ differs from this checkout.
    const changed = execFileSync("git", ["status", "--porcelain", "--", "test"], { cwd: dir, encoding: "utf8" });
    expect(changed).toBe("");

    const check = await run("sh", ["-c", COMMAND], { cwd: dir, env, timeoutMs: 3_600_000 });
    expect(check.code, describeRun(COMMAND, check)).toBe(0);
  }, 3_600_000);
});
