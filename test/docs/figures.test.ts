/**
 * The figures the documentation states about the contract follow it (scripts/doc-figures.ts,
 * run by `npm run generate` and checked by `npm run generate:check`): the guide's table of
 * operation methods and docs/mcp.md's sizes of the tool list. As committed they are what the
 * contract gives; for a grown contract they change with it, and `npm run generate:check` fails while they are stale.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { documentedFigures } from "../../scripts/doc-figures.js";
import { contractModel } from "../../scripts/contract-model.js";
import { loadContractFile } from "../../scripts/load-contract.js";
import { ROOT } from "../package/tarball.js";

const contractFile = join(ROOT, "openapi/store-admin.yaml");

describe("the documentation's figures of the contract", () => {
  const dir = mkdtempSync(join(tmpdir(), "doc-figures-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("are, as committed, what the contract gives: every method in the guide's table, our operation count in docs/mcp.md", () => {
    const figures = documentedFigures();
    for (const [file, text] of Object.entries(figures)) expect(readFileSync(join(ROOT, file), "utf8"), file).toBe(text);
    const operations = contractModel(loadContractFile(contractFile)).operations;
    for (const op of operations) expect(figures["docs/guide.md"], op.key).toContain(`\`${op.key}\``);
    expect(figures["docs/mcp.md"]).toContain(`| ours, ${operations.length} operations |`);
  });

  it("follow a grown contract: its new method in the guide, one more operation and tool in docs/mcp.md", () => {
    const doc = loadContractFile(contractFile) as Record<string, any>;
    const count = contractModel(structuredClone(doc)).operations.length;
    doc.paths["/gift-cards/{id}/"].get = {
      operationId: "docFiguresRetrieveGiftCard",
      "x-sdk-method": "giftCards.docFigures",
      summary: "Retrieve a gift card",
      parameters: [{ $ref: "#/components/parameters/ApiVersion" }],
      responses: {
        "200": {
          description: "The gift card.",
          content: { "application/json": { schema: { $ref: "#/components/schemas/GiftCard" } } },
        },
      },
    };
    writeFileSync(join(dir, "grown.yaml"), stringify(doc, { aliasDuplicateObjects: false }));
    const grown = documentedFigures(join(dir, "grown.yaml"));
    expect(grown["docs/guide.md"]).toContain("`.docFigures(id)`");
    expect(grown["docs/guide.md"]).toContain("`GET /gift-cards/{id}/`");
    expect(grown["docs/mcp.md"]).toContain(`| ours, ${count + 1} operations |`);
    expect(grown["docs/mcp.md"]).not.toBe(readFileSync(join(ROOT, "docs/mcp.md"), "utf8"));
  });
});
