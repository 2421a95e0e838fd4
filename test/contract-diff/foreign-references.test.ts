/**
 * Every tool that reads the contract refuses a document that would make it read something
 * else, before it reads anything: a `$ref` to a URL (a server here counts the requests it
 * gets: none may arrive) or to a local file, and a YAML alias bomb. The contract diff, both
 * generators and the docs build are run as commands, as CI runs them on a pull request.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { loadContract, MAX_ALIAS_COUNT } from "../../scripts/load-contract.js";
import { CONTRACT_PATH } from "../../scripts/facts.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const tsx = join(root, "node_modules/.bin/tsx");
const contractText = readFileSync(CONTRACT_PATH, "utf8");
const dir = mkdtempSync(join(tmpdir(), "foreign-refs-"));

let server: Server;
let port = 0;
let received = 0;

beforeAll(async () => {
  server = createServer((_request, response) => {
    received++;
    response.writeHead(200, { "content-type": "application/yaml" });
    response.end("type: string\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** The working contract with `User.email` replaced by a reference to `target`, written to a file. */
function contractWithRef(name: string, target: string): string {
  const doc = loadContract(contractText, "contract") as {
    components: { schemas: Record<string, { properties: Record<string, unknown> }> };
  };
  doc.components.schemas.User!.properties.email = { $ref: target };
  const file = join(dir, name);
  writeFileSync(file, stringify(doc));
  return file;
}

/** 330 bytes of YAML whose aliases stand for 9^7 (4.8 million) strings. */
function aliasBomb(): string {
  const levels = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
  for (const [i, name] of ["b", "c", "d", "e", "f", "g"].entries()) {
    const prev = String.fromCharCode(97 + i);
    levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(",")}]`);
  }
  return `openapi: 3.1.0\ninfo: {title: x, version: "1"}\npaths: {}\n${levels.join("\n")}\n`;
}

interface Run {
  status: number | null;
  output: string;
  ms: number;
}

function run(args: string[]): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, output, ms: Date.now() - started }));
  });
}

const TOOLS: Array<[string, (spec: string) => string[]]> = [
  ["contract:diff", (spec) => ["scripts/contract-diff.ts", "--base", "openapi/store-admin.yaml", "--head", spec]],
  ["generate", (spec) => ["scripts/generate.ts", "--spec", spec, "--out", join(dir, "generated"), "--check"]],
  [
    "generate-testing",
    (spec) => ["scripts/generate-testing.ts", "--spec", spec, "--out", join(dir, "generated-testing"), "--check"],
  ],
  ["docs", (spec) => ["scripts/docs.ts", spec]],
];

describe("loadContract()", () => {
  test("refuses a reference to a URL, a file or another document, naming each with where it is written", () => {
    const doc = loadContract(contractText, "contract") as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    doc.components.schemas.User!.properties.email = { $ref: "http://127.0.0.1:1/x.yaml" };
    doc.components.schemas.User!.properties.ip = { $ref: "/etc/hostname" };
    doc.components.schemas.User!.properties.language = { $ref: "other.yaml#/components/schemas/Language" };
    expect(() => loadContract(stringify(doc), "head.yaml")).toThrow(
      /head\.yaml is refused: it refers outside itself.*\$ref: "http:\/\/127\.0\.0\.1:1\/x\.yaml" at #\/components\/schemas\/User\/properties\/email\/\$ref.*\$ref: "\/etc\/hostname" at #\/components\/schemas\/User\/properties\/ip\/\$ref.*\$ref: "other\.yaml#\/components\/schemas\/Language"/,
    );
  });

  test("refuses `$id` and an example's `externalValue` (each points a tool elsewhere)", () => {
    expect(() =>
      loadContract('openapi: 3.1.0\npaths: {}\ncomponents: {schemas: {A: {$id: "https://x.test/a"}}}\n', "a.yaml"),
    ).toThrow(/\$id: "https:\/\/x\.test\/a" at #\/components\/schemas\/A\/\$id/);
    expect(() =>
      loadContract(
        'openapi: 3.1.0\npaths: {}\ncomponents: {examples: {A: {externalValue: "file:///etc/passwd"}}}\n',
        "a.yaml",
      ),
    ).toThrow(/externalValue: "file:\/\/\/etc\/passwd"/);
  });

  test("reads our contract, whose references are all local and whose few aliases are examples", () => {
    expect(Object.keys(loadContract(contractText, "contract").paths as object).length).toBeGreaterThan(10);
  });

  test(`refuses a ${aliasBomb().length}-byte alias bomb (aliases beyond ${MAX_ALIAS_COUNT} expansions)`, () => {
    expect(aliasBomb().length).toBeLessThanOrEqual(330);
    const started = performance.now();
    expect(() => loadContract(aliasBomb(), "bomb.yaml")).toThrow(
      /bomb\.yaml is refused: its YAML aliases expand beyond 100 nodes/,
    );
    console.log(`alias bomb (${aliasBomb().length} B) refused in ${(performance.now() - started).toFixed(1)} ms`);
  });
});

describe.each(TOOLS)("%s", (tool, args) => {
  test("refuses a `$ref` to a URL before any request is made, and one to a local file", async () => {
    const before = received;
    const remote = `http://127.0.0.1:${port}/x.yaml`;
    const result = await run(args(contractWithRef(`${tool}-remote.yaml`, remote)));
    expect(result.status, result.output).not.toBe(0);
    expect(result.output).toContain(`is refused: it refers outside itself`);
    expect(result.output).toContain(`$ref: "${remote}" at #/components/schemas/User/properties/email/$ref`);
    expect(received - before, "requests the server received").toBe(0);

    const file = await run(args(contractWithRef(`${tool}-file.yaml`, "/etc/hostname")));
    expect(file.status, file.output).not.toBe(0);
    expect(file.output).toContain(`$ref: "/etc/hostname" at #/components/schemas/User/properties/email/$ref`);
  }, 120_000);

  test("refuses the alias bomb", async () => {
    const bomb = join(dir, `${tool}-bomb.yaml`);
    writeFileSync(bomb, aliasBomb());
    const result = await run(args(bomb));
    expect(result.status, result.output).not.toBe(0);
    expect(result.output).toContain("its YAML aliases expand beyond 100 nodes");
    console.log(`${tool}: alias bomb refused, the whole command took ${result.ms} ms (most of it loading the tool)`);
  }, 120_000);
});

test("contract:diff passes a git ref to git after --end-of-options: a ref that looks like an option is never one", async () => {
  // Without --end-of-options, `git show -O<file>:…` reads <file> as a diff order file.
  const result = await run(["scripts/contract-diff.ts", "--base", "-O/etc/hostname"]);
  expect(result.status).toBe(2);
  expect(result.output).toContain('"-O/etc/hostname" is neither a file nor a git ref');
  expect(result.output).not.toContain("orderfile");
}, 60_000);
