/**
 * The runtime smoke test: a few real calls, an upload and a pagination against the Prism
 * mock, with nothing but the package and the web platform. The same file runs unchanged on
 * Node, Bun, Deno and in a browser page (test/runtimes/runtimes.test.ts).
 *
 * The mock's URL comes from the first argument (`node smoke-script.mjs http://127.0.0.1:4010`,
 * `deno run … smoke-script.mjs URL`), else the `PRISM_URL` environment variable, else the
 * `prism` query parameter of the page (`/?prism=http://127.0.0.1:4010`).
 *
 * It prints one line per check and `smoke ok` at the end. On failure it prints the error and
 * exits 1; in a browser it sets `globalThis.smokeResult = { ok, lines, error }` either way.
 */
import {
  ApiError,
  createStoreAdminClient,
  NotFoundError,
  UnprocessableEntityError,
  unwrap,
  VERSION,
} from "store-admin-sdk";

/** Name and version of the runtime executing this script. */
export function runtime() {
  const g = /** @type {any} */ (globalThis);
  if (g.Deno?.version) return `deno ${g.Deno.version.deno}`;
  if (g.Bun?.version) return `bun ${g.Bun.version}`;
  if (g.process?.versions?.node && !g.window) return `node ${g.process.versions.node}`;
  if (g.navigator?.userAgent) {
    const match = /(Chrome|Firefox|Version)\/([\d.]+)/.exec(g.navigator.userAgent);
    return match ? `browser ${match[1].toLowerCase()} ${match[2]}` : "browser";
  }
  return "unknown";
}

/**
 * Runs every check against the mock at `apiUrl`; `log` receives each line as it is done.
 * Resolves with all the lines, or rejects with the first failure.
 *
 * @param {string} apiUrl
 * @param {(line: string) => void} [log]
 */
export async function smoke(apiUrl, log = () => {}) {
  /** @type {string[]} */
  const lines = [];
  const say = (/** @type {string} */ line) => {
    lines.push(line);
    log(line);
  };
  say(`runtime: ${runtime()}, store-admin-sdk ${VERSION}`);

  let tokenCalls = 0;
  const store = createStoreAdminClient({
    apiUrl,
    accessToken: async () => {
      tokenCalls += 1;
      return "smoke-test-token";
    },
    timeoutMs: 15_000,
    maxRetries: 0,
  });

  // A GET, with openapi-fetch's { data, error }.
  const { data: user, error } = await store.GET("/users/{id}/", { params: { path: { id: 42 } } });
  if (error !== undefined) throw new Error(`GET /users/{id}/ answered ${JSON.stringify(error)}`);
  say(`GET /users/42/: ${user.email}`);

  // A PATCH with a JSON body, unwrapped.
  const card = await unwrap(
    store.PATCH("/gift-cards/{id}/", { params: { path: { id: 88 } }, body: { expired_at: "2026-12-31T23:59:59Z" } }),
  );
  say(`PATCH /gift-cards/88/: balance ${card.balance} ${card.currency}`);

  // A multipart upload: a Blob becomes multipart/form-data, which the mock validates.
  const ticket = await unwrap(
    store.POST("/tickets/attachments/", { body: { files: new Blob(["smoke test\n"], { type: "text/plain" }) } }),
  );
  say(`POST /tickets/attachments/: ticket ${ticket.id}`);

  // Pagination: items, then pages.
  const emails = [];
  for await (const customer of store.paginate("/users/", { params: { query: { is_blocked: false } } })) {
    emails.push(customer.email);
  }
  say(`paginate /users/: ${emails.length} customer(s): ${emails.join(", ")}`);
  let pages = 0;
  let cards = 0;
  for await (const page of store.paginate.pages("/gift-cards/")) {
    pages += 1;
    cards += page.results.length;
  }
  say(`paginate.pages /gift-cards/: ${pages} page(s), ${cards} card(s)`);

  // Typed errors: a 404 on request, and the mock's 422 for a body breaking the contract.
  try {
    await unwrap(store.GET("/users/{id}/", { params: { path: { id: 7 } }, headers: { Prefer: "code=404" } }));
    throw new Error("expected a NotFoundError for Prefer: code=404");
  } catch (caught) {
    if (!(caught instanceof NotFoundError && caught instanceof ApiError)) throw caught;
    say(`404: ${caught.name} (status ${caught.status})`);
  }
  try {
    await unwrap(store.PATCH("/users/{id}/", { params: { path: { id: 42 } }, body: { first_name: "x".repeat(256) } }));
    throw new Error("expected an UnprocessableEntityError for a 256-character first_name");
  } catch (caught) {
    if (!(caught instanceof UnprocessableEntityError)) throw caught;
    say(`422: ${caught.name} on ${caught.validation.map((issue) => issue.location.join(".")).join(", ")}`);
  }

  say(`token function called ${tokenCalls} times`);
  say("smoke ok");
  return lines;
}

/** The mock URL given to this run, from argv, the environment or the page's query string. */
function prismUrlArgument() {
  const g = /** @type {any} */ (globalThis);
  if (g.Deno) return g.Deno.args[0];
  if (g.process?.argv?.[2]) return g.process.argv[2];
  if (g.process?.env?.PRISM_URL) return g.process.env.PRISM_URL;
  if (g.location?.search) return new URLSearchParams(g.location.search).get("prism") ?? undefined;
  return undefined;
}

const apiUrl = prismUrlArgument();
const g = /** @type {any} */ (globalThis);
if (apiUrl) {
  /** @type {string[]} */
  const done = [];
  // Top-level await: the CLI runtimes exit when it settles; a page keeps the result.
  try {
    await smoke(apiUrl, (line) => {
      done.push(line);
      console.log(line);
    });
    g.smokeResult = { ok: true, lines: done };
  } catch (caught) {
    const error = caught instanceof Error ? `${caught.name}: ${caught.message}` : String(caught);
    console.error(`smoke FAILED: ${error}`);
    g.smokeResult = { ok: false, lines: done, error };
    if (g.Deno) g.Deno.exit(1);
    else if (g.process) g.process.exitCode = 1;
  }
} else if (!g.document) {
  console.error("usage: <runtime> smoke-script.mjs <prism-url>   (or PRISM_URL=…)");
  if (g.Deno) g.Deno.exit(2);
  else if (g.process) g.process.exitCode = 2;
}
