/**
 * What the pipeline refuses, on mutated copies of the kitchen-sink contract: each refusal is a
 * sentence naming a JSON pointer, from `loadContract` (and so from every tool that reads the
 * contract through it) before any tool follows anything; no generator crashes.
 *
 * References outside the document, under every keyword that carries one, point at a loopback
 * server of this test: it must receive no request, from the lint step, the generators or the
 * reference build.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { referenceCopy } from "../../scripts/docs.js";
import { loadContract } from "../../scripts/load-contract.js";
import { ROOT, run } from "../package/tarball.js";
import { KITCHEN_SINK_PATH } from "../../scripts/facts.js";

type Node = Record<string, any>;

const CONTRACT = KITCHEN_SINK_PATH;
const TSX = join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");

let source: string;
let scratch: string;
let server: Server;
let origin: string;
let received = 0;

beforeAll(async () => {
  source = await readFile(CONTRACT, "utf8");
  scratch = await mkdtemp(join(tmpdir(), "store-admin-refusals-"));
  server = createServer((request, response) => {
    received++;
    response.setHeader("content-type", "application/yaml");
    response.end("type: object\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The kitchen sink, parsed, changed by `mutate`. */
const mutated = (mutate: (doc: Node) => void): Node => {
  const doc = parse(source) as Node;
  mutate(doc);
  return doc;
};
const loading = (doc: Node) => () => loadContract(stringify(doc, { aliasDuplicateObjects: false }), "mutated.yaml");

/** Each keyword that can name another document, written where the contract could hold it. */
const remote: Array<[string, string, (doc: Node, url: string) => void]> = [
  [
    "$ref",
    "#/components/schemas/Remote/$ref",
    (d, url) => (d.components.schemas.Remote = { $ref: `${url}/evil.yaml#/Widget` }),
  ],
  [
    "$ref (a file)",
    "#/components/schemas/Remote/$ref",
    (d) => (d.components.schemas.Remote = { $ref: "./secrets.yaml" }),
  ],
  [
    "$dynamicRef",
    "#/components/schemas/Remote/$dynamicRef",
    (d, url) => (d.components.schemas.Remote = { $dynamicRef: `${url}/evil.yaml#meta` }),
  ],
  [
    "discriminator.mapping",
    "#/components/schemas/Remote/discriminator/mapping/evil",
    (d, url) => {
      d.components.schemas.Remote = {
        oneOf: [{ $ref: "#/components/schemas/Widget" }],
        discriminator: { propertyName: "name", mapping: { evil: `${url}/evil.yaml` } },
      };
    },
  ],
  [
    "discriminator.mapping (a file)",
    "#/components/schemas/Remote/discriminator/mapping/evil",
    (d) => {
      d.components.schemas.Remote = {
        oneOf: [{ $ref: "#/components/schemas/Widget" }],
        discriminator: { propertyName: "name", mapping: { evil: "pet.yaml" } },
      };
    },
  ],
  [
    "externalValue",
    "#/paths/~1status~1/get/responses/200/content/application~1json/examples/remote/externalValue",
    (d, url) => {
      d.paths["/status/"].get.responses["200"].content["application/json"].examples = {
        remote: { externalValue: `${url}/example.json` },
      };
    },
  ],
  [
    "operationRef",
    "#/paths/~1status~1/get/responses/200/links/next/operationRef",
    (d, url) => {
      d.paths["/status/"].get.responses["200"].links = { next: { operationRef: `${url}/evil.yaml#/paths/~1x/get` } };
    },
  ],
  [
    "$ref (in a link)",
    "#/components/links/Next/$ref",
    (d, url) => (d.components.links = { Next: { $ref: `${url}/links.yaml#/Next` } }),
  ],
  ["$id", "#/components/schemas/Widget/$id", (d, url) => (d.components.schemas.Widget.$id = `${url}/widget.json`)],
  [
    "$schema",
    "#/components/schemas/Widget/$schema",
    (d, url) => (d.components.schemas.Widget.$schema = `${url}/dialect.json`),
  ],
  ["jsonSchemaDialect", "#/jsonSchemaDialect", (d, url) => (d.jsonSchemaDialect = `${url}/dialect.json`)],
];

describe("references outside the document", () => {
  for (const [keyword, at, mutate] of remote) {
    it(`refuses ${keyword}, naming where it is written`, () => {
      const doc = mutated((d) => mutate(d, origin));
      expect(loading(doc)).toThrow(
        new RegExp(
          `refers outside itself.*${keyword.split(" ")[0]!.replace(/[$.]/g, "\\$&")}: .* at ${at.replace(/[$.~]/g, "\\$&")}`,
        ),
      );
    });
  }

  it("accepts a mapping value that is a bare schema name or a local reference", () => {
    const doc = mutated((d) => {
      d.components.schemas.Either = {
        oneOf: [{ $ref: "#/components/schemas/Widget" }, { $ref: "#/components/schemas/Upload" }],
        discriminator: { propertyName: "name", mapping: { widget: "Widget", upload: "#/components/schemas/Upload" } },
      };
    });
    expect(loading(doc)).not.toThrow();
  });

  it("no tool of the pipeline sends a request to, or reads, what they name", async () => {
    const file = join(scratch, "remote.yaml");
    const doc = mutated((d) => {
      for (const [, , mutate] of remote) mutate(d, origin);
      // All of them at once: one schema cannot hold them all, so the schema ones each get their own.
      d.components.schemas.Remote2 = { $ref: `${origin}/second.yaml` };
    });
    await writeFile(file, stringify(doc, { aliasDuplicateObjects: false }));
    const out = join(scratch, "out");
    const tools: Array<[string, string[]]> = [
      ["the lint step (npm run lint:openapi runs it before Redocly)", ["scripts/load-contract.ts", file]],
      ["generate", ["scripts/generate.ts", "--spec", file, "--out", out]],
      ["generate-testing", ["scripts/generate-testing.ts", "--spec", file, "--out", out]],
    ];
    for (const [what, args] of tools) {
      const result = await run(process.execPath, [TSX, ...args], { cwd: ROOT });
      expect(result.code, what).toBe(1);
      expect(result.stderr, what).toContain("refers outside itself");
      expect(result.stderr, what).not.toMatch(/^\s+at /m);
    }
    await expect(referenceCopy(file)).rejects.toThrow("refers outside itself");
    expect(received).toBe(0);
    // The server does count: this request is the only one it gets.
    await fetch(`${origin}/evil.yaml`).then((response) => response.text());
    expect(received).toBe(1);
  }, 60_000);
});

describe("what the generators cannot serve", () => {
  const refusals: Array<[string, (doc: Node) => void, string]> = [
    [
      "two schema names that map to one type name",
      (d) => (d.components.schemas["line item"] = { type: "string" }),
      '"#/components/schemas/line-item" and "#/components/schemas/line item" both map to the type name LineItem',
    ],
    [
      "a schema named as another schema's request view",
      (d) => (d.components.schemas.WidgetInput = { type: "string" }),
      '"#/components/schemas/Widget" is used in requests and responses, so store-admin-sdk/schemas exports its request view as WidgetInput, the type name of "#/components/schemas/WidgetInput"; rename one of them.',
    ],
    [
      "a schema name the generated code uses",
      (d) => (d.components.schemas.Promise = { type: "string" }),
      '"#/components/schemas/Promise": the schema name "Promise" is one the generated code uses itself',
    ],
    [
      "a request media type the client cannot send",
      (d) =>
        (d.paths["/uploads/"].post.requestBody.content = {
          "application/octet-stream": { schema: { type: "string", format: "binary" } },
        }),
      '#/paths/~1uploads~1/post/requestBody/content: the request body is offered as "application/octet-stream"',
    ],
    [
      "a reference to nothing",
      (d) => (d.paths["/uploads/"].post.requestBody = { $ref: "#/components/requestBodies/Gone" }),
      '#/paths/~1uploads~1/post/requestBody/$ref: "#/components/requestBodies/Gone" refers to nothing in the document.',
    ],
    [
      "an operation without a success response",
      (d) => delete d.paths["/status/"].get.responses["200"],
      "#/paths/~1status~1/get/responses: declares no 2xx response.",
    ],
    [
      "a success response that is not JSON",
      (d) => (d.paths["/status/"].get.responses["200"].content = { "text/csv": { schema: { type: "string" } } }),
      "#/paths/~1status~1/get/responses/200/content: the client reads only application/json responses",
    ],
    [
      "a malformed x-sdk-method",
      (d) => (d.paths["/status/"].get["x-sdk-method"] = "Status"),
      '#/paths/~1status~1/get/x-sdk-method: must name the method as resource.verb (e.g. "users.retrieve"), got "Status".',
    ],
    [
      "two operations with one method name",
      (d) => (d.paths["/status/"].get["x-sdk-method"] = "products.retrieve"),
      "#/paths/~1products~1{sku}~1/get and #/paths/~1status~1/get both have the method name products.retrieve",
    ],
    [
      "two operationIds that are one identifier",
      (d) => (d.paths["/uploads/"].post.operationId = "getStatus"),
      '#/paths/~1uploads~1/post and #/paths/~1status~1/get both have the operationId "getStatus" (as written, or derived); change one.',
    ],
    [
      "security that is not a list",
      (d) => (d.paths["/status/"].get.security = { token: [] }),
      "#/paths/~1status~1/get/security: security must be a list of requirements.",
    ],
    [
      "an undeclared path parameter",
      (d) => void d.paths["/products/{sku}/"].get.parameters.pop(),
      "#/paths/~1products~1{sku}~1/get: the path parameter {sku} is not declared in its parameters.",
    ],
    [
      "a header name that is not an HTTP token",
      (d) =>
        d.paths["/uploads/"].post.parameters.push({ name: "X-Trace Id", in: "header", schema: { type: "string" } }),
      '#/paths/~1uploads~1/post/parameters/1/name: the header name "X-Trace Id" is not an HTTP token',
    ],
    [
      "an operationId naming a path",
      (d) => (d.paths["/uploads/"].post.operationId = "../secrets"),
      '#/paths/~1uploads~1/post/operationId: the operationId "../secrets" holds a path separator, "..", a control character or a line break',
    ],
    [
      "two path parameters of one operation with one argument name",
      (d) => {
        d.paths["/products/{sku}/{sku-}/"] = d.paths["/products/{sku}/"];
        delete d.paths["/products/{sku}/"];
        d.paths["/products/{sku}/{sku-}/"].get.parameters.push({
          name: "sku-",
          in: "path",
          required: true,
          schema: { type: "string" },
        });
      },
      '#/paths/~1products~1{sku}~1{sku-}~1/get: the path parameters "sku" and "sku-" both map to the argument name sku',
    ],
  ];
  for (const [what, mutate, message] of refusals) {
    it(`refuses ${what}, naming it`, () => {
      expect(loading(mutated(mutate))).toThrow(`mutated.yaml is refused: ${message}`);
    });
  }

  it("the generator of the validators refuses a request view's name another schema takes, naming both", async () => {
    const file = join(scratch, "view-collision.yaml");
    await writeFile(file, stringify(mutated(refusals[1]![1]), { aliasDuplicateObjects: false }));
    const result = await run(
      process.execPath,
      [TSX, "scripts/generate-testing.ts", "--spec", file, "--out", join(scratch, "out-views")],
      { cwd: ROOT },
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(
      /^generate-testing: .*view-collision\.yaml is refused: "#\/components\/schemas\/Widget" is used in requests and responses, so store-admin-sdk\/schemas exports its request view as WidgetInput, the type name of "#\/components\/schemas\/WidgetInput"; rename one of them\.$/,
    );
  }, 60_000);

  it("each generator says so in a sentence and exits 1, without a stack trace", async () => {
    const file = join(scratch, "collision.yaml");
    await writeFile(file, stringify(mutated(refusals[0]![1]), { aliasDuplicateObjects: false }));
    for (const script of ["scripts/generate.ts", "scripts/generate-testing.ts"]) {
      const result = await run(process.execPath, [TSX, script, "--spec", file, "--out", join(scratch, "out")], {
        cwd: ROOT,
      });
      expect(result.code, script).toBe(1);
      expect(result.stderr.trim(), script).toMatch(
        /^generate(-testing)?: .*collision\.yaml is refused: "#\/components\/schemas\/line-item" and "#\/components\/schemas\/line item" both map to the type name LineItem; rename one of them\.$/,
      );
    }
  }, 60_000);
});
