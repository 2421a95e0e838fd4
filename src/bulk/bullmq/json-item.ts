/**
 * What a queue's items may be: values that JSON carries through Redis unchanged. A job's
 * data is written with `JSON.stringify` and read back with `JSON.parse`, so a `Date` comes
 * back a string, a `Map` an empty object, a method or a symbol not at all, and a `bigint`
 * is not written. `createBulkQueue<Item>` checks `Item` against this type: each part JSON
 * cannot carry becomes a {@link NotJson} that names why, which is what the compile error
 * shows (`Type 'Date' is not assignable to type 'NotJson<"a Date arrives as a string…">'`).
 * Interfaces and type aliases of JSON values pass as they are (no index signature needed).
 */
export type JsonItem<T> = unknown extends T
  ? T // `unknown` (no type given) and `any` stay as they are
  : T extends string | number | boolean | null | undefined
    ? T
    : T extends Date
      ? NotJson<"a Date arrives as a string: send date.toISOString()">
      : T extends bigint
        ? NotJson<"JSON cannot write a bigint: send it as a string">
        : T extends ((...args: never[]) => unknown) | symbol
          ? NotJson<"JSON drops functions and symbols">
          : T extends
                | ReadonlyMap<unknown, unknown>
                | ReadonlySet<unknown>
                | WeakMap<object, unknown>
                | WeakSet<object>
                | RegExp
                | Error
                | ArrayBuffer
                | ArrayBufferView
            ? NotJson<"a Map, Set, RegExp, Error or binary buffer arrives as {}: send a plain object, array or string">
            : T extends object
              ? { [K in keyof T]: JsonItem<T[K]> }
              : never;

/** A part of an item that JSON cannot carry, and why. */
export interface NotJson<Why extends string> {
  "cannot travel through Redis as JSON": Why;
}
