import { ConnectionError, createStoreAdminClient, TimeoutError } from "store-admin-sdk";

const store = createStoreAdminClient({
  baseUrl: "https://shop.example.com",
  accessToken: process.env.STORE_TOKEN!,
});

// Each call creates a renewal order, so the SDK never resends this POST on its own.
try {
  const subscription = await store.subscriptions.renew(410);
  console.log(`Subscription ${subscription.id} renewed; next renewal ${subscription.next_renewal_date}`);
} catch (error) {
  if (error instanceof TimeoutError || error instanceof ConnectionError) {
    // The request may have reached the store: look for the new order before trying again.
    console.error(error.message);
  } else throw error;
}
