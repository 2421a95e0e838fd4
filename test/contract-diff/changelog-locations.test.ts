/**
 * The changelog draft names each operation's change where that operation's own result has
 * it: `GiftCard.last_four` removed is `data.results[].last_four` in the list
 * (GET /gift-cards/) and `data.last_four` in PATCH /gift-cards/{id}/, which returns one card.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";
import { parseContract } from "../../scripts/contract-diff/document.js";
import { bumpOfChanges, compareContracts } from "../../scripts/contract-diff/compare.js";
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
    expect(line, entry).toMatch(
      /Stop reading `data\.results\[\]\.last_four` from [^:]*\bGET \/gift-cards\/(, [^:]*)?'s answer/,
    );
    expect(line).toMatch(/Stop reading `data\.last_four` from [^:]*\bPATCH \/gift-cards\/\{id\}\/(, [^:]*)?'s answer/);
    // The list's location is never given for the operation that returns one card, nor the reverse.
    expect(line).not.toMatch(/`data\.results\[\]\.last_four`[^.]*PATCH/);
    expect(line).not.toMatch(/`data\.last_four`[^.]*GET \/gift-cards\/'s/);
  });
});

describe("the changelog draft for an operation added with a request body of a new component", () => {
  test("says the component is the new operation's request body, not that no operation uses it", async () => {
    const head = parseContract(contract, "head");
    const schemas = (head.components as { schemas: Record<string, unknown> }).schemas;
    schemas.OrderFulfill = {
      type: "object",
      description: "The lines to fulfil.",
      properties: { line_ids: { type: "array", items: { type: "integer" } } },
    };
    (head.paths as Record<string, unknown>)["/orders/{number}/fulfill/"] = {
      parameters: [{ $ref: "#/components/parameters/OrderNumber" }],
      post: {
        operationId: "fulfillOrder",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/OrderFulfill" } } },
        },
        responses: {
          "200": {
            description: "The fulfillment order.",
            content: { "application/json": { schema: { $ref: "#/components/schemas/FulfillmentOrder" } } },
          },
        },
      },
    };
    const changes = compareContracts(parseContract(contract, "base"), head);
    const entry = toChangelog(
      { bump: bumpOfChanges(changes), changes, errors: [], selfErrors: [] },
      "0.4.0",
      "0.3.0",
      "0.3.0",
    );
    expect(entry).toContain(
      "The component OrderFulfill, used by the request body of POST /orders/{number}/fulfill/, was added.",
    );
    expect(entry).toContain("POST /orders/{number}/fulfill/ was added.");
    expect(entry).not.toContain("used by no operation");
    // A component nothing uses is still said to be so.
    schemas.Unused = { type: "object" };
    const unused = compareContracts(parseContract(contract, "base"), head).find(
      (c) => c.location === "#/components/schemas/Unused",
    );
    expect(unused?.message).toBe("The component Unused, used by no operation, was added.");
  });
});
