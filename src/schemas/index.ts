/**
 * store-admin-sdk/schemas: each named schema of the contract as a Standard Schema v1 object
 * (https://standardschema.dev), typed with its generated type, for any library that accepts
 * one (a form, a router, a queue message's check). A schema is exported in the view it is used
 * in: one that responses carry as it is read (`User`: read-only properties allowed), one that
 * only requests send as it is written (read-only properties refused, write-only allowed); one
 * used both ways twice, its request view named `<Name>Input` (`AddressInput`). `validate`
 * returns a Promise: a schema's precompiled validator loads on its first use, and only it.
 *
 * @example
 * import { User } from "store-admin-sdk/schemas";
 *
 * const result = await User["~standard"].validate(JSON.parse(message));
 * if (result.issues) console.error(result.issues); // [{ message: "must be string or null", path: ["email"] }]
 */
export * from "../../generated/schemas/index.js";
export type { StandardSchemaV1 } from "./standard-schema.js";
