/**
 * Reading the contract safely: the one function every tool that reads an OpenAPI document
 * goes through (the contract diff, both generators, the docs build) before it does
 * anything else with it.
 *
 * The contract diff runs on pull requests, so the document it reads is outside input.
 * Two things in a YAML OpenAPI document can make a tool do far more than read one file:
 *
 * - a `$ref` to anything but a place in the same document (`http://…/x.yaml`,
 *   `/etc/hostname`, `other.yaml#/User`): openapi-typescript and Redocly follow it, which
 *   is a request to any URL, or a read of any local file, from CI. Our contract is one
 *   file; a reference is `#/…` or it is refused, before any tool sees the document. The
 *   same holds for every keyword that makes a tool load or resolve elsewhere: `$dynamicRef`
 *   and `$recursiveRef` (like `$ref`), a link's `operationRef`, a `discriminator.mapping`
 *   value (a bare schema name or `#/…` is accepted, anything else names a file or URL),
 *   `$id` (changes what `#/…` means), `$schema` and `jsonSchemaDialect` (a dialect a
 *   validator may fetch; only the two OpenAPI 3.1 uses by default are accepted) and an
 *   example's `externalValue` (a URL).
 * - YAML aliases (`*name`) that expand into one another: 330 bytes can stand for billions
 *   of nodes. The parser counts alias expansions and stops at `MAX_ALIAS_COUNT` (the `yaml`
 *   package's own default; our contract uses a handful for examples).
 *
 * Then it builds the generators' model of the contract (scripts/contract-model.ts), so that
 * what they cannot serve is refused here, with a JSON pointer, before any tool runs.
 *
 * Runs before anything is built: Node built-ins, the `yaml` parser and our own scripts only.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parse } from "yaml";
import { contractModel, ContractError, isObject, schemaExports } from "./contract-model.js";

export type ContractDocument = Record<string, unknown>;

/** How many alias expansions the YAML parser allows (weighted by the size of what each stands for). */
export const MAX_ALIAS_COUNT = 100;

/** Keywords whose string value names another document unless it starts with `#`. */
const REFERENCE_KEYWORDS = ["$ref", "$dynamicRef", "$recursiveRef", "operationRef"] as const;
/** Keywords that point a tool elsewhere whatever their value. */
const FOREIGN_KEYWORDS = ["$id", "externalValue"] as const;
/** Keywords naming a JSON Schema dialect; the ones every tool knows without fetching are allowed. */
const DIALECT_KEYWORDS = ["$schema", "jsonSchemaDialect"] as const;
const KNOWN_DIALECTS = new Set([
  "https://spec.openapis.org/oas/3.1/dialect/base",
  "https://json-schema.org/draft/2020-12/schema",
]);
/** A `discriminator.mapping` value that names a schema of this document: a local reference, or a bare name (no dot or slash, which would make it a file name). */
const LOCAL_MAPPING = /^(#.*|[\w -]+)$/;

const pointerSegment = (key: string | number): string => String(key).replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * Every place in the document that would make a tool read something else: `[where, what]`
 * pairs, `where` a JSON pointer (`#/components/schemas/User/$ref`). Nodes shared through
 * YAML aliases are visited once.
 */
export function foreignReferences(doc: unknown): Array<{ at: string; keyword: string; value: unknown }> {
  const found: Array<{ at: string; keyword: string; value: unknown }> = [];
  const seen = new Set<object>();
  const stack: Array<[unknown, string]> = [[doc, "#"]];
  while (stack.length > 0) {
    const [node, at] = stack.pop() as [unknown, string];
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      node.forEach((item, i) => stack.push([item, `${at}/${i}`]));
      continue;
    }
    const record = node as Record<string, unknown>;
    for (const keyword of REFERENCE_KEYWORDS) {
      if (!(keyword in record)) continue;
      const value = record[keyword];
      if (typeof value !== "string" || !value.startsWith("#"))
        found.push({ at: `${at}/${pointerSegment(keyword)}`, keyword, value });
    }
    for (const keyword of FOREIGN_KEYWORDS) {
      if (keyword in record && typeof record[keyword] === "string")
        found.push({ at: `${at}/${pointerSegment(keyword)}`, keyword, value: record[keyword] });
    }
    for (const keyword of DIALECT_KEYWORDS) {
      if (keyword in record && !KNOWN_DIALECTS.has(record[keyword] as string))
        found.push({ at: `${at}/${pointerSegment(keyword)}`, keyword, value: record[keyword] });
    }
    const mapping = isObject(record.discriminator) ? record.discriminator.mapping : undefined;
    if (isObject(mapping)) {
      for (const [name, value] of Object.entries(mapping)) {
        if (typeof value !== "string" || !LOCAL_MAPPING.test(value)) {
          found.push({
            at: `${at}/discriminator/mapping/${pointerSegment(name)}`,
            keyword: "discriminator.mapping",
            value,
          });
        }
      }
    }
    for (const [key, value] of Object.entries(record)) stack.push([value, `${at}/${pointerSegment(key)}`]);
  }
  return found.sort((a, b) => (a.at < b.at ? -1 : 1));
}

/**
 * Parses the text of an OpenAPI document and returns it, or throws an error naming the
 * source and what is wrong: not YAML, an alias bomb, not an OpenAPI document, or a
 * reference outside the document (each one listed, with where it is written).
 */
export function loadContract(text: string, source: string): ContractDocument {
  let raw: unknown;
  try {
    raw = parse(text, { maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    const message = (error as Error).message;
    if (/alias/i.test(message)) {
      throw new Error(
        `${source} is refused: its YAML aliases expand beyond ${MAX_ALIAS_COUNT} nodes (an "alias bomb"; the parser says: ${message.split("\n")[0]})`,
      );
    }
    throw new Error(`${source} is not valid YAML: ${message}`);
  }
  if (!isObject(raw) || typeof raw.openapi !== "string" || !isObject(raw.paths)) {
    throw new Error(`${source} is not an OpenAPI document (no \`openapi\` version or no \`paths\`).`);
  }
  const foreign = foreignReferences(raw);
  if (foreign.length > 0) {
    const list = foreign.slice(0, 10).map((f) => `${f.keyword}: ${JSON.stringify(f.value)} at ${f.at}`);
    const more = foreign.length > 10 ? ` (and ${foreign.length - 10} more)` : "";
    throw new Error(
      `${source} is refused: it refers outside itself, which no tool here follows (a request to any URL, or a read of any file): ` +
        `${list.join("; ")}${more}. Only references within the document ("#/components/…") are allowed; bundle other files into it first.`,
    );
  }
  // What the generators cannot serve (a media type, two names for one type, a reference to nothing, …), refused here first.
  try {
    contractModel(raw);
    schemaExports(raw);
  } catch (error) {
    if (error instanceof ContractError) throw new Error(`${source} is refused: ${error.message}`);
    throw error;
  }
  return raw;
}

/** {@link loadContract} of a file. */
export function loadContractFile(path: string): ContractDocument {
  return loadContract(readFileSync(path, "utf8"), path);
}

// `tsx scripts/load-contract.ts FILE…` checks files the same way (run before `redocly lint`, which follows references).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    for (const file of process.argv.slice(2)) loadContractFile(file);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
