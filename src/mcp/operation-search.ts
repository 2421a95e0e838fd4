/**
 * Searching the operations by words, as an agent words them: the search of the MCP server's
 * dynamic mode (`search_operations`) and of its code mode (`search_docs`). Independent of MCP.
 *
 * The API, kept small:
 *
 * ```ts
 * const index = createOperationSearch(documents);            // any objects with the SearchDocument fields
 * const page = index.search("cancel a customer's gift card", { limit: 5 });
 * page.results;       // the documents themselves, best first (with their own extra fields)
 * page.total;         // how many match in all
 * page.next_cursor;   // pass as `cursor` for the next page; null on the last
 * ```
 *
 * `search` throws {@link SearchArgumentError} (a sentence naming the argument) for an empty query,
 * a limit that is not a whole number in 1…{@link MAX_SEARCH_LIMIT}, or a cursor it did not hand out.
 *
 * Ranking is BM25F over a document's fields, the method name and summary weighted above the
 * tags, the path, the parameter names and the description. Words are folded before they are
 * compared (plurals, -ing/-ed, a few irregular forms: "customers", "bought"), and a query word
 * also matches, for less, its synonyms from a small table of this domain's words ("user" for
 * "customer", "order" for "buy", "void" for "cancel"), a word it begins ("subscr"), or a word one
 * letter away ("custmer"). Each query word counts once per document, by its best match. What
 * the contract itself says about an operation (its tag, its path, its parameter names) is in
 * the same document, so it links an agent's word to it too, and a tag over one resource only
 * ("Customers" over `/users/…`) makes its words synonyms ("user" finds what says "customer").
 *
 * No dependency: MiniSearch (a well-kept candidate) would bring prefix and fuzzy matching, but
 * the stemming, the synonyms and the weighting here would still be ours, for a few hundred
 * documents at most.
 */

import type { McpToolRow } from "../../generated/mcp-tools.js";

/** What one operation offers the search. Extra fields are kept and handed back in results. */
export interface SearchDocument {
  /** The method name, `giftCards.update`. */
  readonly name: string;
  /** One line: the contract's summary. */
  readonly summary: string;
  readonly description?: string | undefined;
  /** Alternatives of scope sets, any one of which suffices; empty when none is needed. */
  readonly scopes: readonly (readonly string[])[];
  /** Whether the operation changes data. */
  readonly writes: boolean;
  readonly tags?: readonly string[] | undefined;
  /** The URL path, `/gift-cards/{id}/`. */
  readonly path?: string | undefined;
  /** The names of its parameters and body fields. */
  readonly parameters?: readonly string[] | undefined;
}

export interface SearchOptions {
  /** How many results a page holds. @default 10 */
  limit?: number | undefined;
  /** The `next_cursor` of the previous page of the same query. */
  cursor?: string | undefined;
}

export interface SearchPage<T> {
  results: T[];
  total: number;
  next_cursor: string | null;
}

export interface OperationSearch<T extends SearchDocument> {
  search(query: string, options?: SearchOptions): SearchPage<T>;
}

/** A search's argument that cannot be served; its message names it. */
export class SearchArgumentError extends TypeError {
  override name = "SearchArgumentError";
}

export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;
/** The longest query served, in characters. */
const MAX_QUERY = 500;

/** Field weights: what the operation is called and its one line count most. */
const FIELDS = { name: 3, summary: 3, tags: 1.5, path: 1.5, parameters: 0.75, description: 1 } as const;
type Field = keyof typeof FIELDS;
/** BM25's saturation and length normalization. */
const K1 = 1.2;
const B = 0.6;
/** What a query word's other matches are worth beside the word itself. */
const SYNONYM = 0.6;
const PREFIX = 0.5;
const FUZZY = 0.4;

const STOPWORDS = new Set(
  (
    "a an the and or of to for in on at by with from into onto about as is are be been was were it its it's this that these those " +
    "i me my we our you your he she they them their his her who whom whose which what when where how why do does did can could " +
    "would should will shall may might must please want need some any one there here has have had just also not no so than then very"
  ).split(" "),
);

/** Forms the suffix rules cannot fold. */
const IRREGULAR: Record<string, string> = {
  bought: "buy",
  buying: "buy",
  buys: "buy",
  sold: "sell",
  paid: "pay",
  sent: "send",
  made: "make",
  gave: "give",
  given: "give",
  took: "take",
  taken: "take",
  people: "person",
  children: "child",
  cancellation: "cancel",
  cancelation: "cancel",
  won: "win",
  lost: "lose",
  wrote: "write",
  written: "write",
  ran: "run",
  kept: "keep",
  left: "leave",
  chose: "choose",
  shipped: "ship",
  shipping: "ship",
};
/** Words a suffix rule would spoil. */
const KEEP = new Set([
  "comment",
  "document",
  "element",
  "moment",
  "status",
  "address",
  "analysis",
  "business",
  "news",
  "series",
  "always",
  "need",
  "total",
  "final",
  "this",
  "has",
]);

/** A word folded to the form its variants share: "customers" → "customer", "creating" → "creat". */
export function stem(word: string): string {
  const irregular = IRREGULAR[word];
  if (irregular !== undefined) return irregular;
  if (KEEP.has(word) || word.length <= 3 || /\d/.test(word)) return word;
  let w = word;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses") || w.endsWith("uses") || /(x|ch|sh|zz)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith("ing") && w.length >= 6) w = undouble(w.slice(0, -3));
  else if (w.endsWith("ed") && w.length >= 5) w = undouble(w.slice(0, -2));
  if (w.endsWith("ment") && w.length >= 7 && !KEEP.has(w)) w = w.slice(0, -4);
  else if (w.endsWith("al") && w.length >= 7) w = w.slice(0, -2);
  if (w.endsWith("e") && w.length > 3 && !w.endsWith("ee")) w = w.slice(0, -1);
  return w;
}

/** "shipp" → "ship", "cancell" → "cancel": a doubled last consonant once a suffix went. */
function undouble(w: string): string {
  if (w.length < 5 || !/([b-df-hj-np-tv-z])\1$/.test(w) || /(ss|zz)$/.test(w)) return w;
  return w.endsWith("ll") && w.length < 6 ? w : w.slice(0, -1);
}

/** The words of a text, camelCase and snake_case split, lowercased, without stopwords, folded. */
export function terms(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .replace(/'s\b/g, "")
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "" && !STOPWORDS.has(word))
    .map(stem);
}

/**
 * Words of this domain that an agent and a contract use for one thing: each word of a group
 * matches the others (for {@link SYNONYM} of a match). Written as words; folded at load.
 */
const SYNONYM_GROUPS: readonly string[] = [
  "customer user client buyer shopper account member person guest consumer",
  "order purchase buy sale checkout",
  "cancel void revoke deactivate disable expire expiry expiration terminate invalidate",
  "delete remove destroy erase discard",
  "list browse all every each enumerate index search find show",
  "retrieve get fetch read look view show detail lookup see inspect check",
  "create add new make register insert submit open",
  "update change edit modify set alter adjust amend patch rename correct fix replace",
  "note comment remark memo annotation message",
  "ticket support help issue complaint case request",
  "attach attachment file upload document",
  "image photo picture thumbnail",
  "product item catalogue catalog merchandise good article",
  "variant option size colour color flavour version",
  "stock inventory quantity availability warehouse",
  "dispute chargeback contest",
  "resolve settle decide close conclude",
  "gateway provider processor psp",
  "payment pay charge transaction money",
  "subscription recurring plan membership",
  "renew extend rebill",
  "address location street postal",
  "fulfillment shipment ship delivery deliver dispatch parcel package",
  "line item entry",
  "gift voucher",
  "card voucher",
  "block ban suspend lock",
  "marketing newsletter promotion",
  "preference setting config configuration",
  "status health healthy alive ping uptime online",
  "rebuild regenerate refresh recompute redo",
  "join signup register",
];

function synonymTable(): Map<string, Set<string>> {
  const table = new Map<string, Set<string>>();
  for (const group of SYNONYM_GROUPS) {
    const words = [...new Set(group.split(" ").map(stem))];
    for (const word of words) {
      const set = table.get(word) ?? new Set<string>();
      for (const other of words) if (other !== word) set.add(other);
      table.set(word, set);
    }
  }
  return table;
}
const SYNONYMS = synonymTable();

/**
 * Synonyms the contract states: a tag that groups the operations of one resource only names
 * that resource in its own words (the tag "Customers" over `/users/…` alone: a customer is a
 * user; "Support" over `/tickets/…`). A tag over several resources ("Payments") states none.
 */
function contractSynonyms(documents: readonly SearchDocument[]): Map<string, Set<string>> {
  const resources = new Map<string, Set<string>>();
  for (const doc of documents) {
    const resource = doc.name.split(".")[0]!;
    for (const tag of doc.tags ?? []) resources.set(tag, (resources.get(tag) ?? new Set()).add(resource));
  }
  const table = new Map<string, Set<string>>();
  const pair = (a: string, b: string) => table.set(a, (table.get(a) ?? new Set()).add(b));
  for (const [tag, named] of resources) {
    if (named.size !== 1) continue;
    const tagWords = terms(tag);
    const resourceWords = terms([...named][0]!);
    if (tagWords.length !== 1 || resourceWords.length !== 1 || tagWords[0] === resourceWords[0]) continue;
    pair(tagWords[0]!, resourceWords[0]!);
    pair(resourceWords[0]!, tagWords[0]!);
  }
  return table;
}

/** Whether `a` and `b` are one insertion, deletion, substitution or swap apart. */
function oneEditApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length)
    return (
      a.slice(i + 1) === b.slice(i + 1) || (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2))
    );
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

interface Indexed {
  /** Per term, its weighted, length-normalized frequency over the fields. */
  weights: Map<string, number>;
}

/** The fields of a document as text. */
function fieldTexts(doc: SearchDocument): Record<Field, string> {
  return {
    name: doc.name,
    summary: doc.summary,
    tags: (doc.tags ?? []).join(" "),
    path: (doc.path ?? "").replace(/\{[^}]*\}/g, " "),
    parameters: (doc.parameters ?? []).join(" "),
    description: doc.description ?? "",
  };
}

function buildIndex(documents: readonly SearchDocument[]): {
  indexed: Indexed[];
  idf: Map<string, number>;
  vocabulary: string[];
} {
  const tokenized = documents.map((doc) => {
    const texts = fieldTexts(doc);
    return Object.fromEntries((Object.keys(FIELDS) as Field[]).map((field) => [field, terms(texts[field])])) as Record<
      Field,
      string[]
    >;
  });
  const average = Object.fromEntries(
    (Object.keys(FIELDS) as Field[]).map((field) => [
      field,
      Math.max(1, tokenized.reduce((sum, fields) => sum + fields[field].length, 0) / Math.max(1, tokenized.length)),
    ]),
  ) as Record<Field, number>;
  const df = new Map<string, number>();
  const indexed = tokenized.map((fields) => {
    const weights = new Map<string, number>();
    for (const field of Object.keys(FIELDS) as Field[]) {
      const words = fields[field];
      const norm = 1 - B + (B * words.length) / average[field];
      for (const word of words) weights.set(word, (weights.get(word) ?? 0) + FIELDS[field] / norm);
    }
    for (const word of weights.keys()) df.set(word, (df.get(word) ?? 0) + 1);
    return { weights };
  });
  const n = documents.length;
  const idf = new Map([...df].map(([word, count]) => [word, Math.log(1 + (n - count + 0.5) / (count + 0.5))]));
  return { indexed, idf, vocabulary: [...df.keys()] };
}

/** The index's terms a query word matches, each with what a match is worth. */
function expansions(
  word: string,
  vocabulary: readonly string[],
  known: ReadonlySet<string>,
  stated: ReadonlyMap<string, ReadonlySet<string>>,
): Map<string, number> {
  const out = new Map<string, number>();
  const offer = (term: string, worth: number) => {
    if (known.has(term) && (out.get(term) ?? 0) < worth) out.set(term, worth);
  };
  offer(word, 1);
  for (const synonym of [...(SYNONYMS.get(word) ?? []), ...(stated.get(word) ?? [])]) offer(synonym, SYNONYM);
  for (const term of vocabulary) {
    if (term === word) continue;
    if (word.length >= 4 && term.startsWith(word)) offer(term, PREFIX);
    else if (word.length >= 5 && oneEditApart(word, term)) offer(term, FUZZY);
  }
  return out;
}

/** An index of `documents`, answering {@link OperationSearch.search}. */
export function createOperationSearch<T extends SearchDocument>(documents: readonly T[]): OperationSearch<T> {
  const { indexed, idf, vocabulary } = buildIndex(documents);
  const known = new Set(vocabulary);
  const stated = contractSynonyms(documents);
  return {
    search(query, options = {}) {
      const { limit, offset } = checkedSearch(query, options);
      const words = [...new Set(terms(query))];
      const scores = new Float64Array(documents.length);
      for (const word of words) {
        const matches = [...expansions(word, vocabulary, known, stated)];
        indexed.forEach(({ weights }, i) => {
          // A query word counts once, by its best match in the document.
          let best = 0;
          for (const [term, worth] of matches) {
            const weight = weights.get(term);
            if (weight !== undefined)
              best = Math.max(best, worth * idf.get(term)! * ((weight * (K1 + 1)) / (weight + K1)));
          }
          scores[i]! += best;
        });
      }
      const ranked = documents
        .map((doc, i) => ({ doc, score: scores[i]! }))
        .filter((hit) => hit.score > 0)
        .sort((a, b) => b.score - a.score || (a.doc.name < b.doc.name ? -1 : a.doc.name > b.doc.name ? 1 : 0));
      const end = offset + limit;
      return {
        results: ranked.slice(offset, end).map((hit) => hit.doc),
        total: ranked.length,
        next_cursor: end < ranked.length ? `${end}` : null,
      };
    },
  };
}

function checkedSearch(query: unknown, options: SearchOptions): { limit: number; offset: number } {
  if (typeof query !== "string" || query.trim() === "")
    throw new SearchArgumentError(
      `query must be words saying what to find, e.g. "update a gift card", got ${JSON.stringify(query) ?? String(query)}.`,
    );
  if (query.length > MAX_QUERY)
    throw new SearchArgumentError(`query is ${query.length} characters long; a query takes at most ${MAX_QUERY}.`);
  const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw new SearchArgumentError(
      `limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}, got ${JSON.stringify(options.limit)}.`,
    );
  }
  const cursor = options.cursor;
  if (cursor !== undefined && (typeof cursor !== "string" || !/^[1-9]\d{0,5}$/.test(cursor))) {
    throw new SearchArgumentError(
      `cursor must be the next_cursor of a previous page of results, got ${JSON.stringify(cursor) ?? String(cursor)}.`,
    );
  }
  return { limit, offset: cursor === undefined ? 0 : Number(cursor) };
}

type Schema = { properties?: Record<string, unknown>; $ref?: string };

/** The search's document of a generated tool row: its method name, summary, description, scopes, tags, path and argument names. */
export function operationDocument(row: McpToolRow): SearchDocument {
  const schema = row.inputSchema as Schema & { $defs?: Record<string, Schema> };
  const resolved = (node: unknown): Schema => {
    const ref = (node as Schema | undefined)?.$ref;
    return ((ref !== undefined ? schema.$defs?.[ref.replace("#/$defs/", "")] : node) ?? {}) as Schema;
  };
  const parameters = ["path", "query", "body"].flatMap((part) =>
    Object.keys(resolved(schema.properties?.[part]).properties ?? {}),
  );
  // The description as generated for the tool, without its first paragraph (the summary) and the method-and-scope line.
  const description = row.description
    .split("\n\n")
    .slice(1)
    .filter((paragraph) => !paragraph.startsWith(`${row.method} ${row.path}.`))
    .join("\n\n");
  return {
    name: row.methodName,
    summary: row.title,
    description,
    scopes: row.scopes,
    writes: row.method !== "GET",
    tags: row.tags,
    path: row.path,
    parameters,
  };
}

/**
 * Whether a query word, folded, or one of its synonyms, is a word of `doc`'s name, summary or
 * tags: a hit found only through its description, path or a near spelling is a weak one.
 */
export function matchesStrongly(query: string, doc: SearchDocument): boolean {
  const own = new Set(terms([doc.name, doc.summary, ...(doc.tags ?? [])].join(" ")));
  return terms(query).some(
    (word) => own.has(word) || [...(SYNONYMS.get(word) ?? [])].some((synonym) => own.has(synonym)),
  );
}
