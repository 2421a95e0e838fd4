/**
 * The callback's `store` check (src/oauth/store-host.ts), pure: a bare host name that the
 * allow-list names exactly or by a suffix at a label boundary, case and a trailing dot
 * normalised; everything else refused with its reason. (test/oauth/flow.test.ts proves nothing
 * is sent to a refused store.)
 */
import { describe, expect, it } from "vitest";
import { OAuthError } from "../../src/oauth/oauth-error.js";
import { allowList, checkedStore } from "../../src/oauth/store-host.js";

const allowed = allowList([".stores.example.com", "Solo.Example.org."]);
const refusal = (value: unknown): string => {
  try {
    checkedStore(value, allowed);
  } catch (error) {
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).reason).toBe("store_refused");
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(value)} was accepted`);
};

describe("checkedStore", () => {
  it("accepts hosts below a suffix and exact hosts, normalised", () => {
    expect(checkedStore("a.stores.example.com", allowed)).toBe("a.stores.example.com");
    expect(checkedStore("A.B.Stores.Example.COM.", allowed)).toBe("a.b.stores.example.com");
    expect(checkedStore("solo.example.org", allowed)).toBe("solo.example.org");
    expect(checkedStore("SOLO.example.org.", allowed)).toBe("solo.example.org");
  });

  it("refuses hosts the list does not name, at a label boundary", () => {
    for (const host of [
      "evilstores.example.com",
      "stores.example.com",
      "a.stores.example.com.evil.test",
      "x.solo.example.org",
      "example.org",
    ]) {
      expect(refusal(host)).toMatch(/is not in allowedStores: nothing was sent to it/);
    }
  });

  it("refuses what is not a bare host name, saying why", () => {
    expect(refusal("me@a.stores.example.com")).toMatch(/user info/);
    expect(refusal("a.stores.example.com:443")).toMatch(/port/);
    expect(refusal("https://a.stores.example.com")).toMatch(/a URL/);
    expect(refusal("a.stores.example.com/admin")).toMatch(/path/);
    expect(refusal("a.stores.example.com?x=1")).toMatch(/query/);
    expect(refusal("a.stores.example.com#x")).toMatch(/fragment/);
    expect(refusal("a%2estores.example.com")).toMatch(/escape/);
    expect(refusal("a\\.stores.example.com")).toMatch(/path/);
    expect(refusal("a..stores.example.com")).toMatch(/label is empty/);
    expect(refusal("-a.stores.example.com")).toMatch(/hyphens/);
    expect(refusal("a.stores.example.com..")).toMatch(/label is empty/);
    expect(refusal("ä.stores.example.com")).toMatch(/xn-- form/);
    expect(refusal(" a.stores.example.com")).toMatch(/white space/);
    expect(refusal("[::1]")).toMatch(/IPv6/);
    expect(refusal("")).toMatch(/empty/);
    expect(refusal(`${"a".repeat(64)}.stores.example.com`)).toMatch(/too long/);
    expect(refusal(undefined)).toMatch(/no store parameter/);
  });

  it("quotes a refused value escaped and cut", () => {
    const message = refusal(`x\u001b[31m${"y".repeat(500)}`);
    expect(message).not.toContain("\u001b");
    expect(message.length).toBeLessThan(400);
  });
});

describe("allowList", () => {
  it("has no default and refuses entries that allow too much or are not host names", () => {
    expect(() => allowList(undefined)).toThrow(/no default that allows any host/);
    expect(() => allowList([])).toThrow(/no default that allows any host/);
    expect(() => allowList([".com"])).toThrow(/top-level domain/);
    expect(() => allowList(["*.example.com"])).toThrow(/".example.com", not a wildcard/);
    expect(() => allowList(["https://shop.example.com"])).toThrow(/a URL/);
    expect(() => allowList([42])).toThrow(/allowedStores\[0\] must be a string/);
  });
});
