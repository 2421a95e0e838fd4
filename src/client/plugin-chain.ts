/**
 * Runs a client's plugins (core/plugin.ts) around one call: the objects they are handed (a
 * call, an attempt: neither holds the token, nor anything that reaches it), the two wrap
 * chains, and the verdicts after each attempt. request.ts calls in here only when the client
 * has a plugin; a client with none runs prepare, attempt, finish and nothing of this.
 */
import type {
  AttemptOutcome,
  AttemptVerdict,
  PluginAttempt,
  PluginAttributeValue,
  PluginCall,
  StoreAdminPlugin,
} from "../core/plugin.js";
import { MAX_EXTRA_ATTEMPTS } from "../core/plugin.js";
import type { FetchResult } from "../core/call-types.js";
import type { RetryDecision } from "../core/retry-policy.js";
import { checkHeaders } from "./headers.js";
import { describe, redactWhole } from "../core/redact.js";
import { onAbort } from "../core/timeout.js";

/**
 * The tokens to scrub from what an SDK plugin builds for `call`: its errors and log events,
 * scrubbed as the core's are. A view keeps its tokens in a private field that only this
 * function reads (set in the class's static block): no object a plugin is handed reaches them,
 * not a field, not a method of the view or of its class.
 */
export let secretsOf: (call: PluginCall) => readonly string[];

/** The call's place in the order calls were made (the pause serves its waiters in that order). */
export let callOrder: (call: PluginCall) => number;

/** The caller's signal as the client was given it: a plugin may write over the view's `signal`. */
export let callerSignalOf: (call: PluginCall) => AbortSignal | undefined;

let calls = 0;

/** One call as its plugins see it. Its headers and attributes are made on first use: most calls never touch them. */
export class CallView implements PluginCall {
  idempotent: boolean;
  #headers: Headers | undefined;
  #attributes: Record<string, PluginAttributeValue> | undefined;
  readonly #secrets: () => readonly string[];
  readonly #order = ++calls;
  readonly #signal: AbortSignal | undefined;

  static {
    secretsOf = (call) => (#secrets in call ? call.#secrets() : []);
    callOrder = (call) => (#order in call ? call.#order : 0);
    callerSignalOf = (call) => (#signal in call ? call.#signal : call.signal);
  }

  constructor(
    readonly method: string,
    readonly path: string,
    readonly signal: AbortSignal | undefined,
    readonly parseAs: string,
    idempotent: boolean,
    secrets: () => readonly string[],
  ) {
    this.idempotent = idempotent;
    this.#secrets = secrets;
    this.#signal = signal;
  }

  get headers(): Headers {
    return (this.#headers ??= new Headers());
  }

  get attributes(): Record<string, PluginAttributeValue> {
    return (this.#attributes ??= {});
  }

  /** The plugins' headers, if any was set (no `Headers` is made to find out). */
  get setHeaders(): Headers | undefined {
    return this.#headers;
  }

  redact(text: string): string {
    return redactWhole(text, secretsOf(this));
  }

  toJSON(): object {
    return {
      method: this.method,
      path: this.path,
      idempotent: this.idempotent,
      headers: Object.fromEntries(this.#headers ?? []),
      attributes: this.#attributes ?? {},
    };
  }
}

/** One attempt as its plugins see it. */
export class AttemptView implements PluginAttempt {
  waitedMs = 0;
  #headers: Headers | undefined;
  readonly #url: () => string;

  constructor(
    readonly call: CallView,
    readonly number: number,
    url: () => string,
  ) {
    this.#url = url;
  }

  get headers(): Headers {
    return (this.#headers ??= new Headers());
  }

  get setHeaders(): Headers | undefined {
    return this.#headers;
  }

  get url(): string {
    return this.#url();
  }

  toJSON(): object {
    return {
      call: this.call,
      number: this.number,
      url: this.url,
      waitedMs: this.waitedMs,
      headers: Object.fromEntries(this.#headers ?? []),
    };
  }
}

/**
 * When one of the SDK's own plugins has nothing to do, so that its hook need not run: a
 * `wrapAttempt` that would only call `next()`, an `onAttemptEnd` that would return nothing.
 */
interface Idle {
  attempt?: () => boolean;
  end?: (response: Response | undefined, decision: RetryDecision) => boolean;
}

/**
 * The SDK's own plugins (the pause, the logger). They run without the guards a caller's plugin
 * gets (`next()` once, the caller's abort over a hook that hangs, the result checked), which
 * they need not; and where every plugin with a hook is idle, the hooks are not run at all (no
 * view of the attempt, no promise): a default client's every call would pay for them.
 */
const sdkPlugins = new WeakMap<StoreAdminPlugin, Idle>();

/** Marks `plugin` as one of the SDK's own, idle when `idle` says so; returns it. */
export function sdkPlugin(plugin: StoreAdminPlugin, idle: Idle = {}): StoreAdminPlugin {
  sdkPlugins.set(plugin, idle);
  return plugin;
}

/** Whether no `wrapAttempt` has anything to do for the attempt about to start. */
export const wrapsIdle = (plugins: readonly StoreAdminPlugin[]): boolean =>
  plugins.every((plugin) => !plugin.wrapAttempt || sdkPlugins.get(plugin)?.attempt?.() === true);

/** Whether no `onAttemptEnd` has anything to say of an attempt that ended with `response` (or none) and `decision`. */
export const endsIdle = (
  plugins: readonly StoreAdminPlugin[],
  response: Response | undefined,
  decision: RetryDecision,
): boolean =>
  plugins.every((plugin) => !plugin.onAttemptEnd || sdkPlugins.get(plugin)?.end?.(response, decision) === true);

/** Whether a call of this client needs `wrapCall` run: a plugin has the hook. */
export const wrapsCalls = (plugins: readonly StoreAdminPlugin[]): boolean => plugins.some((plugin) => plugin.wrapCall);

/** Whether `value` is a promise or another thenable: only then may a hook's result keep the call waiting. */
const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | null)?.then === "function";

/** Where one hook of a call stands: inside `next()` (the attempt, or the hooks further in), or on its own. */
interface HookState {
  inside: boolean;
  /** After `next()` ends: when the call was aborted, gives the hook up unless it settles within a turn of the event loop. */
  recheck?: () => unknown;
}

/**
 * A hook's result, given up for the call's abort while the hook waits on something of its own:
 * a hook that never settles cannot keep the caller's signal from ending the call. Inside
 * `next()` the abort ends the attempt itself, and the hook is left to see it (a logger records
 * it); one still pending a turn of the event loop after that is given up too.
 */
function heldBy<Result>(
  hook: Result | Promise<Result>,
  signal: AbortSignal | undefined,
  state: HookState,
): Promise<Result> {
  const result = Promise.resolve(hook);
  if (!signal) return result;
  return new Promise<Result>((resolve, reject) => {
    let settled = false;
    const end = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      stop();
      settle();
    };
    const giveUp = (): void => {
      if (!state.inside) end(() => reject(signal.reason));
    };
    const stop = onAbort(signal, giveUp);
    state.recheck = () => signal.aborted && setTimeout(giveUp, 0);
    result.then(
      (value) => end(() => resolve(value)),
      (error: unknown) => end(() => reject(error)),
    );
    if (signal.aborted) giveUp();
  });
}

/**
 * Runs `next` once; a second call is a plugin's bug, refused rather than sending the call twice.
 * The headers the plugin set so far are checked as it hands on, so a refusal names the plugin.
 */
function once<Result>(
  plugin: StoreAdminPlugin,
  hook: string,
  state: HookState,
  headers: () => Array<Headers | undefined>,
  next: () => Promise<Result>,
): () => Promise<Result> {
  let called = false;
  return async () => {
    if (called)
      throw new TypeError(
        `the plugin "${plugin.name}" called next() twice in ${hook}; each hook sends its call or attempt once.`,
      );
    called = true;
    for (const set of headers()) if (set) checkHeaders(set, `the plugin "${plugin.name}"`);
    state.inside = true;
    try {
      return await next();
    } finally {
      state.inside = false;
      state.recheck?.();
    }
  };
}

/** What a wrap resolved to, checked: a plugin that returns something else fails the call with a message naming it. */
function checked<Result>(plugin: StoreAdminPlugin, hook: string, result: Result, valid: boolean): Result {
  if (valid) return result;
  throw new TypeError(
    `the plugin "${plugin.name}" resolved ${hook} to ${describe(result)}; resolve to what next() resolved to` +
      (hook === "wrapAttempt" ? ", or an outcome with a response or an error." : "."),
  );
}

/** Whether `value` looks like a `Response` (one from another realm or a polyfill included). */
const isResponse = (value: unknown): boolean =>
  typeof (value as Response | null)?.status === "number" && typeof (value as Response).headers?.get === "function";

/**
 * `core` wrapped by every plugin's `wrapCall`, the first plugin outermost. A hook that throws
 * synchronously rejects the call as one that rejects does. `signal` is the caller's, as the
 * client holds it (a plugin may write over the view's).
 */
export function wrapCall(
  plugins: readonly StoreAdminPlugin[],
  call: CallView,
  core: () => Promise<FetchResult>,
  signal: AbortSignal | undefined,
): Promise<FetchResult> {
  const step = async (index: number): Promise<FetchResult> => {
    for (; index < plugins.length; index++) {
      const plugin = plugins[index]!;
      if (plugin.wrapCall) {
        const state: HookState = { inside: false };
        const next = once(
          plugin,
          "wrapCall",
          state,
          () => [call.setHeaders],
          () => step(index + 1),
        );
        const result = await heldBy(plugin.wrapCall(call, next), signal, state);
        return checked(plugin, "wrapCall", result, isResponse(result?.response));
      }
    }
    return core();
  };
  return step(0);
}

/**
 * `core` (one attempt) wrapped by every plugin's `wrapAttempt`; `waitedMs` is what the wraps
 * spent before the innermost started it.
 */
export function wrapAttempt(
  plugins: readonly StoreAdminPlugin[],
  attempt: AttemptView,
  core: () => Promise<AttemptOutcome>,
  signal: AbortSignal | undefined,
): Promise<AttemptOutcome> {
  const startedMs = performance.now();
  const step = async (index: number): Promise<AttemptOutcome> => {
    // What the outer wraps waited, for the inner ones to read (a span after a pause), and the outcome.
    if (index) attempt.waitedMs = Math.round(performance.now() - startedMs);
    for (; index < plugins.length; index++) {
      const plugin = plugins[index]!;
      if (plugin.wrapAttempt) {
        if (sdkPlugins.has(plugin)) return plugin.wrapAttempt(attempt, () => step(index + 1));
        const state: HookState = { inside: false };
        const headers = () => [attempt.call.setHeaders, attempt.setHeaders];
        const next = once(plugin, "wrapAttempt", state, headers, () => step(index + 1));
        const outcome = await heldBy(plugin.wrapAttempt(attempt, next), signal, state);
        return checked(plugin, "wrapAttempt", outcome, outcome?.error != null || isResponse(outcome?.response));
      }
    }
    return core();
  };
  return step(0);
}

/** The decision after every plugin's `onAttemptEnd`, and whether one asked for a fresh token. */
interface Verdicts {
  decision: RetryDecision;
  refreshToken: boolean;
  /** Whether the retry is one the policy would not have made. */
  extra: boolean;
}

/**
 * Each plugin's say on an attempt's end, in order: each sees the decision the ones before it
 * left. `extraSoFar` counts the call's earlier extra attempts: past {@link MAX_EXTRA_ATTEMPTS}
 * a plugin's `retry: true` on what the policy would not retry is ignored.
 */
export async function verdicts(
  plugins: readonly StoreAdminPlugin[],
  attempt: AttemptView,
  outcome: AttemptOutcome,
  policy: RetryDecision,
  extraSoFar: number,
  signal: AbortSignal | undefined,
): Promise<Verdicts> {
  let decision = policy;
  let refreshToken = false;
  for (const plugin of plugins) {
    if (!plugin.onAttemptEnd) continue;
    const said = plugin.onAttemptEnd(attempt, outcome, decision);
    // A caller's plugin's verdict is held to the caller's signal when pending, or when the call is
    // aborted already (the abort ends the call before any later hook); one given at once cannot
    // hang. The SDK's own plugins answer at once, and are not held.
    const held = !sdkPlugins.has(plugin) && (isThenable(said) || signal?.aborted);
    const verdict = held ? await heldBy(said, signal, { inside: false }) : await said;
    if (verdict === undefined) continue;
    checkVerdict(plugin, verdict);
    if (!verdict.retry) {
      decision = decision.retry ? { retry: false, reason: "not-retryable" } : decision;
      refreshToken = false;
      continue;
    }
    if (!policy.retry && extraSoFar >= MAX_EXTRA_ATTEMPTS) continue;
    decision = { retry: true, delayMs: verdict.delayMs ?? (decision.retry ? decision.delayMs : 0) };
    refreshToken ||= verdict.refreshToken === true;
  }
  return { decision, refreshToken, extra: decision.retry && !policy.retry };
}

function checkVerdict(plugin: StoreAdminPlugin, verdict: AttemptVerdict): void {
  const ok =
    verdict !== null &&
    typeof verdict === "object" &&
    typeof verdict.retry === "boolean" &&
    (!verdict.retry ||
      verdict.delayMs === undefined ||
      (typeof verdict.delayMs === "number" && verdict.delayMs >= 0 && verdict.delayMs < Infinity));
  if (!ok)
    throw new TypeError(
      `the plugin "${plugin.name}" returned ${JSON.stringify(verdict) ?? String(verdict)} from onAttemptEnd; return nothing, { retry: false } or { retry: true, delayMs?, refreshToken? } (delayMs a number ≥ 0).`,
    );
}

/** The headers the plugins set for this attempt (the call's, then the attempt's), checked; `undefined` when none. */
export function pluginHeaders(
  plugins: readonly StoreAdminPlugin[],
  attempt: AttemptView,
): Record<string, string> | undefined {
  const callHeaders = attempt.call.setHeaders;
  const own = attempt.setHeaders;
  if (!callHeaders && !own) return undefined;
  const merged: Record<string, string> = {};
  callHeaders?.forEach((value, name) => (merged[name] = value));
  own?.forEach((value, name) => (merged[name] = value));
  checkHeaders(merged, `the headers set by the plugins (${plugins.map((plugin) => plugin.name).join(", ")})`);
  return merged;
}

/** Refuses a `plugins` option that is not a list of plugins; the message names the entry. */
export function checkPlugins(plugins: unknown): readonly StoreAdminPlugin[] {
  if (plugins === undefined) return [];
  if (!Array.isArray(plugins))
    throw new TypeError(`plugins must be an array of plugins, got ${plugins === null ? "null" : typeof plugins}.`);
  const hooks = ["setup", "wrapCall", "wrapAttempt", "onAttemptEnd"] as const;
  plugins.forEach((plugin: unknown, index) => {
    const given = plugin as Record<string, unknown> | null;
    if (given === null || typeof given !== "object" || typeof given["name"] !== "string" || given["name"] === "") {
      throw new TypeError(
        `plugins[${index}] must be a plugin: an object with a name and hooks (wrapCall, wrapAttempt, onAttemptEnd, setup).`,
      );
    }
    for (const hook of hooks) {
      if (given[hook] !== undefined && typeof given[hook] !== "function")
        throw new TypeError(`plugins[${index}] ("${given["name"]}"): ${hook} must be a function.`);
    }
  });
  return plugins as readonly StoreAdminPlugin[];
}
