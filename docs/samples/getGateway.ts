import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

const { data: gateway, error } = await store.GET("/gateways/{id}/", { params: { path: { id: 3 } } });
if (error !== undefined) throw new Error(`Could not read gateway 3: ${JSON.stringify(error)}`);

console.log(`${gateway.name} (${gateway.gateway_type}) active: ${gateway.active}`);
console.log("Cards:", (gateway.card_types ?? []).map((card) => card.label).join(", "));
console.log("Currencies:", (gateway.currencies ?? []).map((currency) => currency.code).join(", "));
