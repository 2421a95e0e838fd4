/** Tests of scripts/mock.ts, the Prism launcher that the global setup and `npm run mock` share. */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { startMock } from "../scripts/mock.js";
import { prismUrl } from "./helpers/prism.js";

/** Each of these starts its own Prism (about 2 s, more on a busy 2-core machine). */
const PRISM_START_TIMEOUT_MS = 60_000;

type Parameter = { $ref?: string; in?: string; name?: string; required?: boolean };
type Operation = { parameters?: Parameter[] };
type Spec = {
  paths?: Record<string, { get?: Operation; parameters?: Parameter[] }>;
  components?: { parameters?: Record<string, Parameter> };
};

/**
 * The first GET the mock can answer without inventing arguments: no path
 * template, and no required parameter other than the version header, which
 * every request carries.
 */
function firstPlainGetPath(spec: Spec): string | undefined {
  const deref = (p: Parameter): Parameter =>
    p.$ref?.startsWith("#/components/parameters/")
      ? (spec.components?.parameters?.[p.$ref.slice("#/components/parameters/".length)] ?? p)
      : p;
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    if (!item.get || path.includes("{")) continue;
    const params = [...(item.parameters ?? []), ...(item.get.parameters ?? [])].map(deref);
    const needsMore = params.some(
      (p) => p.required && !(p.in === "header" && p.name?.toLowerCase() === "x-store-api-version"),
    );
    if (!needsMore) return path;
  }
  return undefined;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
}

describe("the mock started by the global setup", () => {
  it("answers an authenticated request to a GET of the spec", async () => {
    const spec = parse(await readFile(inject("prismSpecPath"), "utf8")) as Spec;
    const path = firstPlainGetPath(spec);
    expect(path, "the spec should have a GET without required parameters").toBeDefined();

    // Prism serves the spec's paths at its root: join, don't resolve, so a leading "/" keeps the URL's path.
    const response = await fetch(prismUrl() + path, {
      headers: { Authorization: "Bearer test", "X-Store-API-Version": "2024-04-01" },
    });
    const body = await response.text();
    // A 4xx means Prism rejected the request; a 500 (with --errors) means the spec's example breaks its schema.
    expect(response.status, `GET ${path} answered: ${body}`).toBeGreaterThanOrEqual(200);
    expect(response.status, `GET ${path} answered: ${body}`).toBeLessThan(300);
  });
});

describe("startMock()", () => {
  const tempDirs: string[] = [];
  afterAll(async () => {
    await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it("rejects with Prism's log when the spec cannot be parsed", { timeout: PRISM_START_TIMEOUT_MS }, async () => {
    const dir = await mkdtemp(join(tmpdir(), "store-admin-mock-test-"));
    tempDirs.push(dir);
    const specPath = join(dir, "broken.yaml");
    await writeFile(specPath, "openapi: 3.1.0\ninfo: [unclosed\npaths: {\n");

    const error: unknown = await startMock({ specPath }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain("--- Prism log ---");
    expect(message).toContain("Starting Prism");
    expect(message).toMatch(/Error parsing .*broken\.yaml/);
  });

  it("rejects at once, without running Prism, when the spec file does not exist", async () => {
    await expect(startMock({ specPath: join(tmpdir(), "no-such-dir-store-admin", "missing.yaml") })).rejects.toThrow(
      /no OpenAPI file at .*missing\.yaml/,
    );
  });

  it("stop() ends the Prism process and can be called again", { timeout: PRISM_START_TIMEOUT_MS }, async () => {
    const mock = await startMock({ specPath: inject("prismSpecPath") });
    expect(mock.url).toBe(`http://127.0.0.1:${mock.port}`);
    expect(mock.url).not.toBe(prismUrl());
    expect(mock.log()).toContain(`Prism is listening on ${mock.url}`);
    expect(isRunning(mock.pid)).toBe(true);

    await Promise.all([mock.stop(), mock.stop()]);
    expect(isRunning(mock.pid)).toBe(false);
    await expect(mock.stop()).resolves.toBeUndefined();
    await expect(fetch(mock.url)).rejects.toThrow();
  });
});
