/**
 * The MCP tools' generator (scripts/generate-mcp.ts) on mutated copies of the contract: what
 * it refuses, with the JSON pointers to fix, and that `--check` fails when the tools are stale.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { loadContractFile } from "../../scripts/load-contract.js";
import { mcpTools } from "../../scripts/generate-mcp.js";
import { operations } from "../../generated/operation-facts.js";

type Json = Record<string, any>;
const ROOT = join(import.meta.dirname, "../..");
const contract = () => loadContractFile(join(ROOT, "openapi/store-admin.yaml")) as Json;
/** The tools of a (changed) document: a copy, since the contract's model is kept per document object. */
const toolsOf = (doc: Json) => mcpTools(structuredClone(doc));

describe("tool names", () => {
  it("refuses two operations that make one tool name, naming both", () => {
    const doc = contract();
    doc.paths["/gift-cards/{id}/"].patch["x-sdk-method"] = "users.retrieve";
    // The contract's model refuses two operations with one method name first, naming both.
    expect(() => toolsOf(doc)).toThrow(/#\/paths\/~1users~1\{id\}~1\/get.*#\/paths\/~1gift-cards~1\{id\}~1\/patch/);
  });

  it("refuses a clash with validate_call", () => {
    const doc = contract();
    doc.paths["/users/{id}/"].get["x-sdk-method"] = "validate.call";
    expect(() => toolsOf(doc)).toThrow(/#\/paths\/~1users~1\{id\}~1\/get: .*validate_call/);
  });

  it("refuses a name over 64 characters or with a character MCP clients refuse", () => {
    const doc = contract();
    doc.paths["/users/{id}/"].get["x-sdk-method"] = `users.${"a".repeat(60)}`;
    expect(() => toolsOf(doc)).toThrow(/#\/paths\/~1users~1\{id\}~1\/get: the tool name "users_a+" .*1 to 64/);
    doc.paths["/users/{id}/"].get["x-sdk-method"] = "users.récupérer";
    expect(() => toolsOf(doc)).toThrow(/#\/paths\/~1users~1\{id\}~1\/get\/x-sdk-method/);
  });

  it("maps every method name of our contract, each once", () => {
    const names = mcpTools(contract()).map((tool) => tool.name);
    expect(new Set(names).size).toBe(Object.keys(operations).length);
    expect(names).toContain("giftCards_update");
    expect(names).toContain("orders_fulfillmentOrders_list");
  });
});

describe("what a tool says", () => {
  it("says the operation's security in OpenAPI's terms", () => {
    const doc = contract();
    doc.paths["/users/{id}/"].get.security = [];
    doc.paths["/stockrecords/{id}/"].get.security = [{ storeAdminToken: [] }];
    doc.paths["/gift-cards/"].get.security = [
      { storeAdminToken: ["gift_cards:read", "users:read"] },
      { storeAdminToken: ["admin"] },
    ];
    const tools = toolsOf(doc);
    expect(tools.find((t) => t.name === "users_retrieve")!.description).toContain("Needs no authentication.");
    expect(tools.find((t) => t.name === "stockRecords_retrieve")!.description).toContain("Needs no scope.");
    const list = tools.find((t) => t.name === "giftCards_list")!;
    expect(list.description).toContain("Needs the scope gift_cards:read and users:read, or admin.");
    expect(list.scopes).toEqual([["gift_cards:read", "users:read"], ["admin"]]);
  });

  it("never asks for a read-only field in a body, and marks only the contract's destructive POSTs", () => {
    const doc = contract();
    const tools = toolsOf(doc);
    let checked = 0;
    for (const tool of tools.filter((t) => t.method !== "GET")) {
      for (const [name, schema] of Object.entries<Json>((tool.inputSchema.$defs as Json | undefined) ?? {})) {
        const declared = doc.components.schemas[name]?.properties ?? {};
        const readOnly = Object.keys(declared).filter(
          (p) =>
            declared[p].readOnly === true ||
            doc.components.schemas[declared[p].$ref?.split("/").pop()]?.readOnly === true,
        );
        for (const property of readOnly)
          expect(Object.keys(schema.properties ?? {}), `${tool.name} ${name}.${property}`).not.toContain(property);
        checked += readOnly.length;
      }
    }
    expect(checked).toBeGreaterThan(0);
    const destructivePosts = tools
      .filter((t) => t.method === "POST" && t.annotations.destructiveHint)
      .map((t) => t.name);
    expect(destructivePosts.sort()).toEqual(["disputes_resolve", "subscriptions_renew"]);
  });
});

describe("npm run generate:check", () => {
  it("fails when the tools are stale", () => {
    const dir = mkdtempSync(join(tmpdir(), "store-admin-mcp-gen-"));
    try {
      const doc = contract();
      doc.paths["/users/{id}/"].get.summary = "Fetch one customer";
      writeFileSync(join(dir, "contract.yaml"), stringify(doc));
      const tsx = join(ROOT, "node_modules/.bin/tsx");
      const stale = spawnSync(tsx, ["scripts/generate-mcp.ts", "--check", "--spec", join(dir, "contract.yaml")], {
        cwd: ROOT,
        encoding: "utf8",
      });
      expect(stale.status).toBe(1);
      expect(stale.stderr).toContain("mcp-tools.ts");
      const fresh = spawnSync(tsx, ["scripts/generate-mcp.ts", "--check"], { cwd: ROOT, encoding: "utf8" });
      expect(fresh.status, fresh.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Two runs of the generator under tsx: seconds each, a minute on a loaded machine.
  }, 120_000);
});
