import { createStoreAdminClient } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

const gateway = await store.gateways.retrieve(3);

console.log(`${gateway.name} (${gateway.gateway_type}) active: ${gateway.active}`);
console.log("Cards:", (gateway.card_types ?? []).map((card) => card.label).join(", "));
console.log("Currencies:", (gateway.currencies ?? []).map((currency) => currency.code).join(", "));
