/**
 * Every reliance of the client on openapi-fetch 0.17's internals, kept here and nowhere else
 * (docs/architecture.md, "What we rely on in openapi-fetch"). openapi-fetch is in maintenance
 * mode: test/unit/fast-path.test.ts ("openapi-fetch still behaves as the fast path assumes")
 * pins each behaviour, so that an upgrade which changes one fails a test rather than the client.
 *
 * - {@link PlannedRequest}: openapi-fetch builds a call's request with the `Request` class it
 *   is given per call (`new Request(url, init)`), reads back only `url`, `method` and
 *   `headers` (and copies unknown init keys onto it), and hands that object to the per-call
 *   `fetch`. With no middleware to show a real `Request` to, the client gives it this class,
 *   and the attempt calls `fetch(url, init)`: Node's fetch would otherwise copy the `Request`
 *   openapi-fetch made, piping its body through a new stream (docs/performance.md).
 * - {@link trackMiddleware}: openapi-fetch keeps its middleware list private; `use` and
 *   `eject` are plain, replaceable properties of the client, so wrapping them is how the client
 *   knows whether real `Request`s are needed.
 */
import type { Middleware } from "openapi-fetch";
import type { FetchLike } from "../core/call-types.js";

/** What openapi-fetch's `new Request(url, init)` makes when given this class: the URL and init as they are. */
export class PlannedRequest {
  // Declared, not class fields: the constructor's assignments are the only definitions.
  declare readonly url: string;
  declare readonly init: RequestInit & { method: string; headers: Headers };

  constructor(url: string, init: RequestInit & { method: string; headers: Headers }) {
    this.url = url;
    this.init = init;
  }

  get method(): string {
    return this.init.method;
  }

  get headers(): Headers {
    return this.init.headers;
  }
}

/** Sends what openapi-fetch built: `fetch(url, init)` for a planned request, `fetch(request)` for a real one. */
export function sendRequest(fetch: FetchLike, request: Request | PlannedRequest): Promise<Response> {
  return request instanceof PlannedRequest ? fetch(request.url, request.init) : fetch(request);
}

/** Wraps the client's `use` and `eject`; returns whether any middleware is registered. */
export function trackMiddleware(client: {
  use(...m: Middleware[]): void;
  eject(...m: Middleware[]): void;
}): () => boolean {
  const middleware = new Set<Middleware>();
  const { use, eject } = client;
  client.use = (...added) => {
    use(...added);
    for (const m of added) if (m) middleware.add(m);
  };
  client.eject = (...removed) => {
    eject(...removed);
    for (const m of removed) middleware.delete(m);
  };
  return () => middleware.size > 0;
}
