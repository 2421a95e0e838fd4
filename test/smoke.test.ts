/** The package's public surface: what `import … from "store-admin-sdk"` gives, and its version. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as sdk from "../src/index.js";

describe("exports", () => {
  it("names every runtime export", () => {
    expect(Object.keys(sdk).sort()).toEqual(
      [
        "API_VERSION",
        "ApiError",
        "AuthenticationError",
        "BadRequestError",
        "ConflictError",
        "ConnectionError",
        "ContractDriftError",
        "InternalServerError",
        "InvalidResponseError",
        "NotFoundError",
        "PaginationError",
        "PermissionDeniedError",
        "RateLimitError",
        "RedirectError",
        "ResponseTooLargeError",
        "StoreAdminError",
        "TimeoutError",
        "UnprocessableEntityError",
        "VERSION",
        "createStoreAdminClient",
        "formatLogEvent",
        "unwrap",
      ].sort(),
    );
  });

  it("keeps VERSION equal to package.json's and API_VERSION equal to the contract's", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(sdk.VERSION).toBe(pkg.version);
    expect(sdk.API_VERSION).toBe("2024-04-01");
  });

  it("makes every error class a StoreAdminError", () => {
    for (const [name, value] of Object.entries(sdk)) {
      if (name.endsWith("Error") && value !== sdk.StoreAdminError) {
        expect((value as { prototype: unknown }).prototype, name).toBeInstanceOf(sdk.StoreAdminError);
      }
    }
  });

  it("returns openapi-fetch's client plus paginate", () => {
    const store = sdk.createStoreAdminClient({ apiUrl: "http://127.0.0.1:9", accessToken: "t" });
    for (const method of ["GET", "PUT", "POST", "PATCH", "DELETE", "use", "eject", "paginate"] as const) {
      expect(typeof store[method], method).toBe("function");
    }
    expect(typeof store.paginate.pages).toBe("function");
  });
});
