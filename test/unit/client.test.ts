/** Option checks of createStoreAdminClient and the API root they resolve to: nothing is ever sent. */
import { describe, expect, it } from "vitest";
import { resolveApiRoot } from "../../src/client/client.js";
import { createStoreAdminClient } from "../../src/index.js";

describe("resolveApiRoot", () => {
  it("appends /api/admin to a store address, normalising trailing slashes", () => {
    expect(resolveApiRoot({ baseUrl: "https://shop.example.com" })).toBe("https://shop.example.com/api/admin");
    expect(resolveApiRoot({ baseUrl: "https://shop.example.com///" })).toBe("https://shop.example.com/api/admin");
    expect(resolveApiRoot({ baseUrl: "https://example.com/store/" })).toBe("https://example.com/store/api/admin");
  });

  it("uses apiUrl as it is, less trailing slashes", () => {
    expect(resolveApiRoot({ apiUrl: "http://127.0.0.1:4010/" })).toBe("http://127.0.0.1:4010");
    expect(resolveApiRoot({ apiUrl: "https://proxy.example.com/admin-api" })).toBe(
      "https://proxy.example.com/admin-api",
    );
  });

  it.each([
    [{}, /Pass baseUrl .* or apiUrl/],
    [{ baseUrl: "https://a.example", apiUrl: "https://b.example" }, /either baseUrl .* or apiUrl .* not both/],
    [{ baseUrl: "" }, /baseUrl must be a non-empty URL string/],
    [{ baseUrl: "shop.example.com" }, /baseUrl is not an absolute URL: "shop\.example\.com"/],
    [{ apiUrl: "ftp://shop.example.com" }, /apiUrl must be an http\(s\) URL, got the scheme "ftp:"/],
    [{ baseUrl: "https://admin:secret@shop.example.com" }, /baseUrl must not contain credentials/],
    [{ baseUrl: "https://shop.example.com/?x=1" }, /baseUrl must not have a query string or fragment/],
    [{ apiUrl: 42 }, /apiUrl must be a non-empty URL string/],
  ])("rejects %j", (options, message) => {
    expect(() => resolveApiRoot(options)).toThrow(TypeError);
    expect(() => resolveApiRoot(options)).toThrow(message);
  });

  it("never repeats credentials it rejects", () => {
    expect(() => resolveApiRoot({ baseUrl: "https://admin:hunter2@shop.example.com" })).toThrow(/^(?!.*hunter2)/s);
  });

  it("never prints the token given as the URL (options swapped), and clips a long value", () => {
    const accessToken = "sk_live_swapped_0123456789";
    expect(() => resolveApiRoot({ baseUrl: accessToken, accessToken })).toThrow(
      /^baseUrl is not an absolute URL: it holds the accessToken\. /,
    );
    expect(() => resolveApiRoot({ apiUrl: ` ${accessToken}`, accessToken })).toThrow(/^(?!.*sk_live_swapped)/s);
    expect(() => resolveApiRoot({ baseUrl: "x".repeat(5000) })).toThrow(/: "x{200}"\. Include the scheme/);
  });
});

describe("createStoreAdminClient options", () => {
  const base = { apiUrl: "http://127.0.0.1:9" };
  it.each([
    [{ ...base, accessToken: "" }, /accessToken is an empty string/],
    [{ ...base, accessToken: "Bearer abc" }, /starts with "Bearer "/],
    [{ ...base, accessToken: "abc def" }, /contains white space or control characters\./],
    [{ ...base, accessToken: "abc\u00a0def" }, /contains a non-ASCII character\./],
    [{ ...base, accessToken: "sk_live_ab\u201d" }, /contains a non-ASCII character/],
    [{ ...base, accessToken: 42 }, /accessToken must be a string or a function/],
    [{ ...base, accessToken: "t", timeoutMs: 0 }, /timeoutMs must be a positive number of milliseconds, got 0/],
    [{ ...base, accessToken: "t", maxRetries: 1.5 }, /maxRetries must be a whole number ≥ 0, got 1\.5/],
    [{ ...base, accessToken: "t", maxRetries: -1 }, /maxRetries must be a whole number ≥ 0, got -1/],
    [{ ...base, accessToken: "t", fetch: "nope" }, /fetch must be a function/],
    [{ ...base, accessToken: "t", logger: {} }, /logger must be a function/],
  ])("rejects %j with a message naming the option", (options, message) => {
    expect(() => createStoreAdminClient(options as never)).toThrow(TypeError);
    expect(() => createStoreAdminClient(options as never)).toThrow(message);
  });

  it("rejects a missing options object", () => {
    expect(() => createStoreAdminClient(undefined as never)).toThrow(/takes an options object/);
  });
});
