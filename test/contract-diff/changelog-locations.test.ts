/**
 * The changelog draft names each operation's change where that operation's own result has
 * it: `GiftCard.last_four` removed is `data.results[].last_four` in the list
 * (GET /gift-cards/) and `data.last_four` in PATCH /gift-cards/{id}/, which returns one card.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";
import { parseContract } from "../../scripts/contract-diff/document.js";
import { diffContracts, toChangelog } from "../../scripts/contract-diff/report.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const contract = readFileSync(`${root}openapi/store-admin.yaml`, "utf8");

describe("the changelog draft for a field removed from a schema that a list and a single resource return", () => {
  let entry: string;
  beforeAll(async () => {
    const head = contract.replace(/^ {8}last_four: .*\n/gm, "");
    expect(contract.length - head.length).toBeGreaterThan(0);
    const result = await diffContracts(parseContract(contract, "base"), parseContract(head, "head"));
    entry = toChangelog(result, "0.4.0", "0.3.0", "0.3.0");
  }, 300_000);

  test("names each operation's own location of the field", () => {
    const line = entry.split("\n").find((l) => l.includes("last_four")) ?? "";
    // Among the operations each sentence names (another operation returning a card may join them).
    expect(line, entry).toMatch(/Stop reading `data\.results\[\]\.last_four` from [^:]*\bGET \/gift-cards\/(, [^:]*)?'s answer/);
    expect(line).toMatch(/Stop reading `data\.last_four` from [^:]*\bPATCH \/gift-cards\/\{id\}\/(, [^:]*)?'s answer/);
    // The list's location is never given for the operation that returns one card, nor the reverse.
    expect(line).not.toMatch(/`data\.results\[\]\.last_four`[^.]*PATCH/);
    expect(line).not.toMatch(/`data\.last_four`[^.]*GET \/gift-cards\/'s/);
  });
});
