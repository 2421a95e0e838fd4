/**
 * Preloaded (`node --import`) when test/docs/samples.test.ts runs an operation sample.
 * The samples talk to `https://shop.example.com`, as a reader's code would; this sends
 * their requests to the Prism mock at `SAMPLE_MOCK_URL` instead, and fails the run on any
 * HTTP error status, so a sample whose request breaks the contract (Prism answers 422)
 * fails even when the sample itself only logs the error.
 */
const STORE_API = "https://shop.example.com/api/admin";
const mockUrl = process.env.SAMPLE_MOCK_URL;
if (!mockUrl) throw new Error("SAMPLE_MOCK_URL is not set");

const realFetch = globalThis.fetch;

globalThis.fetch = async function fetchFromMock(input, init) {
  const request = new Request(input, init);
  if (!request.url.startsWith(`${STORE_API}/`)) {
    process.exitCode = 1;
    throw new Error(`the sample called ${request.url}; samples must use baseUrl "https://shop.example.com"`);
  }
  const url = mockUrl + request.url.slice(STORE_API.length);
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  const response = await realFetch(url, {
    method: request.method,
    headers: request.headers,
    body,
    redirect: "manual",
    signal: request.signal,
  });
  if (response.status >= 400) {
    process.exitCode = 1;
    console.error(
      `sample-preload: HTTP ${response.status} for ${request.method} ${request.url}: ${await response.clone().text()}`,
    );
  }
  return response;
};
