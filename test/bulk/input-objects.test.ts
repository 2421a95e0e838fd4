/**
 * Every object the command builds from its input has no prototype, at every depth, in JSON lines
 * and CSV alike: a name from a file can neither reach `Object.prototype` nor read anything
 * inherited, whether or not it is one of the names refused outright.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { csvRows, jsonLines, type InputCall } from "../../src/cli/input.js";

const dir = mkdtempSync(join(tmpdir(), "bulk-input-objects-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every object (not array) in `value`, with where it is. */
function objects(value: unknown, at: string, found: Array<[string, object]> = []): Array<[string, object]> {
  if (value === null || typeof value !== "object") return found;
  if (!Array.isArray(value)) found.push([at, value]);
  for (const [key, inner] of Object.entries(value)) objects(inner, `${at}.${key}`, found);
  return found;
}

async function read(calls: AsyncIterable<InputCall>): Promise<InputCall[]> {
  const all: InputCall[] = [];
  for await (const call of calls) all.push(call);
  return all;
}

const withPrototype = (calls: InputCall[]) =>
  calls
    .flatMap((call) => (["path", "query", "body"] as const).flatMap((part) => objects(call[part], part)))
    .filter(([, object]) => Object.getPrototypeOf(object) !== null)
    .map(([at]) => at);

it("JSON lines: path, query, body and every object inside them have no prototype", async () => {
  const file = join(dir, "calls.jsonl");
  writeFileSync(
    file,
    `${JSON.stringify({ path: { id: 1 }, query: { toString: "x", hasOwnProperty: "y" }, body: { tags: [{ name: "a" }], meta: { deep: { er: {} } } } })}\n`,
  );
  const calls = await read(jsonLines(file, 1_000_000));
  expect(calls[0]!.invalid).toBeUndefined();
  expect(objects(calls[0]!.body, "body").length).toBe(5);
  expect(withPrototype(calls)).toEqual([]);
  expect((calls[0]!.query as { hasOwnProperty: unknown }).hasOwnProperty).toBe("y");
});

it("CSV: the objects built from dotted headers and from JSON cells have no prototype", async () => {
  const file = join(dir, "users.csv");
  writeFileSync(file, 'path.id,query.toString,body.first_name,body.address.city\n1,x,Ada,"London"\n');
  const calls = await read(csvRows(file, "PATCH /users/{id}/", 1_000_000));
  expect(calls[0]!.invalid).toBeUndefined();
  expect(objects(calls[0]!.body, "body").length).toBe(2);
  expect(withPrototype(calls)).toEqual([]);
});
