/**
 * store-admin-sdk/schemas from the sources: each named schema is a Standard Schema v1 object
 * whose `validate` resolves to `{ value }` or `{ issues: [{ message, path }] }`, in the view it
 * is used in. The views are shown on the kitchen-sink contract's `Widget` (read-only `id` and
 * `created_at`, write-only `secret`), generated into a scratch folder: the response view
 * allows read-only properties and never requires a write-only one; the request view
 * (`WidgetInput`) refuses read-only ones and requires the write-only one.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeRun, ROOT, run } from "../package/tarball.js";
import { scratchDir } from "../docs/typecheck.js";
import * as schemas from "../../src/schemas/index.js";
import { MAX_ISSUES } from "../../src/schemas/issues.js";
import { standardSchema, type StandardSchemaV1 } from "../../src/schemas/standard-schema.js";
import type { Validator } from "../../generated/validators/types.js";
import { schemaExports } from "../../scripts/contract-model.js";
import { fileKey } from "../../scripts/file-keys.js";
import { loadContractFile } from "../../scripts/load-contract.js";
import { KITCHEN_SINK_PATH } from "../../scripts/facts.js";

const TSX = join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");

let scratch: string;
let Widget: StandardSchemaV1;
let WidgetInput: StandardSchemaV1;

beforeAll(async () => {
  scratch = await scratchDir("schemas");
  const spec = KITCHEN_SINK_PATH;
  const result = await run(
    process.execPath,
    [TSX, join(ROOT, "scripts", "generate-testing.ts"), "--spec", spec, "--out", join(scratch, "testing")],
    { timeoutMs: 120_000 },
  );
  expect(result.code, describeRun("generate-testing --spec kitchen-sink.yaml", result)).toBe(0);
  // A schema's module is named by the stable key of its export name (scripts/file-keys.ts).
  const exported = schemaExports(loadContractFile(spec)).map((entry) => entry.name);
  expect(exported).toEqual(expect.arrayContaining(["Widget", "WidgetInput"]));
  const load = (name: string) => () =>
    import(pathToFileURL(join(scratch, "validators", "schemas", `${fileKey(name, name)}.ts`)).href) as Promise<{
      validator: Validator;
    }>;
  Widget = standardSchema(load("Widget"));
  WidgetInput = standardSchema(load("WidgetInput"));
}, 120_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const validate = (schema: StandardSchemaV1, value: unknown) => schema["~standard"].validate(value);

describe("a schema used both ways (the kitchen sink's Widget)", () => {
  const stored = { id: 7, name: "Sprocket", created_at: "2024-04-01T10:00:00Z", tags: ["a"] };

  it("in the response view: read-only properties allowed, the write-only one not required", async () => {
    expect(await validate(Widget, stored)).toEqual({ value: stored });
  });

  it("in the response view: a missing read-only property that is required is still missing", async () => {
    expect(await validate(Widget, { name: "Sprocket", created_at: "2024-04-01T10:00:00Z" })).toEqual({
      issues: [{ message: "is required", path: ["id"] }],
    });
  });

  it("in the request view (WidgetInput): read-only properties refused, by path", async () => {
    const result = await validate(WidgetInput, { ...stored, secret: "s3cret" });
    expect(result.issues).toEqual([
      { message: "is read-only: the store sets it, a request may not send it", path: ["id"] },
      { message: "is read-only: the store sets it, a request may not send it", path: ["created_at"] },
    ]);
  });

  it("in the request view: the write-only property is required, the read-only ones are not", async () => {
    const body = { name: "Sprocket", secret: "s3cret" };
    expect(await validate(WidgetInput, body)).toEqual({ value: body });
    expect((await validate(WidgetInput, { name: "Sprocket" })).issues).toEqual([
      { message: "is required", path: ["secret"] },
    ]);
  });

  it("in both views: limits, types and items are checked, every problem listed with its path", async () => {
    const result = await validate(WidgetInput, { name: "", secret: 5, tags: ["ok", 3] });
    expect(result.issues).toEqual(
      expect.arrayContaining([
        { message: "must be at least 1 character long", path: ["name"] },
        { message: "must be string", path: ["secret"] },
        { message: "must be string", path: ["tags", 1] },
      ]),
    );
    expect(result.issues).toHaveLength(3);
  });
});

describe("the contract's schemas (src/schemas/index.ts)", () => {
  it("each is a Standard Schema v1 object of this vendor whose validate returns a Promise", async () => {
    expect(schemas.User["~standard"]).toMatchObject({ version: 1, vendor: "store-admin-sdk" });
    const pending = schemas.User["~standard"].validate({ id: 1 });
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toEqual({ value: { id: 1 } });
  });

  it("a response schema (User): nulls it allows pass, a null it does not and wrong types fail, with index paths", async () => {
    const user = {
      id: 42,
      email: null,
      first_name: null,
      tags: [null, "vip"],
      addresses: [],
      total_spent: "12.50",
      unknown_field: { any: 1 },
    };
    expect(await validate(schemas.User, user)).toEqual({ value: user });
    const result = await validate(schemas.User, { id: null, email: 3, addresses: [{ id: 1, line1: 5 }], tags: [1] });
    expect(result.issues).toEqual([
      { message: "must be integer", path: ["id"] },
      { message: "must be string or null", path: ["addresses", 0, "line1"] },
      { message: "must be string or null", path: ["email"] },
      { message: "must be string or null", path: ["tags", 0] },
    ]);
  });

  it("a broken format is refused, in words that say what is accepted", async () => {
    expect((await validate(schemas.User, { id: 1, email: "not an address" })).issues).toEqual([
      { message: "must be an email address, such as name@example.com", path: ["email"] },
    ]);
  });

  it("each message names what would be accepted: an enum's values, a type, a format, a limit", async () => {
    const result = await validate(schemas.User, { id: "7", language: "tlh", date_joined: "yesterday" });
    expect(result.issues).toEqual([
      { message: "must be integer", path: ["id"] },
      // A nullable timestamp: its two alternatives, as one issue.
      {
        message: "must be a date and time with its offset (RFC 3339), such as 2024-04-01T10:00:00Z, or null",
        path: ["date_joined"],
      },
      {
        message: 'must be one of "en", "fr", "th", "de", "sv", "no", "it", "es", "nl", "pt", "da", "fi", "", null',
        path: ["language"],
      },
    ]);
    // No message is Ajv's own ("must be equal to one of the allowed values", "must NOT have more than …").
    for (const issue of result.issues!) expect(issue.message).not.toMatch(/allowed values|must NOT|must match format/);
  });

  it(`returns at most ${MAX_ISSUES} issues, the last saying how many more`, async () => {
    const result = await validate(schemas.UserPage, {
      count: 500,
      next: null,
      previous: null,
      results: Array.from({ length: 500 }, () => ({ id: "s" })),
    });
    expect(result.issues).toHaveLength(MAX_ISSUES);
    expect(result.issues![0]).toEqual({ message: "must be integer", path: ["results", 0, "id"] });
    expect(result.issues!.at(-1)).toEqual({
      message: `and 401 more issues, not listed (the first ${MAX_ISSUES - 1} are above)`,
    });
  });

  it("a request schema (UserUpdate): limits and an unknown property refused", async () => {
    expect(await validate(schemas.UserUpdate, { first_name: "Ada" })).toEqual({ value: { first_name: "Ada" } });
    const result = await validate(schemas.UserUpdate, { first_name: "x".repeat(256), nickname: "A" });
    expect(result.issues).toEqual([
      { message: "is not a property of this schema", path: ["nickname"] },
      { message: "must be at most 255 characters long", path: ["first_name"] },
    ]);
  });

  it("a schema used both ways is exported twice (Timestamp, TimestampInput); one only requests use, once", () => {
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(["Timestamp", "TimestampInput", "User", "UserUpdate"]));
    expect(Object.keys(schemas)).not.toContain("UserInput");
    expect(Object.keys(schemas)).not.toContain("UserUpdateInput");
  });
});
