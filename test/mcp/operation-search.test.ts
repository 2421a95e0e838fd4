/**
 * The operations' search (src/mcp/operation-search.ts), as the MCP server's dynamic mode and
 * its code mode use it: ranked, paged, and able to find an operation from an agent's words.
 *
 * - On a synthetic contract of 1,000 operations (scripts/bench/synthetic-contract.ts), a query
 *   of each operation's summary words finds it in the top 5: every one of the 1,000.
 * - Over our contract and the kitchen sink, the hand-written agent queries of
 *   fixtures/agent-queries.json (each sharing only a noun with its target's summary) find their
 *   target in the top 5 for at least 90% of them; the misses are printed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mcpTools } from "../../scripts/generate-mcp.js";
import { loadContractFile } from "../../scripts/load-contract.js";
import { syntheticContract } from "../../scripts/bench/synthetic-contract.js";
import {
  createOperationSearch,
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  operationDocument,
  SearchArgumentError,
  stem,
  terms,
  type OperationSearch,
  type SearchDocument,
  type SearchOptions,
  type SearchPage,
} from "../../src/mcp/operation-search.js";
import type { McpToolRow } from "../../generated/mcp-tools.js";
import { CONTRACT_PATH, KITCHEN_SINK_PATH } from "../../scripts/facts.js";

const ROOT = new URL("../../", import.meta.url);
const dir = mkdtempSync(join(tmpdir(), "operation-search-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const documentsOf = (file: string) => (mcpTools(loadContractFile(file)) as McpToolRow[]).map(operationDocument);
const OURS = documentsOf(CONTRACT_PATH);
const KITCHEN_SINK = documentsOf(KITCHEN_SINK_PATH);

/** Where `name` ranks for `query` (1 is first), or Infinity. */
function rank(index: OperationSearch<SearchDocument>, query: string, name: string): number {
  const at = index.search(query, { limit: MAX_SEARCH_LIMIT }).results.findIndex((doc) => doc.name === name);
  return at < 0 ? Infinity : at + 1;
}

describe("words as the search folds them", () => {
  it("folds plurals, -ing and -ed forms and a few irregular forms to one word", () => {
    expect(stem("customers")).toBe(stem("customer"));
    expect(stem("addresses")).toBe(stem("address"));
    expect(stem("categories")).toBe(stem("category"));
    expect(stem("created")).toBe(stem("create"));
    expect(stem("creating")).toBe(stem("create"));
    expect(stem("cancelled")).toBe(stem("cancel"));
    expect(stem("bought")).toBe("buy");
    expect(stem("statuses")).toBe(stem("status"));
    expect(terms("giftCards.update")).toEqual(terms("gift cards update"));
    expect(terms("the customer's notes")).toEqual(["customer", stem("notes")]);
  });
});

describe("search(query, { limit, cursor })", () => {
  const index = createOperationSearch(OURS);

  it("ranks the operation a query names first, and hands back the documents given", () => {
    const page = index.search("update gift card");
    expect(page.results[0]!.name).toBe("giftCards.update");
    expect(page.results[0]).toBe(OURS.find((doc) => doc.name === "giftCards.update"));
    expect(page.results[0]).toMatchObject({
      summary: "Update a gift card",
      scopes: [["gift_cards:write"]],
      writes: true,
    });
  });

  it("weighs the summary and the method name above the description", () => {
    // "customer" is in giftCards.update's description only ("the customer it belongs to"), in users.* summaries.
    const names = index.search("customer", { limit: 6 }).results.map((doc) => doc.name);
    expect(names.every((name) => name.startsWith("users."))).toBe(true);
  });

  it("pages: limit caps a page, next_cursor continues it, the pages together are the whole ranking", () => {
    const whole = index.search("customer", { limit: MAX_SEARCH_LIMIT });
    expect(whole.total).toBeGreaterThan(6);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = index.search("customer", { limit: 3, cursor });
      expect(page.results.length).toBeLessThanOrEqual(3);
      expect(page.total).toBe(whole.total);
      seen.push(...page.results.map((doc) => doc.name));
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual(whole.results.map((doc) => doc.name));
  });

  it(`holds ${DEFAULT_SEARCH_LIMIT} results a page unless told`, () => {
    const options: SearchOptions = {};
    const page: SearchPage<SearchDocument> = index.search(
      "a customer, a card, a product, a dispute, an order",
      options,
    );
    expect(page.total).toBeGreaterThan(DEFAULT_SEARCH_LIMIT);
    expect(page.results).toHaveLength(DEFAULT_SEARCH_LIMIT);
    expect(page.next_cursor).toBe(String(DEFAULT_SEARCH_LIMIT));
  });

  it("finds nothing for words that match nothing", () => {
    expect(index.search("zebra xylophone")).toEqual({ results: [], total: 0, next_cursor: null });
  });

  it("refuses an empty query, a bad limit and a cursor it did not hand out, naming the argument", () => {
    expect(() => index.search("  ")).toThrow(SearchArgumentError);
    expect(() => index.search("")).toThrow(/query must be words/);
    expect(() => index.search("x".repeat(501))).toThrow(/query is 501 characters long/);
    expect(() => index.search("card", { limit: 0 })).toThrow(/limit must be a whole number from 1 to 50, got 0/);
    expect(() => index.search("card", { limit: 51 })).toThrow(/limit must be/);
    expect(() => index.search("card", { limit: 2.5 })).toThrow(/limit must be/);
    expect(() => index.search("card", { cursor: "abc" })).toThrow(
      /cursor must be the next_cursor of a previous page of results, got "abc"/,
    );
    expect(() => index.search("card", { cursor: "0" })).toThrow(/cursor must be/);
  });
});

describe("a synthetic contract of 1,000 operations", () => {
  const base = readFileSync(new URL("openapi/store-admin.yaml", ROOT), "utf8");
  const file = join(dir, "synthetic-1000.yaml");
  writeFileSync(file, syntheticContract(1000, base).yaml);
  const documents: SearchDocument[] = documentsOf(file);
  const index = createOperationSearch(documents);

  it("finds every operation in the top 5 by its summary's words", () => {
    expect(documents).toHaveLength(1000);
    const misses = documents.filter((doc) => rank(index, doc.summary, doc.name) > 5);
    if (misses.length > 0)
      console.info(
        `[search] not in the top 5 by their summary: ${misses.map((doc) => `${doc.name} ("${doc.summary}", rank ${rank(index, doc.summary, doc.name)})`).join("; ")}`,
      );
    expect(misses).toEqual([]);
  });
});

describe("queries worded as an agent words them", () => {
  const fixture = JSON.parse(readFileSync(new URL("fixtures/agent-queries.json", import.meta.url), "utf8")) as {
    queries: Array<{ contract: string; query: string; target: string }>;
  };
  const indexes: Record<string, OperationSearch<SearchDocument>> = {
    "store-admin": createOperationSearch(OURS),
    "kitchen-sink": createOperationSearch(KITCHEN_SINK),
  };

  it("the fixture holds at least 40 queries over both contracts, each naming an operation that exists", () => {
    expect(fixture.queries.length).toBeGreaterThanOrEqual(40);
    for (const { contract, target } of fixture.queries)
      expect((contract === "store-admin" ? OURS : KITCHEN_SINK).map((doc) => doc.name)).toContain(target);
    expect(new Set(fixture.queries.map((q) => q.contract))).toEqual(new Set(["store-admin", "kitchen-sink"]));
  });

  it("find their target in the top 5 for at least 90% of them", () => {
    const ranked = fixture.queries.map((q) => ({ ...q, rank: rank(indexes[q.contract]!, q.query, q.target) }));
    const misses = ranked.filter((q) => q.rank > 5);
    const rate = 1 - misses.length / ranked.length;
    console.info(
      `[search] agent queries: ${ranked.length - misses.length} of ${ranked.length} in the top 5 (${(rate * 100).toFixed(1)}%), ${ranked.filter((q) => q.rank === 1).length} first`,
    );
    for (const miss of misses)
      console.info(
        `[search] miss: "${miss.query}" → ${miss.target} ranks ${miss.rank}; the top 5: ${indexes[
          miss.contract
        ]!.search(miss.query, { limit: 5 })
          .results.map((doc) => doc.name)
          .join(", ")}`,
      );
    expect(rate).toBeGreaterThanOrEqual(0.9);
  });
});

describe("synonyms the contract states", () => {
  const doc = (name: string, summary: string, tags: string[]): SearchDocument => ({
    name,
    summary,
    tags,
    scopes: [],
    writes: false,
  });
  // "Clients" is the tag of the `patrons` resource alone: a client is a patron. "Money" groups two resources: no synonym.
  const documents = [
    doc("patrons.list", "List patrons", ["Clients"]),
    doc("patrons.retrieve", "Retrieve a patron", ["Clients"]),
    doc("ledgers.retrieve", "Retrieve a ledger", ["Money"]),
    doc("tills.retrieve", "Retrieve a till", ["Money"]),
    doc("reports.retrieve", "Retrieve a report about clients", []),
  ];
  const index = createOperationSearch(documents);

  it("a tag over one resource only makes its words synonyms of the resource's", () => {
    // A client is a patron: "patron" finds what speaks of clients.
    expect(index.search("patron").results.map((d) => d.name)).toContain("reports.retrieve");
    expect(
      index
        .search("money")
        .results.map((d) => d.name)
        .sort(),
    ).toEqual(["ledgers.retrieve", "tills.retrieve"]);
    // "Money" over ledgers and tills makes neither a synonym of it: "ledger" does not reach the tills through the tag.
    expect(index.search("ledger").results.map((d) => d.name)).toEqual(["ledgers.retrieve"]);
  });
});
