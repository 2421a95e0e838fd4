/**
 * The contract as parsed JSON, at the bottom of the scripts: what a node is, how a place in it
 * is named (a JSON pointer), and the refusal every reader of it throws.
 */

/** A JSON object: what a contract's maps, schemas and operations are. */
export type Json = Record<string, unknown>;

/** A JSON object (not an array, not null): what a contract's maps and schemas are. */
export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `#/a/b` of JSON pointer segments (`~` and `/` escaped). */
export const pointer = (...segments: Array<string | number>): string =>
  ["#", ...segments.map((s) => String(s).replace(/~/g, "~0").replace(/\//g, "~1"))].join("/");

/** Refusal of the contract: a sentence naming where (a JSON pointer). */
export class ContractError extends Error {
  override name = "ContractError";
}
