/**
 * What the fault, contract and testing-kit suites read of a call that must fail: its
 * rejection, and every text an error can be turned into (where a token must never appear).
 */
import { inspect } from "node:util";

/** The rejection of `promise`; fails the test if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)?.slice(0, 200)}`);
    },
    (error: unknown) => error,
  );
}

/** Every text a caller could print or send somewhere from an error (and its causes). */
export function everyRendering(error: unknown): string {
  return [
    String(error),
    JSON.stringify(error),
    inspect(error, { depth: null, showHidden: true }),
    (error as Error).stack ?? "",
  ].join("\n");
}
