/** `createStoreAdminMcpServer`'s options, in process: a name it does not know is refused, naming it. */
import { describe, expect, it } from "vitest";
import { createStoreAdminMcpServer } from "../../src/mcp/index.js";

const store = { apiUrl: "http://127.0.0.1:9/api/admin", accessToken: "test-token" };

describe("createStoreAdminMcpServer options", () => {
  it("refuses an unknown option name, naming it and the options there are", () => {
    expect(() => createStoreAdminMcpServer({ store, scope: ["users:read"] } as never)).toThrow(
      new TypeError('createStoreAdminMcpServer(): "scope" is not an option; the options are store, allowWrites, scopes, tools, maxResultBytes.'),
    );
    expect(() => createStoreAdminMcpServer({ store, allowWrite: true, maxBytes: 2048 } as never)).toThrow(/"allowWrite", "maxBytes" are not options/);
  });

  it("takes every option it documents", () => {
    expect(() => createStoreAdminMcpServer({ store, allowWrites: true, scopes: ["users:read"], tools: ["users_*"], maxResultBytes: 4096 })).not.toThrow();
  });
});
