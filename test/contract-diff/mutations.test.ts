/**
 * The contract diff on a table of mutations of our own contract, in both directions.
 *
 * Each row sets up a base (the working contract, with `setup` applied so the row does not
 * depend on the contract's current details) and a head (the base with `change` applied),
 * and says what the diff must find: the release it needs and, per expected change, whether
 * it is breaking and whether the compile probe proves it (`typeBreak`). Every row's probe
 * is compiled in one batch (one TypeScript program), and covers only the operations the
 * row changes, as the suite would be slow otherwise.
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, test } from "vitest";
import { compareContracts, type Change } from "../../scripts/contract-diff/compare.js";
import { parseContract, type Node } from "../../scripts/contract-diff/document.js";
import { adviceFor, type Bump, type Direction, type Kind } from "../../scripts/contract-diff/kinds.js";
import { attribute, runProbes, type ProbeOutcome } from "../../scripts/contract-diff/probe.js";
import { bumpOfChanges } from "../../scripts/contract-diff/compare.js";
import { toJson, toText, toChangelog } from "../../scripts/contract-diff/report.js";
import { nextVersion, uncoveredChanges } from "../../scripts/contract-diff/release.js";
import { CONTRACT_PATH } from "../../scripts/facts.js";

const working = parseContract(readFileSync(CONTRACT_PATH, "utf8"), CONTRACT_PATH);

/** The schema object of a component, for the mutations below. */
const schema = (doc: Node, name: string): Node =>
  (doc.components as { schemas: Record<string, Node> }).schemas[name] as Node;
const prop = (doc: Node, component: string, name: string): Node =>
  (schema(doc, component).properties as Record<string, Node>)[name] as Node;
const pathItem = (doc: Node, path: string): Node => (doc.paths as Record<string, Node>)[path] as Node;
const props = (doc: Node, component: string): Record<string, unknown> =>
  schema(doc, component).properties as Record<string, unknown>;
/** `{ $ref: "#/components/schemas/X" }`, and the same made nullable the OpenAPI 3.1 way. */
const ref = (name: string): Node => ({ $ref: `#/components/schemas/${name}` });
const nullable = (name: string): Node => ({ anyOf: [ref(name), { type: "null" }] });

interface Expected {
  operation: string | null;
  kind: Kind;
  /** Only the change met in the request, or only in the response (when an operation has both). */
  in?: Direction;
  breaking: boolean;
  typeBreak: boolean;
}

interface Mutation {
  name: string;
  setup?: (doc: Node) => void;
  change: (doc: Node) => void;
  bump: Bump;
  /** Changes that must be reported; every kind reported must be one of theirs. */
  expect: Expected[];
  /** How many changes the diff reports in all, when the row says so. */
  count?: number;
  /** No change's advice (as the changelog would give it, for its direction) may match this. */
  adviceNot?: RegExp;
  /** Texts the changelog entry (after 0.2.0) must contain, in the caller's words; and one it must not match. */
  changelog?: string[];
  changelogNot?: RegExp;
  /** Texts the readable report must contain. */
  report?: string[];
}

const MUTATIONS: Mutation[] = [
  {
    name: "request field made required",
    setup: (d) => void delete schema(d, "UserUpdate").required,
    change: (d) => void (schema(d, "UserUpdate").required = ["email"]),
    bump: "major",
    expect: [
      { operation: "PATCH /users/{id}/", kind: "field-made-required", breaking: true, typeBreak: true },
      { operation: "PUT /users/{id}/", kind: "field-made-required", breaking: true, typeBreak: true },
    ],
  },
  {
    // A newly required field: it is code that does NOT send it that breaks.
    name: "request field made required in a PUT body",
    setup: (d) => void (schema(d, "AddressUpdate").required = ["country", "line1", "line4"]),
    change: (d) => void (schema(d, "AddressUpdate").required = ["country", "line1", "line4", "postcode"]),
    bump: "major",
    expect: [
      {
        operation: "PUT /users/{id}/addresses/{addressId}/",
        kind: "field-made-required",
        breaking: true,
        typeBreak: true,
      },
    ],
    changelog: [
      "*What to change:* Send `body.postcode` in every PUT /users/{id}/addresses/{addressId}/ request. Code that does not send it no longer compiles.",
    ],
    changelogNot: /did this before/,
  },
  {
    name: "request field made optional",
    setup: (d) => void (schema(d, "DisputeNoteCreate").required = ["message"]),
    change: (d) => void delete schema(d, "DisputeNoteCreate").required,
    bump: "minor",
    expect: [
      { operation: "POST /disputes/{id}/notes/", kind: "field-made-optional", breaking: false, typeBreak: false },
    ],
  },
  {
    name: "request limit tightened (types still compile)",
    setup: (d) => void (prop(d, "UserUpdate", "first_name").maxLength = 255),
    change: (d) => void (prop(d, "UserUpdate", "first_name").maxLength = 100),
    bump: "major",
    expect: [{ operation: "PATCH /users/{id}/", kind: "limit-tightened", breaking: true, typeBreak: false }],
  },
  {
    name: "request limit loosened",
    setup: (d) => void (prop(d, "UserUpdate", "first_name").maxLength = 255),
    change: (d) => void (prop(d, "UserUpdate", "first_name").maxLength = 500),
    bump: "minor",
    expect: [{ operation: "PATCH /users/{id}/", kind: "limit-loosened", breaking: false, typeBreak: false }],
  },
  {
    // In a response too: code that compares with "lost", has a `case "lost"` or maps every value no longer compiles.
    name: "enum value removed: breaking in the request and in the response",
    setup: (d) => void (schema(d, "DisputeResolution").enum = ["won", "lost", "other", null]),
    change: (d) => void (schema(d, "DisputeResolution").enum = ["won", "other", null]),
    bump: "major",
    expect: [
      {
        operation: "POST /disputes/{id}/resolve/",
        kind: "enum-value-removed",
        in: "request",
        breaking: true,
        typeBreak: true,
      },
      {
        operation: "POST /disputes/{id}/resolve/",
        kind: "enum-value-removed",
        in: "response",
        breaking: true,
        typeBreak: true,
      },
      { operation: "GET /disputes/{id}/", kind: "enum-value-removed", breaking: true, typeBreak: true },
    ],
  },
  {
    // The response enum User.language narrowed (no "fi"): `data.language === "fi"` and an exhaustive map fail to compile.
    name: "response enum narrowed: a proven type break",
    change: (d) =>
      void (schema(d, "Language").enum = (schema(d, "Language").enum as unknown[]).filter((v) => v !== "fi")),
    bump: "major",
    expect: [
      { operation: "GET /users/{id}/", kind: "enum-value-removed", breaking: true, typeBreak: true },
      { operation: "GET /users/", kind: "enum-value-removed", breaking: true, typeBreak: true },
    ],
    report: ['BREAKING enum-value-removed (compile error): `data.language` no longer admits "fi".'],
    // Each operation's own location: the list's `data.results[].language`, a user's `data.language`.
    changelog: [
      "for the release 0.3.0.",
      "Remove the values GET /users/ no longer sends from the comparisons, `switch` cases and maps over `data.results[].language`.",
      "Remove the values GET /users/{id}/, PUT /users/{id}/, PATCH /users/{id}/ no longer sends from the comparisons, `switch` cases and maps over `data.language`.",
      "Code that compares `data.language`, `data.results[].language` with a removed value, has a `case` for one or maps every value no longer compiles.",
    ],
  },
  {
    name: "enum value added: breaking in the response, not in the request",
    setup: (d) => void (schema(d, "DisputeResolution").enum = ["won", "lost", null]),
    change: (d) => void (schema(d, "DisputeResolution").enum = ["won", "lost", "partial", null]),
    bump: "major",
    expect: [
      { operation: "GET /disputes/{id}/", kind: "enum-value-added", breaking: true, typeBreak: true },
      {
        operation: "POST /disputes/{id}/resolve/",
        kind: "enum-value-added",
        in: "request",
        breaking: false,
        typeBreak: false,
      },
      {
        operation: "POST /disputes/{id}/resolve/",
        kind: "enum-value-added",
        in: "response",
        breaking: true,
        typeBreak: true,
      },
    ],
  },
  {
    name: "parameter made required (a shared component: every list)",
    setup: (d) => void delete (d.components as { parameters: Record<string, Node> }).parameters.Cursor?.required,
    change: (d) => void ((d.components as { parameters: Record<string, Node> }).parameters.Cursor!.required = true),
    bump: "major",
    expect: [
      { operation: "GET /users/", kind: "parameter-made-required", breaking: true, typeBreak: true },
      { operation: "GET /gift-cards/", kind: "parameter-made-required", breaking: true, typeBreak: true },
    ],
  },
  {
    name: "optional parameter added",
    change: (d) => {
      const get = pathItem(d, "/gift-cards/").get as { parameters: unknown[] };
      get.parameters.push({ name: "sort", in: "query", required: false, schema: { type: "string" } });
    },
    bump: "minor",
    expect: [{ operation: "GET /gift-cards/", kind: "parameter-added", breaking: false, typeBreak: false }],
    // The query type gains a key: the types are affected, and code still compiles.
    report: ["minor    parameter-added (compiles): An optional query parameter `sort` was added."],
    changelog: [
      "for the release 0.2.1. Release needed: minor. After 0.2.0 that is 0.2.1: while the version is 0.x, npm's caret range `^0.2.0` takes every 0.2.x automatically",
    ],
  },
  {
    name: "operation removed",
    change: (d) => void delete (d.paths as Record<string, unknown>)["/gateways/{id}/"],
    bump: "major",
    expect: [{ operation: "GET /gateways/{id}/", kind: "operation-removed", breaking: true, typeBreak: true }],
  },
  {
    name: "operation added",
    change: (d) => {
      const { parameters: _pathParameters, ...item } = structuredClone(pathItem(d, "/gateways/{id}/"));
      (item.get as Node).operationId = "listGateways";
      (d.paths as Record<string, unknown>)["/gateways/"] = item;
    },
    bump: "minor",
    expect: [{ operation: "GET /gateways/", kind: "operation-added", breaking: false, typeBreak: false }],
  },
  {
    name: "response field removed",
    setup: (d) => void (prop(d, "User", "email").type = "string"),
    change: (d) => void delete (schema(d, "User").properties as Record<string, unknown>).email,
    bump: "major",
    expect: [
      { operation: "GET /users/{id}/", kind: "field-removed", breaking: true, typeBreak: true },
      { operation: "GET /users/", kind: "field-removed", breaking: true, typeBreak: true },
    ],
    // Callers read `data.email`; `response` is the raw Response.
    changelog: [
      "*What to change:* Stop reading `data.results[].email` from GET /users/'s answer: it is no longer there. Stop reading `data.email` from GET /users/{id}/, PUT /users/{id}/, PATCH /users/{id}/'s answer",
      "Code that reads it no longer compiles.",
      "for the release 0.3.0. Release needed: major. After 0.2.0 that is 0.3.0",
    ],
    changelogNot: /`response\./,
  },
  {
    name: "response field added",
    change: (d) =>
      void ((schema(d, "User").properties as Record<string, unknown>).nickname = { type: ["string", "null"] }),
    bump: "minor",
    expect: [{ operation: "GET /users/{id}/", kind: "field-added", breaking: false, typeBreak: false }],
  },
  {
    name: "response type widened (made nullable)",
    setup: (d) => void (prop(d, "User", "email").type = "string"),
    change: (d) => void (prop(d, "User", "email").type = ["string", "null"]),
    bump: "major",
    expect: [{ operation: "GET /users/{id}/", kind: "type-widened", breaking: true, typeBreak: true }],
  },
  {
    name: "response type narrowed (null no longer sent)",
    setup: (d) => void (prop(d, "User", "ip").type = ["string", "null"]),
    change: (d) => void (prop(d, "User", "ip").type = "string"),
    bump: "minor",
    expect: [{ operation: "GET /users/{id}/", kind: "type-narrowed", breaking: false, typeBreak: false }],
  },
  {
    name: "response field made optional",
    setup: (d) => void ((schema(d, "GiftCardPage").allOf as Node[])[1]!.required = ["results"]),
    change: (d) => void delete (schema(d, "GiftCardPage").allOf as Node[])[1]!.required,
    bump: "major",
    expect: [{ operation: "GET /gift-cards/", kind: "field-made-optional", breaking: true, typeBreak: true }],
  },
  {
    // The fields of Location stay compared with the base's: none is reported removed.
    name: "response $ref made nullable (anyOf with null)",
    setup: (d) => void (props(d, "StockRecord").location = ref("Location")),
    change: (d) => void (props(d, "StockRecord").location = nullable("Location")),
    bump: "major",
    expect: [{ operation: "GET /stockrecords/{id}/", kind: "type-widened", breaking: true, typeBreak: true }],
    count: 1,
    adviceNot: /\bsend/i,
  },
  {
    name: "response $ref no longer nullable (anyOf with null removed)",
    setup: (d) => void (props(d, "StockRecord").location = nullable("Location")),
    change: (d) => void (props(d, "StockRecord").location = ref("Location")),
    bump: "minor",
    expect: [{ operation: "GET /stockrecords/{id}/", kind: "type-narrowed", breaking: false, typeBreak: false }],
    count: 1,
  },
  {
    // The compile error on the object is the nullability's doing, not the field's.
    name: "response object made nullable and one of its fields made required",
    setup: (d) => {
      delete schema(d, "Location").required;
      props(d, "StockRecord").location = ref("Location");
    },
    change: (d) => {
      schema(d, "Location").required = ["id"];
      props(d, "StockRecord").location = nullable("Location");
    },
    bump: "major",
    expect: [
      { operation: "GET /stockrecords/{id}/", kind: "type-widened", breaking: true, typeBreak: true },
      { operation: "GET /stockrecords/{id}/", kind: "field-made-required", breaking: false, typeBreak: false },
      {
        operation: "GET /orders/{number}/fulfillment-orders/",
        kind: "field-made-required",
        breaking: false,
        typeBreak: false,
      },
    ],
    adviceNot: /\bsend/i,
  },
  {
    name: "response field made required",
    setup: (d) => void delete schema(d, "Location").required,
    change: (d) => void (schema(d, "Location").required = ["id"]),
    bump: "minor",
    expect: [
      { operation: "GET /stockrecords/{id}/", kind: "field-made-required", breaking: false, typeBreak: false },
      {
        operation: "GET /orders/{number}/fulfillment-orders/",
        kind: "field-made-required",
        breaking: false,
        typeBreak: false,
      },
    ],
    adviceNot: /\bsend/i,
  },
  {
    name: "request $ref made nullable (anyOf with null)",
    setup: (d) => {
      (d.components as { schemas: Record<string, unknown> }).schemas.GiftCardNote = {
        type: "object",
        required: ["message"],
        properties: { message: { type: "string" } },
      };
      props(d, "GiftCardUpdate").note = ref("GiftCardNote");
    },
    change: (d) => void (props(d, "GiftCardUpdate").note = nullable("GiftCardNote")),
    bump: "minor",
    expect: [{ operation: "PATCH /gift-cards/{id}/", kind: "type-widened", breaking: false, typeBreak: false }],
    count: 1,
  },
  {
    name: "request type narrowed (null no longer accepted)",
    setup: (d) => void (prop(d, "GiftCardUpdate", "expired_at").type = ["string", "null"]),
    change: (d) => void (prop(d, "GiftCardUpdate", "expired_at").type = "string"),
    bump: "major",
    expect: [{ operation: "PATCH /gift-cards/{id}/", kind: "type-narrowed", breaking: true, typeBreak: true }],
  },
  {
    name: "request type widened",
    setup: (d) => void (prop(d, "UserUpdate", "first_name").type = "string"),
    change: (d) => void (prop(d, "UserUpdate", "first_name").type = ["string", "null"]),
    bump: "minor",
    expect: [{ operation: "PATCH /users/{id}/", kind: "type-widened", breaking: false, typeBreak: false }],
  },
  {
    name: "optional request field added",
    change: (d) => void ((schema(d, "UserUpdate").properties as Record<string, unknown>).nickname = { type: "string" }),
    bump: "minor",
    expect: [{ operation: "PATCH /users/{id}/", kind: "field-added", breaking: false, typeBreak: false }],
  },
  {
    name: "request field removed from a closed body",
    setup: (d) => void (schema(d, "UserUpdate").additionalProperties = false),
    change: (d) => void delete (schema(d, "UserUpdate").properties as Record<string, unknown>).user_agent,
    bump: "major",
    expect: [{ operation: "PATCH /users/{id}/", kind: "field-removed", breaking: true, typeBreak: true }],
  },
  {
    name: "description and example changed",
    change: (d) => {
      schema(d, "Dispute").description = "A payment dispute, reworded.";
      (pathItem(d, "/disputes/{id}/").get as Node).summary = "Read a dispute";
    },
    bump: "patch",
    expect: [{ operation: "GET /disputes/{id}/", kind: "docs-changed", breaking: false, typeBreak: false }],
  },
  {
    name: "operation method renamed (x-sdk-method)",
    change: (d) => void ((pathItem(d, "/disputes/{id}/").get as Node)["x-sdk-method"] = "disputes.get"),
    bump: "major",
    expect: [{ operation: "GET /disputes/{id}/", kind: "method-renamed", breaking: true, typeBreak: false }],
    count: 1,
  },
  {
    // The URL gives the name the annotation stated: callers see nothing.
    name: "x-sdk-method removed where the URL gives the same name",
    change: (d) => void delete (pathItem(d, "/gateways/{id}/").get as Node)["x-sdk-method"],
    bump: "none",
    expect: [],
  },
  {
    name: "x-sdk-method removed where the URL gives another name: a rename",
    setup: (d) => void ((pathItem(d, "/gateways/{id}/").get as Node)["x-sdk-method"] = "gateways.fetch"),
    change: (d) => void delete (pathItem(d, "/gateways/{id}/").get as Node)["x-sdk-method"],
    bump: "major",
    expect: [{ operation: "GET /gateways/{id}/", kind: "method-renamed", breaking: true, typeBreak: false }],
    report: [
      "The method `store.gateways.fetch()` of GET /gateways/{id}/ is now `store.gateways.retrieve()` (derived from its URL: set `x-sdk-method: gateways.fetch` to keep the old name).",
    ],
    count: 1,
  },
  {
    name: "x-sdk-method added that states the name the URL gives",
    setup: (d) => void delete (pathItem(d, "/gateways/{id}/").get as Node)["x-sdk-method"],
    change: (d) => void ((pathItem(d, "/gateways/{id}/").get as Node)["x-sdk-method"] = "gateways.retrieve"),
    bump: "none",
    expect: [],
  },
  {
    // No annotation: a new path below /settings/ makes it a collection, whose GET is `list`, not `retrieve`.
    name: "a derived name moved by another operation's path",
    setup: (d) => {
      const json = (description: string) => ({
        description,
        content: { "application/json": { schema: { type: "object" } } },
      });
      (d.paths as Record<string, unknown>)["/settings/"] = {
        get: {
          operationId: "getSettings",
          parameters: [{ $ref: "#/components/parameters/ApiVersion" }],
          responses: { "200": json("The settings.") },
        },
      };
    },
    change: (d) => {
      const json = (description: string) => ({
        description,
        content: { "application/json": { schema: { type: "object" } } },
      });
      (d.paths as Record<string, unknown>)["/settings/{key}/"] = {
        get: {
          operationId: "getSetting",
          parameters: [
            { $ref: "#/components/parameters/ApiVersion" },
            { name: "key", in: "path", required: true, schema: { type: "string" } },
          ],
          responses: { "200": json("One setting.") },
        },
      };
    },
    bump: "major",
    expect: [
      { operation: "GET /settings/", kind: "method-renamed", breaking: true, typeBreak: false },
      { operation: "GET /settings/{key}/", kind: "operation-added", breaking: false, typeBreak: false },
    ],
    report: [
      "The method `store.settings.retrieve()` of GET /settings/ is now `store.settings.list()` (derived from its URL: set `x-sdk-method: settings.retrieve` to keep the old name).",
    ],
  },
  {
    name: "component used by no operation added",
    change: (d) => void ((d.components as { schemas: Record<string, unknown> }).schemas.Unused = { type: "object" }),
    bump: "patch",
    expect: [{ operation: null, kind: "component-added", breaking: false, typeBreak: false }],
  },
  {
    name: "no change: the probe compiles against the base's own types",
    change: () => undefined,
    bump: "none",
    expect: [],
  },
];

const rows = MUTATIONS.map((m) => {
  const base = structuredClone(working);
  m.setup?.(base);
  const head = structuredClone(base);
  m.change(head);
  return { ...m, base, head };
});

let outcomes: Map<string, ProbeOutcome>;

beforeAll(async () => {
  // Each row's probe covers the operations its structural diff names (the CLI probes them
  // all); the "no change" row compiles the whole probe, against the contract's own types.
  outcomes = await runProbes(
    rows.map((r) => {
      const touched = new Set(
        compareContracts(r.base, r.head).flatMap((c) => (c.operation === null ? [] : [c.operation])),
      );
      return { id: r.name, base: r.base, head: r.head, operations: r.expect.length === 0 ? undefined : touched };
    }),
  );
}, 600_000);

describe("contract diff of a mutated contract", () => {
  test("the table covers every kind the issue names, in both directions", () => {
    expect(MUTATIONS.length).toBeGreaterThanOrEqual(15);
    const bumps = new Set(MUTATIONS.map((m) => m.bump));
    expect([...bumps].sort()).toEqual(["major", "minor", "none", "patch"]);
  });

  test.each(rows)("$name", (row) => {
    const outcome = outcomes.get(row.name);
    expect(outcome).toBeDefined();
    // The probe compiles against the base's own types wherever it failed against the head.
    expect(outcome!.selfErrors).toEqual([]);
    const changes: Change[] = attribute(compareContracts(row.base, row.head), outcome!.errors);
    expect(bumpOfChanges(changes)).toBe(row.bump);
    for (const want of row.expect) {
      const found = changes.filter(
        (c) =>
          c.operation === want.operation && c.kind === want.kind && (want.in === undefined || c.direction === want.in),
      );
      expect(
        found,
        `${want.operation} ${want.kind} in ${JSON.stringify(changes.map((c) => [c.operation, c.kind]))}`,
      ).not.toEqual([]);
      for (const c of found)
        expect({ breaking: c.breaking, typeBreak: c.typeBreak }).toEqual({
          breaking: want.breaking,
          typeBreak: want.typeBreak,
        });
    }
    // Nothing else: every reported kind is an expected one, and no compile error is left unexplained.
    expect([...new Set(changes.map((c) => c.kind))].sort()).toEqual([...new Set(row.expect.map((e) => e.kind))].sort());
    if (row.count !== undefined) expect(changes.map((c) => `${c.kind}: ${c.message}`)).toHaveLength(row.count);
    // The advice matches where the change sits: what to send for a request, what to read for a response.
    if (row.adviceNot !== undefined)
      for (const c of changes) expect(adviceFor(c.kind, c.direction)).not.toMatch(row.adviceNot);
    if (row.expect.every((e) => !e.typeBreak)) expect(outcome!.errors).toEqual([]);

    // The report: JSON with exactly the documented fields, the text grouped by operation, the changelog.
    const result = { bump: bumpOfChanges(changes), changes, errors: outcome!.errors, selfErrors: [] };
    const json = toJson(result);
    expect(json.bump).toBe(row.bump);
    for (const c of json.changes)
      expect(Object.keys(c).sort()).toEqual(["breaking", "kind", "location", "message", "operation", "typeBreak"]);
    for (const c of json.changes) expect(c.location === "" ? c.kind : c.location).toMatch(/^#\/|^type-break/);
    const text = toText(result, { base: "base", head: "head", released: "0.2.0" });
    expect(text).toContain(`Release needed: ${row.bump}.`);
    for (const wanted of row.report ?? []) expect(text).toContain(wanted);
    for (const want of row.expect) expect(text).toContain(want.operation ?? "(no operation");
    // The version named is the one the stated rule gives after 0.2.0; no dated heading, which only a release writes.
    const entry = toChangelog(result, nextVersion("0.2.0", row.bump), "base", "0.2.0");
    expect(
      entry.startsWith(
        `Contract changes since base, for the release ${nextVersion("0.2.0", row.bump)}. Release needed: ${row.bump}.`,
      ),
    ).toBe(true);
    expect(entry).not.toMatch(/^## /m);
    for (const wanted of row.changelog ?? []) expect(entry, entry).toContain(wanted);
    if (row.changelogNot !== undefined) expect(entry).not.toMatch(row.changelogNot);
    if (row.expect.some((e) => e.breaking)) {
      expect(entry).toMatch(/### Breaking changes\n\n- \*\*/);
      expect(entry).toContain("*What to change:*");
      // The draft, put under [Unreleased], covers every break it reports: what release:check asks for.
      expect(uncoveredChanges(entry, changes)).toEqual([]);
    } else {
      expect(entry).not.toContain("### Breaking changes");
    }
  });
});
