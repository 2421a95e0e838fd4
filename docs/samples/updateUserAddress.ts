import { createStoreAdminClient, UnprocessableEntityError } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// country, line1 and line4 (the city) are required.
try {
  const address = await store.users.addresses.update(42, 7, {
    country: "SE",
    line1: "Drottninggatan 12",
    line4: "Stockholm",
    postcode: "111 51",
    is_default_for_shipping: true,
  });
  console.log(`Address ${address.id}: ${address.line1}, ${address.postcode} ${address.line4}`);
} catch (error) {
  // A 422 lists every rejected field.
  if (error instanceof UnprocessableEntityError) {
    for (const issue of error.validation) console.error(issue.location.join("."), issue.message);
  } else throw error;
}
