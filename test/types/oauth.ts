/**
 * Type tests of store-admin-sdk/oauth: compiled by `tsc -p tsconfig.json`, never run. The
 * scopes are the contract's scope names (generated `Scope`), not any string.
 */
import { createPartnerApp, type Scope } from "../../src/oauth/index.js";

const app = createPartnerApp({
  clientId: "id",
  clientSecret: "secret",
  redirectUri: "https://app.example/cb",
  allowedStores: [".stores.example.com"],
  scopes: ["users:read", "orders:write"],
});
void app.begin({ store: "shop.stores.example.com", scopes: ["disputes:write", "gift_cards:read"] });
// @ts-expect-error: not a scope of the contract
void app.begin({ store: "shop.stores.example.com", scopes: ["users:reed"] });
createPartnerApp({
  clientId: "id",
  clientSecret: "secret",
  redirectUri: "https://app.example/cb",
  allowedStores: ["a.example.com"],
  // @ts-expect-error: not a scope of the contract
  scopes: ["admin"],
});
createPartnerApp({
  clientId: "id",
  clientSecret: "secret",
  redirectUri: "https://app.example/cb",
  allowedStores: ["a.example.com"],
  // @ts-expect-error: the test origin is plain HTTP to 127.0.0.1 only
  testOrigin: "http://example.com:80",
});
const scope: Scope = "users:write";
void scope;
