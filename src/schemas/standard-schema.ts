/**
 * Standard Schema v1 (https://standardschema.dev; `@standard-schema/spec` 1.1.0), the interface
 * its spec asks libraries to copy rather than depend on: users install nothing to type `store-admin-sdk/schemas`, and any
 * consumer of the spec (`@standard-schema/spec`'s types, a form or router library) accepts
 * these objects, as the interface is structural.
 */
import type { Validator } from "../../generated/validators/types.js";

/** The Standard Schema interface: a validator of `Output` values, typed `Input` on the way in. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

export declare namespace StandardSchemaV1 {
  /** The properties of the `~standard` key. */
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown, options?: Options | undefined) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  export type Result<Output> = SuccessResult<Output> | FailureResult;
  /** Options a caller may pass to a library's validation; these schemas take none. */
  export interface Options {
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
  export interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  export interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  export interface PathSegment {
    readonly key: PropertyKey;
  }
  export interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  export type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["input"];
  export type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["output"];
}

/** The vendor these schemas name. */
const VENDOR = "store-admin-sdk";

/**
 * A Standard Schema whose validator module `load` imports on the first validation: `validate`
 * always returns a Promise (the spec allows it), so that loading a schema's validator costs
 * nothing until a value is validated, and only that schema's.
 */
export function standardSchema<T>(load: () => Promise<{ validator: Validator }>): StandardSchemaV1<T> {
  let validator: Promise<Validator> | undefined;
  const validate = async (value: unknown): Promise<StandardSchemaV1.Result<T>> => {
    validator ??= load().then((module) => module.validator);
    // A failed import (a chunk the server did not send) is tried again by the next call.
    const check = await validator.catch((error: unknown) => {
      validator = undefined;
      throw error;
    });
    if (check(value)) return { value: value as T };
    // The wording loads with the first failure only: a schema imported (or a valid value) costs none of it.
    const { issuesOf } = await import("./issues.js");
    return { issues: issuesOf(value, check.errors ?? []) };
  };
  // Frozen, as every table a public entry exports: no importer can swap another's validator.
  return Object.freeze({ "~standard": Object.freeze({ version: 1, vendor: VENDOR, validate } as const) });
}
