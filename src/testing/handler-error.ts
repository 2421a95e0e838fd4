/**
 * The error of a test's own bug, found by the mock: a handler that threw, or a reply the
 * mock cannot send as asked (a `delayMs` no timer can wait).
 *
 * `mock.fetch` rejects with it. It is a `StoreAdminError`, so the SDK's client rethrows it
 * as it is, without retrying: the test fails at the call that met the bug. Its `cause` is
 * exactly what the handler threw (an assertion error of the test runner stays one), not a
 * copy: it is the test's own value, never text from a server, so there is nothing to scrub.
 */
import { StoreAdminError } from "#shared";

export class MockHandlerError extends StoreAdminError {
  override name = "MockHandlerError";

  constructor(message: string, options: { operation?: { method: string; path: string }; cause?: unknown } = {}) {
    super(message, { operation: options.operation });
    if ("cause" in options)
      Object.defineProperty(this, "cause", {
        value: options.cause,
        writable: true,
        configurable: true,
        enumerable: false,
      });
  }
}
