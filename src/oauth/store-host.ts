/**
 * The `store` value of a callback, checked before anything is sent to it. A redirect can name
 * any host, and the code exchange posts the app's client secret to the host named, so a host
 * is used only when it is a bare host name the app's allow-list names: an exact host, or a
 * domain suffix matched at a label boundary. Pure: no I/O.
 */
import { mustBe, typeName } from "#shared";
import { OAuthError } from "./oauth-error.js";

/** An allow-list, checked and normalised once: exact hosts, and suffixes (with their leading dot). */
export interface AllowList {
  readonly exact: ReadonlySet<string>;
  readonly suffixes: readonly string[];
}

/** A DNS label (RFC 1123): letters, digits and inner hyphens, 1 to 63 characters. */
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A host name's longest form, without its trailing dot (RFC 1035 §2.3.4). */
const MAX_HOST_LENGTH = 253;

/** Why `host` is not a bare host name, or undefined when it is one (`host` already lowered, trailing dot removed). */
function hostProblem(host: string): string | undefined {
  if (host.length === 0) return "it is empty";
  if (/[^\x21-\x7e]/.test(host))
    return "it holds white space, a control or a non-ASCII character (give an internationalised name in its xn-- form)";
  if (host.includes("@")) return "it holds user info (@)";
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(host)) return "it is a URL, not a host name";
  if (host.includes(":") || host.includes("[")) return "it holds a port (or is an IPv6 address)";
  if (/[/\\?#%]/.test(host)) return "it holds a path, a query, a fragment or an escape";
  if (host.length > MAX_HOST_LENGTH) return `it is longer than ${MAX_HOST_LENGTH} characters`;
  if (!host.split(".").every((label) => LABEL.test(label)))
    return "a label is empty, too long, or holds a character other than letters, digits and inner hyphens";
  return undefined;
}

/** Lower case, one trailing dot removed: `Shop.Example.COM.` and `shop.example.com` are one host. */
const normalised = (host: string): string => host.toLowerCase().replace(/\.$/, "");

/**
 * The allow-list of `allowedStores`: `"shop.example.com"` allows that host only;
 * `".example.com"` allows every host below `example.com` (`a.example.com`, `a.b.example.com`),
 * not `example.com` itself and not `badexample.com`. There is no default: an empty list, or an
 * entry that is not a host name, is refused with its reason.
 */
export function allowList(entries: unknown): AllowList {
  if (!Array.isArray(entries) || entries.length === 0) {
    throw new TypeError(
      'allowedStores must list the stores the app may exchange codes with: exact hosts ("shop.example.com") or domain suffixes (".example.com"). There is no default that allows any host.',
    );
  }
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const [i, entry] of entries.entries()) {
    if (typeof entry !== "string") mustBe(`allowedStores[${i}]`, "a string", entry, typeName);
    if (entry.startsWith("*"))
      throw new TypeError(
        `allowedStores[${i}] (${JSON.stringify(entry)}): write a domain suffix with a leading dot, "${entry.replace(/^\*+/, "")}", not a wildcard.`,
      );
    const suffix = entry.startsWith(".");
    const host = normalised(suffix ? entry.slice(1) : entry);
    const problem = hostProblem(host);
    if (problem) throw new TypeError(`allowedStores[${i}] (${JSON.stringify(entry)}) is not a host name: ${problem}.`);
    if (suffix && !host.includes("."))
      throw new TypeError(
        `allowedStores[${i}] (${JSON.stringify(entry)}) would allow every host under a top-level domain: name the app's own domain (".stores.example.com").`,
      );
    if (suffix) suffixes.push(`.${host}`);
    else exact.add(host);
  }
  return { exact, suffixes };
}

/**
 * `value` as a checked, normalised store host (lower case, no trailing dot), or an `OAuthError`
 * (`reason: "store_refused"`) saying why it is not one the app allows. `value` is what a
 * redirect carried: the message quotes it only JSON-escaped and cut to 100 characters.
 */
export function checkedStore(value: unknown, allowed: AllowList): string {
  if (typeof value !== "string")
    throw new OAuthError("store_refused", "The callback carries no store parameter: nothing was sent.");
  const quoted = JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
  const host = normalised(value);
  const problem = hostProblem(host);
  if (problem)
    throw new OAuthError(
      "store_refused",
      `The store ${quoted} is not a bare host name (${problem}): nothing was sent to it.`,
    );
  if (!allowed.exact.has(host) && !allowed.suffixes.some((suffix) => host.endsWith(suffix))) {
    throw new OAuthError(
      "store_refused",
      `The store ${quoted} is not in allowedStores: nothing was sent to it. Add it (or its domain suffix) if the app serves it.`,
    );
  }
  return host;
}
