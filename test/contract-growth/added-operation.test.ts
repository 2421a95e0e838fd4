/**
 * An operation added to the contract needs no edit of the suite: a copy of this checkout gets
 * a gift card's `GET` (`GET /gift-cards/{id}/` while the contract has none, with a response
 * example and an `x-sdk-method` other than the name its URL derives) and an optional field of
 * `GiftCard` in its contract, `npm run generate`, then a check with no file under `test/`
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
import { parse } from "yaml";
import { loadContract, loadContractFile } from "../../scripts/load-contract.js";
import { describeRun, npmEnv, ROOT, run } from "../package/tarball.js";
import { CONTRACT_PATH } from "../../scripts/facts.js";

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
const COMMAND =
  process.env.SUITE_GROWTH_COMMAND ??
  `npm run build && npm run typecheck && npx vitest run ${PER_OPERATION_FILES.join(" ")}`;

/**
 * What a maintainer adds, written as its neighbours are: a gift card's `GET` (on
 * `/gift-cards/{id}/` while that path has none, else on a new path below it), named by an
 * `x-sdk-method` other than the one its URL derives, and an optional field of `GiftCard`.
 */
interface Growth {
  path: string;
  key: string;
  /** The name chosen with `x-sdk-method`, and the one the URL would derive. */
  chosen: string;
  derived: string;
  field: string;
  contract: string;
}

const operationText = (operationId: string, chosen: string, indent: string): string => `${indent}get:
${indent}  operationId: ${operationId}
${indent}  x-sdk-method: ${chosen}
${indent}  summary: Retrieve a gift card
${indent}  description: Returns one gift card.
${indent}  tags: [Gift cards]
${indent}  security:
${indent}    - storeAdminToken: ["gift_cards:read"]
${indent}  parameters:
${indent}    - $ref: "#/components/parameters/ApiVersion"
${indent}  responses:
${indent}    "200":
${indent}      description: The gift card.
${indent}      content:
${indent}        application/json:
${indent}          schema: { $ref: "#/components/schemas/GiftCard" }
${indent}          examples:
${indent}            giftCard: { $ref: "#/components/examples/GiftCard" }
${indent}    "401": { $ref: "#/components/responses/Unauthorized" }
${indent}    "403": { $ref: "#/components/responses/Forbidden" }
${indent}    "404": { $ref: "#/components/responses/NotFound" }
${indent}    "429": { $ref: "#/components/responses/TooManyRequests" }
${indent}    5XX: { $ref: "#/components/responses/ServerError" }
`;

/** The contract with the operation and the field added where it has room for them, or an error naming the place it no longer finds. */
function grownContract(text: string): Growth {
  const doc = parse(text) as {
    paths?: Record<string, Record<string, unknown>>;
    components?: { schemas?: Record<string, { properties?: Record<string, unknown> }> };
  };
  const item = doc.paths?.["/gift-cards/{id}/"];
  const properties = doc.components?.schemas?.GiftCard?.properties;
  if (item === undefined || properties === undefined)
    throw new Error(
      "openapi/store-admin.yaml: /gift-cards/{id}/ or GiftCard.properties is not there to add beside; update test/contract-growth/.",
    );
  const taken = new Set(Object.keys(doc.paths ?? {}));
  const below = ["activity", "history", "ledger", "audit"]
    .map((name) => `/gift-cards/{id}/${name}/`)
    .find((path) => !taken.has(path));
  const path = item.get === undefined ? "/gift-cards/{id}/" : below;
  if (path === undefined)
    throw new Error(
      "openapi/store-admin.yaml: every path this test adds a GET on has one; update test/contract-growth/.",
    );
  const derived = path === "/gift-cards/{id}/" ? "giftCards.retrieve" : `giftCards.${path.split("/").at(-2)}.retrieve`;
  const chosen = `${derived.slice(0, derived.lastIndexOf("."))}.fetchForSuiteGrowth`;
  const segment = path.split("/").at(-2)!;
  const operationId =
    path === "/gift-cards/{id}/"
      ? "retrieveGiftCard"
      : `retrieveGiftCard${segment[0]!.toUpperCase()}${segment.slice(1)}`;
  const field = ["note", "staff_note", "internal_note"].find((name) => !(name in properties))!;
  const insert = (anchor: RegExp, what: string, added: string): void => {
    const match = anchor.exec(text);
    if (match === null)
      throw new Error(
        `openapi/store-admin.yaml: ${what} (${anchor}) is not there to add beside; update test/contract-growth/.`,
      );
    text = text.slice(0, match.index + match[0].length) + added + text.slice(match.index + match[0].length);
  };
  if (path === "/gift-cards/{id}/")
    insert(
      /^ {2}\/gift-cards\/\{id\}\/:\n(?: {4}parameters:\n(?: {6}.*\n)+)?/m,
      "/gift-cards/{id}/",
      operationText(operationId, chosen, "    "),
    );
  else
    insert(
      /^paths:\n/m,
      "paths:",
      `  ${path}:\n    parameters:\n      - { name: id, in: path, required: true, description: Gift card id., schema: { type: integer } }\n${operationText(operationId, chosen, "    ")}`,
    );
  insert(
    /^ {4}GiftCard:\n(?: {6}.*\n)*? {6}properties:\n/m,
    "GiftCard.properties",
    `        ${field}: { type: [string, "null"], description: A note on the card for the store's staff. }\n`,
  );
  return { path, key: `GET ${path}`, chosen, derived, field, contract: text };
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
  writeFileSync(
    join(into, ".git/objects/info/alternates"),
    `${resolve(ROOT, git(ROOT, "rev-parse", "--git-common-dir").trim())}/objects\n`,
  );
  git(into, "update-ref", "HEAD", git(ROOT, "rev-parse", "HEAD").trim());
  // The checkout as it is, committed in the copy: what the growth changes shows against it.
  git(into, "add", "-A");
  git(
    into,
    "-c",
    "user.name=suite-growth",
    "-c",
    "user.email=suite-growth@localhost",
    "commit",
    "-q",
    "--no-verify",
    "--allow-empty",
    "-m",
    "the checkout as it is",
  );
}

describe("an operation and a field added to the contract", () => {
  const dir = mkdtempSync(join(tmpdir(), "suite-growth-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses to guess when the contract no longer has the places it adds beside", () => {
    expect(() => grownContract("openapi: 3.1.0\npaths: {}\n")).toThrow(
      /\/gift-cards\/\{id\}\/ or GiftCard.properties is not there to add beside/,
    );
  });

  it("adds its operation where the contract has room for it, named other than its URL would name it", () => {
    const ours = readFileSync(CONTRACT_PATH, "utf8");
    const growth = grownContract(ours);
    const grownModel = contractModel(loadContract(growth.contract, "grown.yaml"));
    expect(grownModel.operations.find((op) => op.key === growth.key)?.methodName).toBe(growth.chosen);
    expect(growth.chosen).not.toBe(growth.derived);
    // Without its x-sdk-method it would derive the other name.
    const bare = contractModel(
      loadContract(growth.contract.replace(`x-sdk-method: ${growth.chosen}`, "# no x-sdk-method"), "bare.yaml"),
    );
    expect(bare.operations.find((op) => op.key === growth.key)?.methodName).toBe(growth.derived);
    // Grown once more (the GET it added is there now), it adds below it.
    const again = grownContract(growth.contract);
    expect(again.key).not.toBe(growth.key);
    expect(contractModel(loadContract(again.contract, "again.yaml")).operations.length).toBe(
      grownModel.operations.length + 1,
    );
  });

  it(`regenerate, then \`${COMMAND}\` passes in a copy with no file under test/ changed`, async () => {
    mkdirSync(dir, { recursive: true });
    copyCheckout(dir);
    const contractPath = join(dir, "openapi/store-admin.yaml");
    const growth = grownContract(readFileSync(contractPath, "utf8"));
    writeFileSync(contractPath, growth.contract);
    const before = contractModel(loadContractFile(CONTRACT_PATH)).operations.length;
    const grown = contractModel(loadContractFile(contractPath));
    expect(grown.operations.length).toBe(before + 1);
    expect(grown.operations.find((op) => op.key === growth.key)?.methodName).toBe(growth.chosen);

    const env = npmEnv();
    for (const key of Object.keys(env)) if (key.startsWith("VITEST") || key === "SUITE_GROWTH_COMMAND") delete env[key];
    const generate = await run("npm", ["run", "generate"], { cwd: dir, env, timeoutMs: 600_000 });
    expect(generate.code, describeRun("npm run generate", generate)).toBe(0);
    expect(readFileSync(join(dir, "generated/operation-facts.ts"), "utf8")).toContain(JSON.stringify(growth.key));
    expect(
      readFileSync(join(dir, "generated/names.ts"), "utf8") + readFileSync(join(dir, "generated/schema.ts"), "utf8"),
    ).toContain(`${growth.field}?: string | null`);

    // Nothing under test/ differs from this checkout.
    const changed = execFileSync("git", ["status", "--porcelain", "--", "test"], { cwd: dir, encoding: "utf8" });
    expect(changed).toBe("");

    const check = await run("sh", ["-c", COMMAND], { cwd: dir, env, timeoutMs: 3_600_000 });
    expect(check.code, describeRun(COMMAND, check)).toBe(0);
  }, 3_600_000);
});
