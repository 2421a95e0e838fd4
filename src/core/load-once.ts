/**
 * What loads on first use (a chunk, an optional peer, a compiled checker) is loaded by one
 * loader: every caller, concurrent or later, shares one load. A failed load is not kept: the
 * callers waiting on it get its error, and the next call tries again, so that a peer installed
 * meanwhile, or a chunk that failed to read once, is taken up without a restart.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
