/**
 * The loopback store code mode's tests run against (test/helpers/fault-server.ts counts what it
 * receives): five customers on two pages, three of them at `@example.com`, whose notes are
 * paged too; a customer whose answer echoes the token; a gift card that may be updated; an
 * address update the store refuses with a 422 listing the invalid fields.
 */
import type { ReceivedRequest } from "../helpers/fault-server.js";

export const TOKEN = "sk_live_Code7Mode9Secret42";

const USERS = [
  { id: 1, email: "ada@example.com" },
  { id: 2, email: "bob@example.com" },
  { id: 3, email: "cy@other.org" },
  { id: 4, email: "dee@example.com" },
  { id: 5, email: null },
];
const NOTES: Record<number, Array<Array<{ id: number; body: string }>>> = {
  1: [
    [
      { id: 11, body: "called" },
      { id: 12, body: "refund" },
    ],
    [{ id: 13, body: "vip" }],
  ],
  2: [[]],
  3: [[{ id: 31, body: "x" }]],
  4: [[{ id: 41, body: "late" }]],
  5: [[]],
};

/**
 * The customers-with-notes task's answer, and the requests it takes: a page of customers, each
 * `@example.com` customer's note pages, the next page only once the first is used up.
 */
export const NOTES_TASK = {
  answer: { "ada@example.com": 3, "dee@example.com": 1 },
  requests: ["/users/", "/users/1/notes/", "/users/1/notes/", "/users/2/notes/", "/users/", "/users/4/notes/"],
};

const page = (path: string, results: unknown[], next: string | null) => ({
  body: { next: next && `http://127.0.0.1/api/admin${path}?cursor=${next}`, previous: null, results },
});

/** The store's 422 for an address update: the SDK's `validation` list in the body. */
export const INVALID_ADDRESS = {
  detail: "Invalid address.",
  validation: [
    { location: ["body", "postcode"], message: "Not a Swedish postcode.", code: "invalid" },
    { location: ["body", "line1"], message: `Refused for ${TOKEN}.` },
  ],
};

export function storeAnswer(received: ReceivedRequest) {
  const path = received.path.replace(/^\/api\/admin/, "");
  const cursor = received.query.get("cursor");
  const auth = String(received.headers.authorization ?? "");
  if (path === "/users/")
    return cursor === "p2" ? page(path, USERS.slice(3), null) : page(path, USERS.slice(0, 3), "p2");
  const notes = /^\/users\/(\d+)\/notes\/$/.exec(path);
  if (notes) {
    const pages = NOTES[Number(notes[1])] ?? [[]];
    const at = cursor === null ? 0 : Number(cursor);
    return page(path, pages[at]!, at + 1 < pages.length ? String(at + 1) : null);
  }
  if (path === "/users/7/") return { body: { id: 7, email: `${auth.replace(/^Bearer /, "")}@example.com` } };
  if (path === "/users/401/") return { status: 401, body: { detail: `Invalid token ${auth}` } };
  if (path === "/users/404/") return { status: 404, body: { detail: "Not found." } };
  if (/^\/users\/\d+\/$/.test(path)) return { body: { id: Number(path.split("/")[2]), email: "someone@example.com" } };
  // A 422 listing the invalid fields, one message quoting the token: the sandbox's error carries the list, scrubbed.
  if (received.method === "PUT" && path === "/users/42/addresses/7/") return { status: 422, body: INVALID_ADDRESS };
  if (received.method === "PATCH" && path === "/gift-cards/1/")
    return { body: { id: 1, ...JSON.parse(received.body || "{}") } };
  return { status: 200, body: { id: 1 } };
}

/** The task as an agent would write it in one execute. */
export const NOTES_CODE = `const counts: Record<string, number> = {};
for await (const customer of store.users.list()) {
  if (!customer.email?.endsWith("@example.com")) continue;
  let notes = 0;
  for await (const _note of store.users.notes.list(customer.id)) notes += 1;
  if (notes > 0) counts[customer.email] = notes;
}
console.log("counted", Object.keys(counts).length, "customers");
return counts;`;
