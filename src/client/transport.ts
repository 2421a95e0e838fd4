/**
 * What is checked of a response before its body is read, and how its body is read: counted,
 * against `maxResponseBytes`.
 */
import { clip } from "../core/redact.js";
import { InvalidResponseError, RedirectError, ResponseTooLargeError, type Operation } from "../core/errors.js";

/**
 * Statuses whose response has no body by definition (Fetch "null body status").
 * https://fetch.spec.whatwg.org/#null-body-status
 */
export const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/** Whether a response must carry the operation's JSON body: a 2xx that is not to a HEAD nor of a null-body status. */
export function expectsJsonBody(method: string, response: Response): boolean {
  return response.ok && method !== "HEAD" && !NULL_BODY_STATUSES.has(response.status);
}

/**
 * The response with its body counted as it is read: past `maxBytes` decoded bytes the read
 * fails with a `ResponseTooLargeError` and the rest is never fetched, so a compressed body
 * that inflates to gigabytes costs at most `maxBytes` of memory. Counting happens on the
 * stream the runtime decodes into. Without middleware, a JSON or text body is read only by
 * openapi-fetch, with `text()` or `json()`, which this response reads through the counter.
 * When `atStream` (any other `parseAs`, or a response middleware may re-wrap, clone or read
 * any way it likes), the body is a counted stream on a new `Response`, so whatever reads it,
 * or a copy of it, is counted.
 */
export function limitBody(response: Response, maxBytes: number, operation: Operation, atStream: boolean): Response {
  const { body, status } = response;
  if (body === null || maxBytes === Infinity) return response;
  const tooLarge = (): Error => new ResponseTooLargeError({ status, maxResponseBytes: maxBytes, operation });
  if (atStream) {
    let total = 0;
    const counted = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          total += chunk.byteLength;
          // The stream takes no further chunk while the error is built.
          if (total > maxBytes) return controller.error(tooLarge());
          controller.enqueue(chunk);
          return undefined;
        },
      }),
    );
    const limited = new Response(counted, { status, statusText: response.statusText, headers: response.headers });
    Object.defineProperty(limited, "url", { value: response.url });
    return limited;
  }
  const text = (): Promise<string> => readText(body, maxBytes, tooLarge);
  return Object.assign(response, { text, json: async (): Promise<unknown> => JSON.parse(await text()) });
}

/** One decoder for every body: one per response costs the success path about a tenth of its CPU time (GC of native objects). */
const utf8 = new TextDecoder();

/** Reads a body as UTF-8 text, failing with `tooLarge()` (and cancelling the rest) once it passes `maxBytes`. */
async function readText(body: ReadableStream<Uint8Array>, maxBytes: number, tooLarge: () => Error): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (let step = await reader.read(); !step.done; step = await reader.read()) {
    total += step.value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(step.value);
  }
  if (chunks.length === 1) return utf8.decode(chunks[0]);
  // Chunks are joined before one decode (a multi-byte character may span two). Not a Blob: its
  // `text()` is read asynchronously, a wait that made a 100-item page about a tenth slower.
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return utf8.decode(joined);
}

/** JSON media types: `application/json` and `application/<anything>+json` (RFC 6839). Anchored: linear. */
const JSON_CONTENT_TYPE = /^\s*application\/([\w.-]+\+)?json\s*(;|$)/i;

/**
 * What is wrong with a response, judged as soon as its headers arrive and before anything
 * reads its body; `undefined` when nothing is:
 *
 * - A 3xx is never followed (the request carries the token; the client sends every request
 *   with `redirect: "manual"`): `RedirectError`, naming the target's origin only.
 * - Every 2xx operation of this API declares `application/json`; a 2xx of another declared
 *   type (an HTML page from a proxy) cannot be it: `InvalidResponseError`. A body with no
 *   `Content-Type` is left to the JSON parser: tolerant responses. A `Content-Type` a proxy
 *   repeated is accepted when every value is JSON.
 *
 * The caller cancels the body of a refused response, which frees its connection.
 */
export function responseHeadProblem(
  response: Response,
  request: { method: string; url: string },
  operation: Operation,
  secrets: readonly string[],
): Error | undefined {
  const { status } = response;
  if (response.type === "opaqueredirect" || (status >= 300 && status < 400 && status !== 304)) {
    const targetOrigin = originOf(response.headers.get("location"), request.url);
    return new RedirectError({ status, targetOrigin, operation, secrets });
  }
  if (expectsJsonBody(request.method, response)) {
    const contentType = response.headers.get("content-type");
    // A header a proxy doubled (`application/json, application/json`) is JSON when each of its values is.
    if (contentType && !contentType.split(",").every((value) => JSON_CONTENT_TYPE.test(value))) {
      const problem = `its content-type is ${clip(contentType.split(";")[0]!, secrets)}, not application/json`;
      return new InvalidResponseError({ status, problem, operation, secrets });
    }
  }
  return undefined;
}

/** The origin of a `Location` value resolved against the request URL; never its path or query. */
function originOf(location: string | null, base: string): string | undefined {
  if (!location) return undefined;
  try {
    const origin = new URL(location, base).origin;
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}
