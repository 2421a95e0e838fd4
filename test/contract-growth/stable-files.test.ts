/**
 * A file generated per schema or per operation is named by a stable key (scripts/file-keys.ts),
 * so adding one schema and one operation changes no generated file of another: a scratch copy
 * of the contract gets both (the schema first among the components, the operation first among
 * the paths, where a numbering would move every other), the generator of those files runs on
 * it, and each such file of this checkout is there, byte for byte, beside two new ones per
 * operation and one per schema. Only shared files (tables, indexes) may change with them.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { contractModel } from "../../scripts/contract-model.js";
import { fileKey } from "../../scripts/file-keys.js";
import { loadContract } from "../../scripts/load-contract.js";
import { ROOT } from "../package/tarball.js";
import { CONTRACT_PATH } from "../../scripts/facts.js";

/** The folders of generated/ that hold one file per operation or per schema. */
const PER_ITEM = ["testing/ops", "validators/responses", "validators/schemas"];

const filesOf = (generated: string): Map<string, string> =>
  new Map(
    PER_ITEM.flatMap((dir) =>
      readdirSync(join(generated, dir)).map(
        (name) => [`${dir}/${name}`, readFileSync(join(generated, dir, name), "utf8")] as const,
      ),
    ),
  );

/** The contract with a schema and an operation (using it as its body) added before every other, under names it does not have yet. */
function grown(text: string): { contract: string; schema: string; operationId: string } {
  const doc = parse(text) as { paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
  const schema = ["OrderFulfill", "OrderFulfillRequest", "FulfilOrderBody"].find(
    (name) => !(name in doc.components.schemas),
  )!;
  const path = ["/orders/{number}/fulfill/", "/orders/{number}/fulfil/", "/orders/{number}/complete/"].find(
    (p) => !(p in doc.paths),
  )!;
  const ids = new Set(contractModel(loadContract(text, "contract.yaml")).operations.map((op) => op.operationId));
  const operationId = ["fulfillOrder", "fulfilOrder", "completeOrder"].find((id) => !ids.has(id))!;
  const operation = `  ${path}:
    parameters:
      - { name: number, in: path, required: true, description: The order number (a string)., schema: { type: string } }
    post:
      operationId: ${operationId}
      summary: Fulfil an order
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: "#/components/schemas/${schema}" }
      responses:
        "200":
          description: The fulfillment order.
          content:
            application/json:
              schema: { type: object, required: [id], properties: { id: { type: integer } } }
`;
  const component = `    ${schema}:
      type: object
      description: The lines to fulfil.
      properties:
        line_ids: { type: array, items: { type: integer }, maxItems: 100 }
        notify: { type: boolean }
`;
  const insert = (anchor: RegExp, added: string, into: string): string => {
    const match = anchor.exec(into);
    if (match === null)
      throw new Error(
        `openapi/store-admin.yaml has no ${anchor} to add beside; update test/contract-growth/stable-files.test.ts.`,
      );
    return into.slice(0, match.index + match[0].length) + added + into.slice(match.index + match[0].length);
  };
  return {
    contract: insert(/^ {2}schemas:\n/m, component, insert(/^paths:\n/m, operation, text)),
    schema,
    operationId,
  };
}

describe("a schema and an operation added to the contract", () => {
  const dir = mkdtempSync(join(tmpdir(), "stable-files-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("change no generated file of another schema or operation", async () => {
    const added = grown(readFileSync(CONTRACT_PATH, "utf8"));
    writeFileSync(join(dir, "store-admin.yaml"), added.contract);
    // The generator of the per-operation and per-schema files, as `npm run generate` runs it, on the copy.
    const tsx = join(ROOT, "node_modules/.bin/tsx");
    await promisify(execFile)(
      tsx,
      ["scripts/generate-testing.ts", "--spec", join(dir, "store-admin.yaml"), "--out", join(dir, "generated/testing")],
      { cwd: ROOT },
    );
    const [before, after] = [filesOf(join(ROOT, "generated")), filesOf(join(dir, "generated"))];
    const changed = [...before].filter(([name, text]) => after.get(name) !== text).map(([name]) => name);
    expect(changed, "files of other schemas and operations that changed or went").toEqual([]);
    const key = fileKey(added.operationId, added.operationId);
    const fresh = [...after.keys()].filter((name) => !before.has(name)).sort();
    expect(fresh).toEqual([
      `testing/ops/${key}.ts`,
      `validators/responses/${key}.ts`,
      `validators/schemas/${fileKey(added.schema, added.schema)}.ts`,
    ]);
  }, 300_000);
});
