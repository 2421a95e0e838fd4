/**
 * Keeps objects strongly reachable while an attempt is in flight.
 *
 * undici (Node's fetch) links a `Request`'s signal to the signal it was built from through a
 * WeakRef. Once the `Request` built for an attempt is unreachable — and optimized code drops
 * a local as soon as it is last used, here when the response headers arrive — a garbage
 * collection cuts that link: aborting the attempt's controller no longer stops the body read,
 * and a body that stalls hangs forever instead of timing out. The soak test
 * (test/faults/soak.test.ts) found it. Upstream: https://github.com/nodejs/undici/issues/4068,
 * https://github.com/nodejs/node/issues/55428. Not exported from the package.
 */

const held = new Map<object, number>();

/** Holds `values` until the returned function is called (counted: the same object may be held twice). */
export function hold(...values: object[]): () => void {
  for (const value of values) held.set(value, (held.get(value) ?? 0) + 1);
  return () => {
    for (const value of values) {
      const count = (held.get(value) ?? 1) - 1;
      if (count > 0) held.set(value, count);
      else held.delete(value);
    }
  };
}
