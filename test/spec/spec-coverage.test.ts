/**
 * Spec coverage: `openapi/store-admin.yaml` checked against the tables of
 * `spec/store-admin-api.md` (the one source of truth about the API).
 *
 * The tables are transcribed in `spec-tables.ts`, the checks are in `spec-checks.ts`; each
 * check returns the problems it finds. The tests assert `[]` on the real contract, and the
 * self-checks at the end show that the same checks do report a deliberately damaged copy.
 */
import { describe, expect, it } from "vitest";
import { isNode, loadOpenApiDoc, type Node, type OpenApiDoc, type Operation } from "./openapi-doc.js";
import {
  scopeOf,
  label,
  findOperation,
  operationSetProblems,
  operationProblems,
  securitySchemeProblems,
  pathParamProblems,
  queryParam,
  queryParamProblems,
  queryParamSetProblems,
  limitProblems,
  requiredProblems,
  bodyFieldProblems,
  multipartFilesProblems,
  enumRowProblems,
  versionHeaderProblems,
  responseSchemas,
  envelopeProblems,
  closedObjectProblems,
  valuesSeenProblems,
  exampleProblems,
} from "./spec-checks.js";
import {
  OPERATIONS,
  SCOPE_TABLE,
  DISPUTE_RESOLUTIONS,
  QUERY_PARAMS,
  LIST_OPERATIONS,
  LIMITS,
  BODIES,
  ENUMS,
  ENVELOPES,
  VALUES_SEEN,
  VERSION_HEADER,
  API_VERSION,
  SECURITY_SCHEME,
} from "./spec-tables.js";

const doc = (): OpenApiDoc => loadOpenApiDoc();

describe("spec coverage of openapi/store-admin.yaml", () => {
  describe("1. operations (spec parts 4 and 5)", () => {
    it("has exactly the 20 method + path pairs of spec part 4", () => {
      expect(OPERATIONS).toHaveLength(20);
      expect(operationSetProblems(doc())).toEqual([]);
    });

    it("scope table of spec part 5 names each operation exactly once", () => {
      for (const row of OPERATIONS) expect(scopeOf(row), `${row.method} ${row.path}`).toHaveLength(1);
      expect(SCOPE_TABLE.flatMap(([, usedBy]) => usedBy)).toHaveLength(20);
    });

    it(`security scheme ${SECURITY_SCHEME} is http bearer`, () => {
      expect(securitySchemeProblems(doc())).toEqual([]);
    });

    it.each(OPERATIONS)("$method $path: operationId $operationId, summary, description, one tag, its scope", (row) => {
      expect(operationProblems(doc(), row.operationId)).toEqual([]);
    });
  });

  describe("2. path parameters (spec part 4)", () => {
    it.each(OPERATIONS)("$operationId ($method $path)", (row) => {
      expect(pathParamProblems(doc(), row.operationId)).toEqual([]);
    });
  });

  describe("3. list query parameters (spec 4.1, 4.2)", () => {
    it.each(LIST_OPERATIONS)("%s has exactly the spec's query parameters", (operationId) => {
      expect(queryParamSetProblems(doc(), operationId)).toEqual([]);
    });

    it.each(QUERY_PARAMS)("$operationId ?$name: $type $format", (row) => {
      expect(queryParamProblems(doc(), row)).toEqual([]);
    });
  });

  describe("4. limits of spec part 8 on request bodies", () => {
    it.each(LIMITS)("$operationId body .$field", (row) => {
      expect(limitProblems(doc(), row)).toEqual([]);
    });
  });

  describe("5. request bodies: fields and required (spec part 4)", () => {
    it.each(BODIES)("$operationId body requires exactly $required", (row) => {
      expect(requiredProblems(doc(), row)).toEqual([]);
    });

    it.each(BODIES)("$operationId body declares the spec's fields", (row) => {
      expect(bodyFieldProblems(doc(), row)).toEqual([]);
    });

    it("createTicketAttachment multipart files are format: binary", () => {
      expect(multipartFilesProblems(doc())).toEqual([]);
    });

    it("renewSubscription has no request body (spec 4.6)", () => {
      const found = findOperation(doc(), "renewSubscription");
      expect(typeof found === "string" ? found : found.op.requestBody, label("renewSubscription")).toBeUndefined();
    });
  });

  describe("6. enumerations (spec 2.1, 2.6, 2.10, 4.2)", () => {
    it.each(ENUMS)("$label", (row) => {
      expect(enumRowProblems(doc(), row)).toEqual([]);
    });
  });

  describe("7. version header and pagination (spec parts 4 and 9)", () => {
    it.each(OPERATIONS)(`$operationId requires ${VERSION_HEADER}: ${API_VERSION} only`, (row) => {
      expect(versionHeaderProblems(doc(), row.operationId)).toEqual([]);
    });

    it.each(ENVELOPES)("$operationId returns {next, previous, results: [$item]}", (row) => {
      expect(envelopeProblems(doc(), row.operationId, row.item)).toEqual([]);
    });
  });

  describe("8. tolerant responses (DESIGN principles, spec 2.16)", () => {
    it.each(OPERATIONS)("$operationId: no additionalProperties: false in its 2xx response schemas", (row) => {
      expect(closedObjectProblems(doc(), row.operationId)).toEqual([]);
    });

    it.each(VALUES_SEEN)("$label is a string, not an enum or const", (row) => {
      expect(valuesSeenProblems(doc(), row)).toEqual([]);
    });

    it.each(OPERATIONS)("$operationId: every 2xx response has an example", (row) => {
      expect(exampleProblems(doc(), row.operationId)).toEqual([]);
    });
  });
});

// Self-checks: the same checks report a damaged copy of the contract.

function requireOperation(d: OpenApiDoc, operationId: string): Operation {
  const found = findOperation(d, operationId);
  if (typeof found === "string") throw new Error(found);
  return found;
}

function requireRow<T>(rows: readonly T[], match: (row: T) => boolean): T {
  const row = rows.find(match);
  if (row === undefined) throw new Error("no such fixture row");
  return row;
}

function propertyContainersOfBody(d: OpenApiDoc, operationId: string, field: string): Node[] {
  return d.propertyContainers(d.requestBodySchema(requireOperation(d, operationId)), field);
}

function setProperty(containers: readonly Node[], field: string, schema: Node): void {
  for (const container of containers) (container.properties as Node)[field] = schema;
}

interface Mutation {
  name: string;
  mutate: (d: OpenApiDoc) => void;
  check: (d: OpenApiDoc) => string[];
  /** A word the new problem must mention. */
  mentions: string;
}

const postcodeRow = requireRow(LIMITS, (r) => r.operationId === "updateUserAddress" && r.field === "postcode");

const MUTATIONS: readonly Mutation[] = [
  {
    name: "delete maxLength of the address postcode",
    mutate: (d) => {
      for (const container of propertyContainersOfBody(d, "updateUserAddress", "postcode")) {
        for (const node of d.subschemaNodes((container.properties as Node).postcode)) delete node.maxLength;
      }
    },
    check: (d) => limitProblems(d, postcodeRow),
    mentions: "postcode",
  },
  {
    name: "remove the version header from getGateway",
    mutate: (d) => {
      const { pathItem, op } = requireOperation(d, "getGateway");
      for (const owner of [pathItem, op]) {
        if (Array.isArray(owner.parameters))
          owner.parameters = owner.parameters.filter((p) => d.resolveNode(p).in !== "header");
      }
    },
    check: (d) => versionHeaderProblems(d, "getGateway"),
    mentions: "getGateway",
  },
  {
    name: "drop PATCH /users/{id}/",
    mutate: (d) => {
      delete requireOperation(d, "updateUser").pathItem.patch;
    },
    check: operationSetProblems,
    mentions: "PATCH /users/{id}/",
  },
  {
    name: "give resolveDispute the read scope",
    mutate: (d) => {
      requireOperation(d, "resolveDispute").op.security = [{ [SECURITY_SCHEME]: ["disputes:read"] }];
    },
    check: (d) => operationProblems(d, "resolveDispute"),
    mentions: "resolveDispute",
  },
  {
    name: "turn the security scheme into an API key",
    mutate: (d) => {
      const components = d.raw.components as Node;
      (components.securitySchemes as Node)[SECURITY_SCHEME] = { type: "apiKey", in: "header", name: "X-Token" };
    },
    check: securitySchemeProblems,
    mentions: SECURITY_SCHEME,
  },
  {
    name: "add a page_size query parameter to listUsers",
    mutate: (d) => {
      const { op } = requireOperation(d, "listUsers");
      op.parameters = [
        ...(Array.isArray(op.parameters) ? op.parameters : []),
        { name: "page_size", in: "query", schema: { type: "integer" } },
      ];
    },
    check: (d) => queryParamSetProblems(d, "listUsers"),
    mentions: "page_size",
  },
  {
    name: "drop format: binary from the attachment files",
    mutate: (d) => {
      const body = d.requestBodySchema(requireOperation(d, "createTicketAttachment"), "multipart/form-data");
      for (const container of d.propertyContainers(body, "files")) {
        const files = (container.properties as Node).files;
        for (const node of d.subschemaNodes(files)) {
          delete node.format;
          if (isNode(node.items)) for (const item of d.subschemaNodes(node.items)) delete item.format;
        }
      }
    },
    check: multipartFilesProblems,
    mentions: "files",
  },
  {
    name: "type path parameter lineId as a string",
    mutate: (d) => {
      const operation = requireOperation(d, "updateOrderLine");
      for (const p of d.effectiveParameters(operation)) {
        if (p.name === "lineId") p.schema = { type: "string" };
      }
    },
    check: (d) => pathParamProblems(d, "updateOrderLine"),
    mentions: "lineId",
  },
  {
    name: "drop the format of date_joined_from",
    mutate: (d) => {
      const param = queryParam(d, requireOperation(d, "listUsers"), "date_joined_from");
      if (param !== undefined) param.schema = { type: "string" };
    },
    check: (d) =>
      queryParamProblems(
        d,
        requireRow(QUERY_PARAMS, (r) => r.name === "date_joined_from"),
      ),
    mentions: "date_joined_from",
  },
  {
    name: "stop requiring the product title",
    mutate: (d) => {
      for (const node of d.subschemaNodes(d.requestBodySchema(requireOperation(d, "createProduct")))) {
        if (Array.isArray(node.required)) node.required = node.required.filter((f) => f !== "title");
      }
    },
    check: (d) =>
      requiredProblems(
        d,
        requireRow(BODIES, (r) => r.operationId === "createProduct"),
      ),
    mentions: "title",
  },
  {
    name: "drop the address body field notes",
    mutate: (d) => {
      for (const container of propertyContainersOfBody(d, "updateUserAddress", "notes"))
        delete (container.properties as Node).notes;
    },
    check: (d) =>
      bodyFieldProblems(
        d,
        requireRow(BODIES, (r) => r.operationId === "updateUserAddress"),
      ),
    mentions: "notes",
  },
  {
    name: 'drop "" and null from the dispute resolution',
    mutate: (d) => {
      setProperty(propertyContainersOfBody(d, "resolveDispute", "resolution"), "resolution", {
        type: "string",
        enum: [...DISPUTE_RESOLUTIONS],
      });
    },
    check: (d) =>
      enumRowProblems(
        d,
        requireRow(ENUMS, (r) => r.field === "resolution"),
      ),
    mentions: "resolution",
  },
  {
    name: "point listUsers results at Note",
    mutate: (d) => {
      const [schema] = responseSchemas(d, requireOperation(d, "listUsers"));
      setProperty(d.propertyContainers(schema?.schema, "results"), "results", {
        type: "array",
        items: { $ref: "#/components/schemas/Note" },
      });
    },
    check: (d) => envelopeProblems(d, "listUsers", "User"),
    mentions: "User",
  },
  {
    name: "close the User response schema",
    mutate: (d) => {
      const [schema] = responseSchemas(d, requireOperation(d, "getUser"));
      d.resolveNode(schema?.schema).additionalProperties = false;
    },
    check: (d) => closedObjectProblems(d, "getUser"),
    mentions: "getUser",
  },
  {
    name: "make Dispute.status an enum",
    mutate: (d) => {
      const [schema] = responseSchemas(d, requireOperation(d, "getDispute"));
      setProperty(d.propertyContainers(schema?.schema, "status"), "status", { type: "string", enum: ["new"] });
    },
    check: (d) =>
      valuesSeenProblems(
        d,
        requireRow(VALUES_SEEN, (r) => r.label === "Dispute.status"),
      ),
    mentions: "Dispute.status",
  },
  {
    name: "delete the examples of getGateway",
    mutate: (d) => {
      for (const { response } of d.successResponses(requireOperation(d, "getGateway"))) {
        for (const media of Object.values(isNode(response.content) ? response.content : {})) {
          if (isNode(media)) {
            delete media.example;
            delete media.examples;
          }
        }
      }
    },
    check: (d) => exampleProblems(d, "getGateway"),
    mentions: "getGateway",
  },
];

describe("self-check: each check reports a damaged copy", () => {
  it.each(MUTATIONS)("$name", ({ mutate, check, mentions }) => {
    const copy = doc().clone();
    const before = check(copy);
    mutate(copy);
    const introduced = check(copy).filter((p) => !before.includes(p));
    expect(introduced.length, "the damage went unreported").toBeGreaterThan(0);
    expect(introduced.join("\n")).toContain(mentions);
    // the real contract is untouched
    expect(check(doc())).toEqual(before);
  });
});
