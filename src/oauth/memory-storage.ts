/**
 * The default token storage: a `Map` in this process, lost on restart. An app that runs in
 * more than one process, or must survive a restart, gives `storage` over a shared store
 * (docs/guide.md, "Partner apps", has one over Redis and one over a SQL table).
 */
import type { StoredTokens, TokenStorage } from "./types.js";

/** A copy: what a caller does to a record it got does not change the stored one. */
const copy = (tokens: StoredTokens): StoredTokens => structuredClone(tokens);

/** Tokens and refresh locks in memory, for one process. */
export function memoryTokenStorage(): TokenStorage {
  const tokens = new Map<string, StoredTokens>();
  // The lock's holder and its end (epoch ms): a lease, like a shared storage's.
  const locks = new Map<string, { holder: object; untilMs: number }>();
  return {
    async get(store) {
      const found = tokens.get(store);
      return found && copy(found);
    },
    async set(store, value) {
      tokens.set(store, copy(value));
    },
    async delete(store) {
      tokens.delete(store);
    },
    async lock(store, leaseMs) {
      const held = locks.get(store);
      if (held && held.untilMs > Date.now()) return undefined;
      const holder = {};
      locks.set(store, { holder, untilMs: Date.now() + leaseMs });
      return async () => {
        if (locks.get(store)?.holder === holder) locks.delete(store);
      };
    },
  };
}
