/**
 * The production features are documented where users look: a section of docs/guide.md per
 * feature (its ```ts blocks compile: test/docs/guide.test.ts), linked from the rendered
 * reference's quick start, and a line each in the changelog's Unreleased block.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../package/tarball.js";
import { NotFoundError, PermissionDeniedError } from "../../src/index.js";
import { useFaultServer } from "../helpers/fault-server.js";
import { rejection } from "../helpers/outcome.js";

const SECTIONS = [
  ["the-raw-response-and-the-request-id", /^### The raw response and the request id$/m],
  ["debug-logging", /^### Debug logging$/m],
  ["opentelemetry", /^### OpenTelemetry$/m],
  ["an-http-mock-for-any-test-runner", /^### An HTTP mock for any test runner$/m],
  ["cloudflare-workers", /^### Cloudflare Workers$/m],
] as const;

describe("the production features' documentation", () => {
  it("has a guide section each, with an example, linked from the reference's quick start", async () => {
    const guide = await readFile(join(ROOT, "docs", "guide.md"), "utf8");
    const intro = await readFile(join(ROOT, "docs", "reference-intro.md"), "utf8");
    for (const [anchor, heading] of SECTIONS) {
      const at = guide.search(heading);
      expect(at, anchor).toBeGreaterThan(0);
      const section = guide.slice(
        at,
        guide.indexOf("\n### ", at + 1) === -1 ? undefined : guide.indexOf("\n### ", at + 1),
      );
      expect(section, anchor).toMatch(/```(ts|sh)\n/);
      expect(intro, anchor).toContain(`(../guide.md#${anchor})`);
    }
  });

  it("says what each STORE_ADMIN_LOG level prints", async () => {
    const guide = await readFile(join(ROOT, "docs", "guide.md"), "utf8");
    for (const level of ["warn", "info", "debug"])
      expect(guide).toMatch(new RegExp(`^\\| \`${level}\` \\| .+ \\|$`, "m"));
  });
});

describe("the README's error example", () => {
  const server = useFaultServer();

  it("says what a 404's and a 403's messages name, and they do: the path requested, and the scope the token lacks", async () => {
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    expect(readme).toContain(
      "if (err instanceof NotFoundError) console.error(err.message); // names the operation and the path it requested",
    );
    expect(readme).toContain(
      "else if (err instanceof PermissionDeniedError) console.error(err.message); // names the scope the token lacks",
    );
    const update = () =>
      server().client().orders.lines.update("100234", 3301, { quantity: 1, reason: "Customer asked for one bag" });
    server().enqueue({ status: 404, body: { detail: "Not found." } }, { status: 403, body: { detail: "Forbidden." } });
    const notFound = await rejection(update());
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect((notFound as Error).message).toContain("[PATCH /orders/{number}/lines/{lineId}/]");
    expect((notFound as Error).message).toContain("(requested /orders/100234/lines/3301/)");
    const denied = await rejection(update());
    expect(denied).toBeInstanceOf(PermissionDeniedError);
    const { scope } = denied as PermissionDeniedError;
    expect(scope).toMatch(/\w/);
    expect((denied as Error).message).toContain(`lacks the scope "${scope}"`);
  });
});
